package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
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
