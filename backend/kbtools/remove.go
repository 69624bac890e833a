package kbtools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/logs"
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
	Doc     kb.DocumentSummary   // the document (the first, for a filter)
	Docs    []kb.DocumentSummary // every document a filter removal takes
	Preview string
	// where is what Remove deletes: the note's path, or the source.
	where kb.Filter
}

// PrepareRemove finds the document a removal names (in Lookup's order) and
// words its preview. Nothing is removed; the caller asks the human, then
// calls Remove.
func (k *KB) PrepareRemove(ctx context.Context, c Caller, ref string) (Removal, error) {
	const op = "remove_document"
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Removal{}, errs.New(errs.Invalid, op, "source is empty")
	}
	d, err := k.Find(ctx, c, op, ref)
	if err != nil {
		return Removal{}, err
	}
	title := d.Title
	if title == "" {
		title = d.Key
	}
	src := d.Source
	if src == kb.SourceVault {
		src = "vault note " + d.Key
	}
	// What goes is what the preview counted: the listing groups a document
	// by its file when it has one, else by its source.
	where := kb.Filter{Source: d.Source}
	if d.FilePath != "" {
		where = kb.Filter{FilePath: d.FilePath}
	}
	return Removal{Ref: ref, Doc: d, where: c.Scope(where),
		Preview: fmt.Sprintf("Remove %q from the knowledge base? Type: %s. Source: %s. %d chunks.\n%s",
			title, d.DocType, src, d.Chunks, RemoveLine(LocalPath(k.VaultRoot, d)))}, nil
}

// MaxRemovedAtOnce caps the documents one filter removal may take: more
// than this is likelier a filter typed too broadly than a wish.
const MaxRemovedAtOnce = 50

// PrepareRemoveWhere lists every document inside a filter (at most
// MaxRemovedAtOnce) and words the preview for removing them all; as with
// PrepareRemove, nothing is removed until Remove.
func (k *KB) PrepareRemoveWhere(ctx context.Context, c Caller, f kb.Filter, what string) (Removal, error) {
	const op = "kb remove"
	docs, err := k.Store.List(ctx, c.Scope(f), MaxRemovedAtOnce+1)
	if err != nil {
		return Removal{}, err
	}
	switch {
	case len(docs) == 0:
		return Removal{}, errs.New(errs.NotFound, op, "nothing matches %s", what)
	case len(docs) > MaxRemovedAtOnce:
		return Removal{}, errs.WithHint(errs.New(errs.Invalid, op, "more than %d documents match %s", MaxRemovedAtOnce, what),
			"narrow it to one source or file path")
	}
	var b strings.Builder
	for _, d := range docs {
		c.saw(d.Visibility)
		fmt.Fprintf(&b, "%s\n  %s\n", d.String(), RemoveLine(LocalPath(k.VaultRoot, d)))
	}
	return Removal{Ref: what, Doc: docs[0], Docs: docs, where: c.Scope(f), Preview: b.String()}, nil
}

// Remove deletes a prepared removal's entries (the human said yes); files
// on disk are never touched. It returns the chunks removed.
func (k *KB) Remove(ctx context.Context, r Removal) (int, error) {
	if r.Ref == "" {
		return 0, errs.New(errs.Invalid, "remove_document", "nothing was prepared for removal")
	}
	if len(r.Docs) > 0 {
		// A filter removal takes what the human saw: if a sync changed
		// what the filter matches since, nothing goes.
		now, err := k.Store.List(ctx, r.where, MaxRemovedAtOnce+1)
		if err != nil {
			return 0, err
		}
		if !sameDocs(now, r.Docs) {
			return 0, errs.WithHint(errs.New(errs.Conflict, "kb remove", "what %s matches changed since the preview; nothing was removed", r.Ref), "run the removal again to see the new list")
		}
	}
	n, err := k.Store.DeleteWhere(ctx, r.where)
	if err != nil || k.ImagesDir == "" {
		return n, err
	}
	// The viewer's PNG copy of a removed WebP image is Jarvis's own file:
	// it goes with the last document showing it. The rows are gone either
	// way; a copy left behind is only disk space the daily prune reclaims.
	paths := []string{r.Doc.FilePath}
	for _, d := range r.Docs {
		paths = append(paths, d.FilePath)
	}
	if _, ferr := ingest.ForgetImageCopies(ctx, k.Store, k.ImagesDir, paths...); ferr != nil {
		logs.L().Warn("image copies of removed documents were not deleted", "err", ferr)
	}
	return n, nil
}

// sameDocs says two listings name the same documents with the same chunk
// counts, in any order.
func sameDocs(a, b []kb.DocumentSummary) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, d := range a {
		seen[d.Key] = d.Chunks
	}
	for _, d := range b {
		if n, ok := seen[d.Key]; !ok || n != d.Chunks {
			return false
		}
	}
	return true
}

// VaultPath is the vault-relative path of a removal's note ("" when the
// document is not a vault note): what vault.exclude would list to keep the
// next sync from indexing it again.
func (r Removal) VaultPath() string {
	if r.Doc.Source == kb.SourceVault && r.Doc.FilePath != "" && !filepath.IsAbs(r.Doc.FilePath) {
		return filepath.ToSlash(r.Doc.FilePath)
	}
	return ""
}

// Pending holds removals shown to a human who answers later (the window's
// second click), each under a single-use token.
type Pending struct {
	mu sync.Mutex
	m  map[string]Removal
}

// Hold keeps r and returns its token.
func (p *Pending) Hold(r Removal) (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", errs.Wrap(errs.Internal, "kbtools.Pending", err)
	}
	token := hex.EncodeToString(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]Removal{}
	}
	p.m[token] = r
	return token, nil
}

// Take returns the removal held under token, once.
func (p *Pending) Take(token string) (Removal, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.m[token]
	delete(p.m, token)
	if !ok {
		return Removal{}, errs.New(errs.NotFound, "kbtools.Pending", "this removal was already done or cancelled")
	}
	return r, nil
}
