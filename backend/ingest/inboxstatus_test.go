package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// The inbox's failures are listed with their reason, a fixed file is read
// again on Retry without waiting for a change of bytes, and Retry never
// reaches outside the inbox.
func TestInboxStatusShowsFailuresAndRetryReadsAgain(t *testing.T) {
	idx := kbIndexer(t, "sparse attention keeps accuracy window size validation sweep transformers token")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	copyFile(t, pdftest.Truncated(t, "../pdf/testdata/paper.pdf", 1000), filepath.Join(dir, "sub", "broken.pdf"))
	copyFile(t, "../pdf/testdata/paper.pdf", filepath.Join(dir, "good.pdf"))
	record := filepath.Join(t.TempDir(), "state", "inbox-failures.json")
	newInbox := func() *Inbox {
		return &Inbox{Dir: dir, Store: idx.Store, Embed: idx.Embed, FailuresFile: record,
			Opts:  Options{ChunkSize: 1024, PDFLimits: pdf.Limits{PageTimeout: 300 * time.Millisecond}},
			Sleep: func(context.Context, time.Duration) error { return nil }}
	}
	ctx := context.Background()
	before, err := newInbox().Status(ctx)
	if err != nil || len(before) != 2 || before[0].State != InboxWaiting || before[1].State != InboxWaiting {
		t.Fatalf("before any scan both wait: %+v %v", before, err)
	}
	if _, err := newInbox().Scan(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := newInbox().Status(ctx)
	if err != nil || len(rows) != 2 {
		t.Fatalf("%+v %v", rows, err)
	}
	if r := rows[0]; r.Name != "sub/broken.pdf" || r.State != InboxFailed || r.Error == "" || r.At.IsZero() {
		t.Fatalf("the failed file comes first, with its reason: %+v", r)
	}
	if r := rows[1]; r.Name != "good.pdf" || r.State != InboxIndexed || r.Title == "" || r.Size == 0 {
		t.Fatalf("the indexed file: %+v", r)
	}

	// Retrying the unchanged damaged file fails again, with the reason.
	if _, err := newInbox().Retry(ctx, "sub/broken.pdf"); !errs.Is(err, errs.Conversion) {
		t.Fatalf("retrying a still-damaged file: %v", err)
	}
	// The user replaces it with a good copy: Retry reads it now, not at the
	// next scheduled scan.
	copyFile(t, "../pdf/testdata/annotated.pdf", filepath.Join(dir, "sub", "broken.pdf"))
	outcome, err := newInbox().Retry(ctx, "sub/broken.pdf")
	if err != nil || outcome != "added" {
		t.Fatalf("retry after the fix: %q %v", outcome, err)
	}
	rows, _ = newInbox().Status(ctx)
	for _, r := range rows {
		if r.State != InboxIndexed {
			t.Fatalf("after the retry every file is indexed: %+v", rows)
		}
	}

	outside := filepath.Join(t.TempDir(), "outside.pdf")
	copyFile(t, "../pdf/testdata/paper.pdf", outside)
	os.Symlink(filepath.Dir(outside), filepath.Join(dir, "link"))
	for _, bad := range []string{"", "../outside.pdf", outside, "notes.txt", ".hidden.pdf"} {
		if _, err := newInbox().Retry(ctx, bad); !errs.Is(err, errs.Invalid) {
			t.Errorf("Retry(%q): %v", bad, err)
		}
	}
	if _, err := newInbox().Retry(ctx, "link/outside.pdf"); !errs.Is(err, errs.NotFound) {
		t.Errorf("a folder link out of the inbox: %v", err)
	}
	if _, err := newInbox().Retry(ctx, "missing.pdf"); !errs.Is(err, errs.NotFound) {
		t.Errorf("a missing file: %v", err)
	}
}

// A link in the inbox to the file of a private Zotero item is listed as
// private (a cloud caller never learns its name), is refused once and then
// not counted as a new failure on every scan, and is read as soon as it is
// private no more.
func TestInboxPrivateZoteroFileIsPrivateAndNotRefusedEveryScan(t *testing.T) {
	idx := kbIndexer(t, "sparse attention keeps accuracy window size validation sweep transformers token")
	ctx := context.Background()
	target := filepath.Join(t.TempDir(), "grant-review.pdf")
	copyFile(t, "../pdf/testdata/paper.pdf", target)
	private := kb.Chunk{Content: "x", EmbedText: "x", Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Private, Source: "zotero://select/library/items/PRIV2345", FilePath: target}}
	if err := idx.Store.Ingest(ctx, idx.Embed, []kb.Chunk{private}, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(target, filepath.Join(dir, "secret-grant-review.pdf")); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(t.TempDir(), "state", "inbox-failures.json")
	newInbox := func() *Inbox {
		return &Inbox{Dir: dir, Store: idx.Store, Embed: idx.Embed, FailuresFile: record, Opts: Options{ChunkSize: 1024},
			Sleep: func(context.Context, time.Duration) error { return nil }}
	}
	rows, err := newInbox().Status(ctx)
	if err != nil || len(rows) != 1 || !rows[0].Private {
		t.Fatalf("the private item's file must be listed as private: %+v %v", rows, err)
	}
	first, err := newInbox().Scan(ctx)
	if first.Failed != 1 {
		t.Fatalf("the first scan refuses it: %+v %v", first, err)
	}
	again, err := newInbox().Scan(ctx)
	if err != nil || again.Failed != 0 || again.Skipped != 1 || again.Added != 0 {
		t.Fatalf("a second scan must not refuse it again: %+v %v", again, err)
	}
	// The item leaves its private collection: the next scan reads the file.
	if _, err := idx.Store.DeleteWhere(ctx, kb.Filter{Source: private.Meta.Source}); err != nil {
		t.Fatal(err)
	}
	after, err := newInbox().Scan(ctx)
	if err != nil || after.Added != 1 {
		t.Fatalf("once public it is read: %+v %v", after, err)
	}
}
