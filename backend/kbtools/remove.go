package kbtools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// RemoveNotice is the invariant every removal preview states, followed by
// the document's local path (RemoveLine).
const RemoveNotice = "Database entry only — files on disk are never touched by jarvis"

// NoLocalFile stands for the path of a document that has no file here (an
// arXiv paper, a past conversation).
const NoLocalFile = "no local file"

// RemoveLine is the removal preview's fixed line naming the local path.
func RemoveLine(path string) string {
	if path == "" {
		path = NoLocalFile
	}
	return RemoveNotice + ": " + path
}

// LocalPath is where a listed document's file is (a vault note's under
// vaultRoot), or "" when it has none.
func LocalPath(vaultRoot string, d kb.DocumentSummary) string {
	switch {
	case d.FilePath == "":
		return ""
	case filepath.IsAbs(d.FilePath):
		return d.FilePath
	case d.Source == kb.SourceVault && vaultRoot != "":
		return filepath.Join(vaultRoot, filepath.FromSlash(d.FilePath))
	}
	return d.FilePath
}

// Removal is a removal waiting for the human's yes: what it would remove
// and the preview to show.
type Removal struct {
	Ref     string
	Doc     kb.DocumentSummary
	Preview string
	// where is what Remove deletes: the note's path, or the source.
	where kb.Filter
}

// PrepareRemove finds the document a removal names and words its preview.
// Nothing is removed; the caller asks the human, then calls Remove.
func (k *KB) PrepareRemove(ctx context.Context, c Caller, ref string) (Removal, error) {
	const op = "remove_document"
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Removal{}, errs.New(errs.Invalid, op, "source is empty")
	}
	f := kb.DocRef(ref).Filter()
	docs, err := k.Store.List(ctx, c.Scope(f), 5)
	if err != nil {
		return Removal{}, err
	}
	if len(docs) == 0 {
		return Removal{}, k.notFound(ctx, c, f, errs.WithHint(errs.New(errs.NotFound, op, "no document %q", ref), "use list_documents to find the exact source"))
	}
	d := docs[0]
	c.saw(d.Visibility)
	title := d.Title
	if title == "" {
		title = d.Key
	}
	src := d.Source
	if src == kb.SourceVault {
		src = "vault note " + d.Key
	}
	where := kb.Filter{Source: ref}
	if f.FilePath != "" {
		where = kb.Filter{FilePath: f.FilePath}
	}
	return Removal{Ref: ref, Doc: d, where: where,
		Preview: fmt.Sprintf("Remove %q from the knowledge base? Type: %s. Source: %s. %d chunks.\n%s",
			title, d.DocType, src, d.Chunks, RemoveLine(LocalPath(k.VaultRoot, d)))}, nil
}

// Remove deletes a prepared removal's entries (the human said yes); files
// on disk are never touched. It returns the chunks removed.
func (k *KB) Remove(ctx context.Context, r Removal) (int, error) {
	if r.Ref == "" {
		return 0, errs.New(errs.Invalid, "remove_document", "nothing was prepared for removal")
	}
	return k.Store.DeleteWhere(ctx, r.where)
}
