package ingest

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// Inbox file states, as the Sync panel and the agent show them.
const (
	InboxIndexed = "indexed" // in the knowledge base with these bytes
	InboxWaiting = "waiting" // new or changed: the next scan reads it
	InboxFailed  = "failed"  // could not be read; not retried until it changes or Retry
)

// InboxFile is one file of the inbox and what became of it.
type InboxFile struct {
	Name  string    `json:"name"` // relative to the inbox folder
	Size  int64     `json:"size"`
	State string    `json:"state"`
	Error string    `json:"error,omitempty"` // why it failed
	At    time.Time `json:"at,omitempty"`    // when it failed
	Title string    `json:"title,omitempty"` // the indexed paper's title
	// Private is set for a file that resolves into a private vault folder
	// (a link) or is the file of a private Zotero item, or a link that
	// resolves nowhere: it is never indexed, and a cloud caller must not
	// learn it exists.
	Private bool `json:"private,omitempty"`
}

// Status lists the inbox's files, failed ones first, each with its state.
// It reads the record of failures and the store; it ingests nothing.
func (in *Inbox) Status(ctx context.Context) ([]InboxFile, error) {
	const op = "ingest.InboxStatus"
	files, err := in.list(op)
	if err != nil {
		return nil, err
	}
	if err := in.loadFailures(); err != nil {
		return nil, err
	}
	out := make([]InboxFile, 0, len(files))
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, errs.Wrap(errs.Cancelled, op, err)
		}
		rel, _ := filepath.Rel(in.Dir, f)
		// Private as the scan judges it: a private vault folder, or the
		// file of a private Zotero item (a store error counts as private).
		private, err := PrivateFile(ctx, in.Store, in.VaultRoot, in.PrivateDirs, f)
		row := InboxFile{Name: filepath.ToSlash(rel), State: InboxWaiting, Private: err != nil || private}
		if _, err := filepath.EvalSymlinks(f); err != nil {
			row.Private = true // a dangling link may name a private file that is gone
		}
		if st, err := os.Stat(f); err == nil {
			row.Size = st.Size()
		}
		hash, err := fsutil.HashFile(f)
		if err != nil {
			out = append(out, row) // unreadable for now: a scan will say more
			continue
		}
		if known, ok := in.failures[f]; ok && known.Hash == hash {
			row.State, row.Error, row.At = InboxFailed, known.Error, known.At
			out = append(out, row)
			continue
		}
		source, err := SourceFor(f)
		if err != nil {
			return nil, err
		}
		stored, err := in.Store.Document(ctx, kb.Filter{Source: source})
		if err != nil {
			return nil, err
		}
		if len(stored) > 0 && stored[0].Meta.ContentHash == hash {
			row.State, row.Title = InboxIndexed, stored[0].Meta.Title
		}
		out = append(out, row)
	}
	order := map[string]int{InboxFailed: 0, InboxWaiting: 1, InboxIndexed: 2}
	sort.SliceStable(out, func(i, j int) bool { return order[out[i].State] < order[out[j].State] })
	return out, nil
}

// Retry reads one inbox file again now, whatever an earlier failure
// recorded: for after the user fixed the cause (installed OCR, replaced a
// damaged download). name is relative to the inbox and must stay inside it.
func (in *Inbox) Retry(ctx context.Context, name string) (string, error) {
	const op = "ingest.InboxRetry"
	path, err := in.contained(name)
	if err != nil {
		return "", err
	}
	if err := in.loadFailures(); err != nil {
		return "", err
	}
	hash, err := fsutil.HashFile(path)
	if err != nil {
		return "", errs.New(errs.NotFound, op, "no file %s in the PDF inbox", name)
	}
	files, err := in.list(op)
	if err != nil {
		return "", err
	}
	defer in.saveFailures(files)
	outcome, needsOCR, err := in.one(ctx, path, hash)
	if err != nil {
		if errs.Is(err, errs.Conversion) {
			in.failures[path] = inboxFailure{Hash: hash, Error: err.Error(), At: time.Now().UTC(), NeedsOCR: needsOCR}
		}
		return "", err
	}
	delete(in.failures, path)
	return outcome, nil
}

// contained resolves an inbox-relative name to a file directly in the inbox
// tree: no absolute paths, no "..", no way out through a link.
func (in *Inbox) contained(name string) (string, error) {
	const op = "ingest.InboxRetry"
	clean := filepath.Clean(filepath.FromSlash(name))
	if name == "" || filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || skipName(filepath.Base(clean)) {
		return "", errs.New(errs.Invalid, op, "%q is not a PDF in the inbox", name)
	}
	root, err := filepath.EvalSymlinks(in.Dir)
	if err != nil {
		return "", errs.New(errs.NotFound, op, "PDF inbox %s does not exist (sync.pdf_watch_dir)", in.Dir)
	}
	path := filepath.Join(in.Dir, clean)
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil || (dir != root && !strings.HasPrefix(dir, root+string(filepath.Separator))) {
		return "", errs.New(errs.NotFound, op, "no file %s in the PDF inbox", name)
	}
	return path, nil
}
