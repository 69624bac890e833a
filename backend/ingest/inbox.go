package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// Inbox ingests the PDFs dropped into a watch folder. It is an inbox, not a
// mirror: removing a file never removes its entry.
type Inbox struct {
	Dir   string
	Store *kb.Store
	Embed kb.Embedder
	Opts  Options
	// Settle is how long a file's size and mtime must hold still before it
	// is read; a file still being written is left for the next scan.
	Settle time.Duration
	Sleep  func(context.Context, time.Duration) error // nil: time-based sleep
	Log    func(format string, args ...any)
	// FailuresFile remembers the files that could not be read (damaged,
	// hostile, text-less) with their content hash, so an unchanged bad file
	// is reported as such instead of being read again on every scan; a new
	// copy is read again. Empty: remembered by this Inbox value only.
	FailuresFile string
	failures     map[string]inboxFailure
	// VaultRoot and PrivateDirs let the inbox refuse a file that resolves
	// into a private vault folder (a link dropped into the inbox): inbox
	// papers are public.
	VaultRoot   string
	PrivateDirs []string
}

// InboxFor is the inbox the configuration describes, over store, with its
// record of failed files in the state folder: the tray's scans, the
// window's Retry and the agent's listing all read the same record.
func InboxFor(cfg *config.Config, store *kb.Store, embed kb.Embedder, opts Options) *Inbox {
	return &Inbox{Dir: cfg.Sync.PDFWatchDir, Store: store, Embed: embed, Opts: opts,
		VaultRoot: cfg.Vault.Path, PrivateDirs: cfg.Vault.PrivateDirs,
		FailuresFile: filepath.Join(cfg.StateDir(), "inbox-failures.json")}
}

// inboxFailure is a file the inbox could not read, as it was then.
type inboxFailure struct {
	Hash  string    `json:"hash"`
	Error string    `json:"error"`
	At    time.Time `json:"at"`
	// NeedsOCR: the file failed only because OCR was missing, so it is read
	// again as soon as Tesseract is there.
	NeedsOCR bool `json:"needs_ocr,omitempty"`
	// Private: it was refused as a private file (a private vault folder,
	// a private Zotero item's file). That is checked again on each scan,
	// without counting it as a new failure, and the file is read once it
	// is private no more.
	Private bool `json:"private,omitempty"`
}

// InboxResult counts one scan. Errors are this scan's failures; Known are
// files that failed before and have not changed since, left unread.
type InboxResult struct {
	Added, Replaced, Unchanged, Waiting, Failed, Skipped int
	Errors, Known                                        []string
}

func (r InboxResult) String() string {
	return fmt.Sprintf("%d added, %d replaced, %d unchanged, %d still being written, %d failed, %d skipped (failed before, unchanged)",
		r.Added, r.Replaced, r.Unchanged, r.Waiting, r.Failed, r.Skipped)
}

// skipName reports files that are not finished papers: hidden files, Office
// lock files and iCloud placeholders.
func skipName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "~$") || strings.HasSuffix(name, ".icloud") ||
		!strings.EqualFold(filepath.Ext(name), ".pdf")
}

// Scan lists the inbox and ingests new and changed PDFs, one at a time, each
// in its own commit. A bad file is counted, logged and remembered, and the
// scan goes on to the next; PDF reading is bounded (pdf.Limits), so no
// file can stall it. A missing inbox is an error: creating it would hide a
// typo.
func (in *Inbox) Scan(ctx context.Context) (InboxResult, error) {
	const op = "ingest.Inbox"
	var res InboxResult
	files, err := in.list(op)
	if err != nil {
		return res, err
	}
	if len(files) == 0 {
		return res, nil
	}
	if err := in.loadFailures(); err != nil {
		in.logf("inbox: %v", err)
	}
	defer in.saveFailures(files)
	// One settle wait for the whole batch: stat, wait, stat again.
	before := map[string]os.FileInfo{}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			before[f] = fi
		}
	}
	if err := in.sleep(ctx, in.Settle); err != nil {
		return res, errs.Wrap(errs.Cancelled, op, err)
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return res, errs.Wrap(errs.Cancelled, op, err)
		}
		fi, err := os.Stat(f)
		b, ok := before[f]
		if err != nil || !ok || fi.Size() != b.Size() || !fi.ModTime().Equal(b.ModTime()) || fi.Size() == 0 {
			res.Waiting++
			continue
		}
		hash, err := fsutil.HashFile(f)
		if err != nil {
			res.Waiting++ // gone or unreadable since the listing
			continue
		}
		if known, ok := in.failures[f]; ok && known.Hash == hash && !(known.NeedsOCR && in.Opts.OCR != nil) && in.stillPrivate(ctx, f, known) {
			res.Skipped++
			res.Known = append(res.Known, fmt.Sprintf("%s: %s", filepath.Base(f), known.Error))
			continue
		}
		outcome, needsOCR, err := in.one(ctx, f, hash)
		if err != nil {
			if errs.Is(err, errs.Cancelled) {
				return res, err
			}
			res.Failed++
			res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", filepath.Base(f), err))
			in.logf("inbox: %s failed: %v", f, err)
			// Only the file's own fault is remembered; a busy store or a
			// model outage is worth another try.
			if errs.Is(err, errs.Conversion) || errs.Is(err, errs.Privacy) {
				in.failures[f] = inboxFailure{Hash: hash, Error: err.Error(), At: time.Now().UTC(), NeedsOCR: needsOCR, Private: errs.Is(err, errs.Privacy)}
			}
			continue
		}
		delete(in.failures, f)
		switch outcome {
		case "added":
			res.Added++
		case "replaced":
			res.Replaced++
		default:
			res.Unchanged++
		}
	}
	return res, nil
}

// list returns the inbox's candidate files, sorted. A missing inbox is an
// error: creating it would hide a typo.
func (in *Inbox) list(op string) ([]string, error) {
	st, err := os.Stat(in.Dir)
	if err != nil || !st.IsDir() {
		return nil, errs.New(errs.NotFound, op, "PDF inbox %s does not exist (sync.pdf_watch_dir)", in.Dir)
	}
	var files []string
	err = filepath.WalkDir(in.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != in.Dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !skipName(d.Name()) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	sort.Strings(files)
	return files, nil
}

// stillPrivate reports whether a remembered failure still holds as far as
// privacy goes: always for a file's own fault, and for a private file
// while it is private (an error reading the store counts as private).
func (in *Inbox) stillPrivate(ctx context.Context, path string, known inboxFailure) bool {
	if !known.Private {
		return true
	}
	private, err := PrivateFile(ctx, in.Store, in.VaultRoot, in.PrivateDirs, path)
	return err != nil || private
}

// one ingests a file unless the stored entry has the same bytes.
// one reads one inbox file; needsOCR reports a failure that OCR would cure.
func (in *Inbox) one(ctx context.Context, path, hash string) (outcome string, needsOCR bool, err error) {
	private, err := PrivateFile(ctx, in.Store, in.VaultRoot, in.PrivateDirs, path)
	if err != nil {
		return "", false, err
	}
	if private {
		return "", false, errs.New(errs.Privacy, "ingest.Inbox", "%s resolves into a private vault folder or is the file of a private Zotero item; inbox papers are public, so it is not indexed", filepath.Base(path))
	}
	source, err := SourceFor(path)
	if err != nil {
		return "", false, err
	}
	stored, err := in.Store.Document(ctx, kb.Filter{Source: source})
	if err != nil {
		return "", false, err
	}
	// Unchanged is left alone (zero LLM calls, zero embedding), unless
	// pages were left unread for want of OCR and OCR is here now.
	if len(stored) > 0 && stored[0].Meta.ContentHash == hash && !(stored[0].Meta.Extra[UnreadField] != "" && in.Opts.OCR != nil) {
		return "unchanged", false, nil
	}
	res, err := BuildPaper(ctx, Paper{Path: path, Source: source, Mode: FullText}, in.Opts)
	if err != nil {
		return "", res.NeedsOCR, err
	}
	if err := in.Store.Ingest(ctx, in.Embed, res.Chunks, &kb.Filter{Source: source}); err != nil {
		return "", false, err
	}
	in.logf("inbox: indexed %q by %q (doi %q) from %s: %d chunks", res.Title, res.Authors, res.DOI, filepath.Base(path), len(res.Chunks))
	if len(stored) > 0 {
		return "replaced", false, nil
	}
	return "added", false, nil
}

func (in *Inbox) sleep(ctx context.Context, d time.Duration) error {
	if in.Sleep != nil {
		return in.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (in *Inbox) logf(format string, args ...any) {
	if in.Log != nil {
		in.Log(format, args...)
	}
}

func (in *Inbox) loadFailures() error {
	if in.failures == nil {
		in.failures = map[string]inboxFailure{}
	}
	if in.FailuresFile == "" {
		return nil
	}
	if _, err := fsutil.ReadJSON(in.FailuresFile, &in.failures); err != nil {
		in.failures = map[string]inboxFailure{}
		return errs.Wrapf(errs.Internal, "ingest.Inbox", err, "cannot read the record of failed files %s (starting afresh)", in.FailuresFile)
	}
	return nil
}

// saveFailures forgets files no longer in the inbox and writes the record.
func (in *Inbox) saveFailures(present []string) {
	for f := range in.failures {
		if !slices.Contains(present, f) {
			delete(in.failures, f)
		}
	}
	if in.FailuresFile == "" {
		return
	}
	data, err := json.MarshalIndent(in.failures, "", "  ")
	if old, _ := os.ReadFile(in.FailuresFile); err == nil && bytes.Equal(old, data) {
		return
	}
	if err == nil {
		err = fsutil.EnsurePrivateDir(filepath.Dir(in.FailuresFile))
	}
	if err == nil {
		err = fsutil.WriteFileAtomic(in.FailuresFile, data, 0o600)
	}
	if err != nil {
		in.logf("inbox: cannot record failed files in %s: %v", in.FailuresFile, err)
	}
}
