package drafts

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/drafts/render"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// Render compiles (.tex) or exports (.md) one draft file. It never works in
// place: the draft's own files, minus draft.json and .versions/, are copied
// into a fresh temp directory, so nothing the document writes reaches the
// user's files and an \input{} cannot reach the sandbox's bookkeeping.
func (w *Workspace) Render(ctx context.Context, tc render.Toolchain, id, filename string) (render.Result, error) {
	if _, err := w.Resolve(id, filename); err != nil {
		return render.Result{}, err
	}
	d, err := w.Get(id)
	if err != nil {
		return render.Result{}, err
	}
	tmp, err := os.MkdirTemp("", "jarvis-render-")
	if err != nil {
		return render.Result{}, errs.Wrap(errs.Internal, "drafts.Render", err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range d.Files {
		src, err := w.Resolve(id, f)
		if err != nil {
			return render.Result{}, err
		}
		if err := fsutil.CopyNew(src, filepath.Join(tmp, f)); err != nil {
			return render.Result{}, errs.Wrap(errs.Internal, "drafts.Render", err)
		}
	}
	switch strings.ToLower(filepath.Ext(filename)) {
	case ".tex":
		return tc.CompileLatex(ctx, tmp, filename)
	case ".md":
		return tc.ExportMarkdown(ctx, tmp, filename)
	default:
		return render.Result{}, errs.New(errs.Invalid, "drafts.Render", "only .tex and .md files can be rendered to PDF")
	}
}
