package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInboxScan(t *testing.T) {
	idx := kbIndexer(t, "sparse attention keeps accuracy window size validation sweep transformers token")
	dir := t.TempDir()
	copyFile(t, "../pdf/testdata/paper.pdf", filepath.Join(dir, "paper.pdf"))
	for _, skip := range []string{".hidden.pdf", "~$paper.pdf", "paper.pdf.icloud", "notes.txt"} {
		copyFile(t, "../pdf/testdata/paper.pdf", filepath.Join(dir, skip))
	}
	os.Mkdir(filepath.Join(dir, ".trash"), 0o755)
	copyFile(t, "../pdf/testdata/paper.pdf", filepath.Join(dir, ".trash", "old.pdf"))
	os.WriteFile(filepath.Join(dir, "broken.pdf"), []byte("%PDF-1.4 not really"), 0o644)
	growing := filepath.Join(dir, "growing.pdf")
	os.WriteFile(growing, []byte("%PDF-1.4"), 0o644)

	model := &fakeModel{completeReply: `{"title":"T","authors":"A"}`}
	in := &Inbox{Dir: dir, Store: idx.Store, Embed: idx.Embed, Opts: Options{ChunkSize: 1024, Model: model},
		Sleep: func(context.Context, time.Duration) error {
			// Another program is still writing this one.
			f, _ := os.OpenFile(growing, os.O_APPEND|os.O_WRONLY, 0)
			f.Write([]byte(" more"))
			f.Close()
			return nil
		}}
	ctx := context.Background()
	res, err := in.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Waiting != 1 || res.Failed != 1 || res.Unchanged != 0 {
		t.Fatalf("first scan: %s %v", res, res.Errors)
	}
	calls := model.completes
	docs, _ := idx.Store.List(ctx, kb.Filter{}, 10)
	if len(docs) != 1 || docs[0].DocType != kb.DocPaper || docs[0].Visibility != kb.Public {
		t.Fatalf("store: %+v", docs)
	}

	// Unchanged bytes: nothing re-read, no model call.
	res, _ = in.Scan(ctx)
	if res.Unchanged != 1 || res.Added != 0 || model.completes != calls {
		t.Fatalf("second scan: %s, model calls %d -> %d", res, calls, model.completes)
	}
	// New bytes (annotations saved into the file) replace the entry.
	copyFile(t, "../pdf/testdata/annotated.pdf", filepath.Join(dir, "paper.pdf"))
	res, _ = in.Scan(ctx)
	if res.Replaced != 1 {
		t.Fatalf("changed file: %s", res)
	}
	chunks, _ := idx.Store.Document(ctx, kb.Filter{DocTypes: []string{kb.DocPaper}})
	if len(chunks) == 0 || chunks[0].Meta.AnnotationKind != "highlight" {
		t.Fatalf("replacement lacks the new annotations: %+v", chunks)
	}
	// Removing the file keeps its entry.
	os.Remove(filepath.Join(dir, "paper.pdf"))
	in.Scan(ctx)
	if docs, _ := idx.Store.List(ctx, kb.Filter{}, 10); len(docs) != 1 {
		t.Fatalf("entry removed with the file: %+v", docs)
	}
	// A missing inbox is an error and is not created.
	gone := filepath.Join(dir, "nope")
	if _, err := (&Inbox{Dir: gone, Store: idx.Store, Embed: idx.Embed}).Scan(ctx); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing dir: %v", err)
	}
	if _, err := os.Stat(gone); err == nil {
		t.Fatal("the inbox was created")
	}
}

// Bad files — hostile, damaged — are counted, logged and remembered; the
// scan reads every good file after them, and a later scan does not read an
// unchanged bad file again (a new copy is read).
func TestInboxMovesOnAndRemembersBadFiles(t *testing.T) {
	idx := kbIndexer(t, "sparse attention keeps accuracy window size validation sweep transformers token")
	dir := t.TempDir()
	bad := map[string]string{
		"a-pages.pdf":     pdftest.PageCountBomb(t),
		"b-endless.pdf":   pdftest.FormBomb(t, 12),
		"c-truncated.pdf": pdftest.Truncated(t, "../pdf/testdata/paper.pdf", 1000),
	}
	for name, src := range bad {
		copyFile(t, src, filepath.Join(dir, name))
	}
	copyFile(t, "../pdf/testdata/paper.pdf", filepath.Join(dir, "d-paper.pdf"))
	var logged []string
	record := filepath.Join(t.TempDir(), "state", "inbox-failures.json")
	newInbox := func() *Inbox {
		return &Inbox{Dir: dir, Store: idx.Store, Embed: idx.Embed, FailuresFile: record,
			Opts:  Options{ChunkSize: 1024, PDFLimits: pdf.Limits{PageTimeout: 300 * time.Millisecond}},
			Sleep: func(context.Context, time.Duration) error { return nil },
			Log:   func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}
	}
	ctx := context.Background()
	res, err := newInbox().Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Failed != 3 || len(res.Errors) != 3 {
		t.Fatalf("first scan: %s %q", res, res.Errors)
	}
	for name := range bad {
		if !slices.ContainsFunc(res.Errors, func(e string) bool { return strings.HasPrefix(e, name+": pdf.") }) {
			t.Errorf("%s missing from the errors: %q", name, res.Errors)
		}
		if !slices.ContainsFunc(logged, func(l string) bool { return strings.Contains(l, name) && strings.Contains(l, "failed") }) {
			t.Errorf("%s not logged: %q", name, logged)
		}
	}
	if st, err := os.Stat(record); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("failure record: %v", err)
	}

	// A new Inbox value (the next scheduled scan) leaves them unread.
	res, err = newInbox().Scan(ctx)
	if err != nil || res.Skipped != 3 || res.Failed != 0 || res.Unchanged != 1 || len(res.Known) != 3 {
		t.Fatalf("second scan: %s %q %v", res, res.Known, err)
	}
	if !strings.Contains(res.String(), "3 skipped (failed before, unchanged)") {
		t.Fatalf("summary: %s", res)
	}

	// A fixed copy is read; a removed file is forgotten.
	copyFile(t, "../pdf/testdata/annotated.pdf", filepath.Join(dir, "c-truncated.pdf"))
	os.Remove(filepath.Join(dir, "a-pages.pdf"))
	res, err = newInbox().Scan(ctx)
	if err != nil || res.Added != 1 || res.Skipped != 1 || res.Failed != 0 {
		t.Fatalf("third scan: %s %v", res, err)
	}
	var left map[string]any
	b, _ := os.ReadFile(record)
	if err := json.Unmarshal(b, &left); err != nil || len(left) != 1 {
		t.Fatalf("record after fixes: %s", b)
	}
}
