package engine_test

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// scanEngine opens an engine as the window and `kb add` do, over a vault
// of one indexed note (keyword search only: no models installed).
func scanEngine(t *testing.T) *engine.Engine {
	t.Helper()
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	note := filepath.Join(cfg.Vault.Path, "garden", "roses.md")
	os.MkdirAll(filepath.Dir(note), 0o755)
	if err := os.WriteFile(note, []byte("# Roses\n\nPrune roses in late winter before new growth.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if res, err := e.Refresher().Refresh(context.Background()); err != nil || res.Added != 1 {
		t.Fatalf("vault: %+v %v", res, err)
	}
	return e
}

// smallScan is a scan of n small blank pages (2×2 inches: cheap to
// render, the fake engine says what is on them).
func smallScan(t *testing.T, n int) string {
	t.Helper()
	var pages []pdftest.ScanPage
	for range n {
		img := image.NewGray(image.Rect(0, 0, 60, 60))
		for i := range img.Pix {
			img.Pix[i] = 0xff
		}
		pages = append(pages, pdftest.ScanPage{Image: img, Width: 144, Height: 144})
	}
	return pdftest.Scan(t, pages...)
}

// waitStarted waits for n page recognitions to start.
func waitStarted(t *testing.T, started <-chan struct{}, n int) {
	t.Helper()
	for i := range n {
		select {
		case <-started:
		case <-time.After(60 * time.Second):
			t.Fatalf("only %d of %d recognitions started", i, n)
		}
	}
}

// searchesAndWritesWork checks that, while a scan is being recognised,
// the indexed note is found by keyword (through the engine's searcher and
// the store) and the store takes writes: a note added through the same
// engine, and a commit from a second connection as another Jarvis
// process makes it.
func searchesAndWritesWork(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	searched := make(chan error, 1)
	go func() {
		res, err := e.Searcher.Search(ctx, "prune roses", 5, kb.Filter{})
		if err == nil && (len(res.Hits) == 0 || res.Hits[0].Chunk.Meta.FilePath != "garden/roses.md") {
			err = fmt.Errorf("search: %+v", res.Hits)
		}
		if err == nil {
			var hits []kb.Hit
			if hits, err = e.Store.BM25(ctx, "late winter", kb.Filter{}, 5); err == nil && len(hits) == 0 {
				err = fmt.Errorf("BM25: no hits")
			}
		}
		searched <- err
	}()
	select {
	case err := <-searched:
		if err != nil {
			t.Fatalf("keyword search during OCR: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a keyword search waited on the scan's recognition")
	}
	wrote := make(chan error, 2)
	go func() {
		note := filepath.Join(t.TempDir(), "tulips.md")
		if err := os.WriteFile(note, []byte("# Tulips\n\nPlant tulips in autumn, pointed end up.\n"), 0o600); err != nil {
			wrote <- err
			return
		}
		_, err := e.Adder(nil).Add(ctx, ingest.AddRequest{Path: note})
		wrote <- err
	}()
	go func() {
		other, err := kb.Open(e.Cfg.RAG.Dir)
		if err != nil {
			wrote <- err
			return
		}
		defer other.Close()
		wrote <- other.Commit([]kb.Chunk{{Content: "Daffodils flower in early spring.", EmbedText: "Daffodils flower in early spring.",
			Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: "local:daffodils", FilePath: "daffodils.md"}}}, "")
	}()
	for range 2 {
		select {
		case err := <-wrote:
			if err != nil {
				t.Fatalf("a write during OCR failed: %v", err)
			}
		case <-time.After(20 * time.Second): // well under the store's 30 s write wait
			t.Fatal("a write waited on the scan's recognition: the store is locked")
		}
	}
	for _, q := range []string{"tulips autumn", "daffodils spring"} {
		if hits, err := e.Store.BM25(ctx, q, kb.Filter{}, 5); err != nil || len(hits) == 0 {
			t.Fatalf("%q written during OCR is not found: %+v %v", q, hits, err)
		}
	}
}

type addOutcome struct {
	res ingest.AddResult
	err error
}

// A 200-page scan being recognised (its first page held by the engine
// until the test lets it go) blocks neither keyword searches of what is
// indexed nor writes to the store; once released, every page is read and
// the scan's words are found, marked as recognised.
func TestALongScanDoesNotBlockSearches(t *testing.T) {
	const pages = 200
	e := scanEngine(t)
	fake := ocrtest.NewFake(t, `while [ ! -e "$FAKE_DIR/release" ]; do sleep 0.05; done`+"\n"+ocrtest.Answer("microfiche", "ledger"))
	scan := smallScan(t, pages)
	adder := e.Adder(nil) // the fake is first on PATH: found as the configured OCR
	if adder.Opts.OCR == nil {
		t.Fatalf("no OCR engine: %v", adder.Opts.NoOCR)
	}
	var recognised atomic.Int32
	adder.Opts.Progress = func(p pdf.Progress) {
		if p.OCR {
			recognised.Add(1)
		}
	}
	done := make(chan addOutcome, 1)
	go func() {
		res, err := adder.Add(context.Background(), ingest.AddRequest{Path: scan, Paper: ingest.Paper{Mode: ingest.FullText, Title: "Archive ledger"}})
		done <- addOutcome{res, err}
	}()
	waitStarted(t, fake.Started, 1)

	searchesAndWritesWork(t, e)
	select {
	case o := <-done:
		t.Fatalf("the scan finished before it was released: %+v %v", o.res, o.err)
	default:
	}
	if hits, _ := e.Store.BM25(context.Background(), "microfiche ledger", kb.Filter{}, 5); len(hits) != 0 {
		t.Fatalf("the scan's words are stored before it was read: %+v", hits)
	}

	if err := os.WriteFile(filepath.Join(fake.Dir(), "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var o addOutcome
	select {
	case o = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the released scan did not finish")
	}
	if o.err != nil || o.res.Chunks == 0 || !strings.Contains(o.res.Message, "200 scanned page(s) read by OCR") {
		t.Fatalf("add: %+v %v", o.res, o.err)
	}
	if fake.Runs() != pages || recognised.Load() != pages {
		t.Fatalf("%d recognitions, %d pages reported recognised; want %d", fake.Runs(), recognised.Load(), pages)
	}
	hits, err := e.Store.BM25(context.Background(), "microfiche ledger", kb.Filter{}, 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("the scan's words are not found: %+v %v", hits, err)
	}
	for _, h := range hits {
		if h.Chunk.Meta.Title != "Archive ledger" || h.Chunk.Meta.Extra[kb.OCRField] == "" {
			t.Fatalf("hit %+v", h.Chunk.Meta)
		}
	}
	// The note indexed before the scan is still found first for its words.
	if res, err := e.Searcher.Search(context.Background(), "prune roses", 5, kb.Filter{}); err != nil || len(res.Hits) == 0 || res.Hits[0].Chunk.Meta.FilePath != "garden/roses.md" {
		t.Fatalf("after the scan: %+v %v", res.Hits, err)
	}
}

// Cancelling a scan in the middle (two pages read, the third held) stops
// it with a cancellation and leaves nothing of it stored: not the pages
// already read either. Searches and writes went on meanwhile.
func TestACancelledScanLeavesNothingHalfStored(t *testing.T) {
	e := scanEngine(t)
	fake := ocrtest.NewFake(t, `if [ "$(grep -c run "$FAKE_DIR/runs")" -ge 3 ]; then `+ocrtest.Stall+"; fi\n"+ocrtest.Answer("microfiche", "ledger"))
	scan := smallScan(t, 20)
	ctx := context.Background()
	before, err := e.Store.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	adder := e.Adder(nil)
	if adder.Opts.OCR == nil {
		t.Fatalf("no OCR engine: %v", adder.Opts.NoOCR)
	}
	addCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan addOutcome, 1)
	go func() {
		res, err := adder.Add(addCtx, ingest.AddRequest{Path: scan, Paper: ingest.Paper{Mode: ingest.FullText, Title: "Archive ledger"}})
		done <- addOutcome{res, err}
	}()
	waitStarted(t, fake.Started, 3)
	searchesAndWritesWork(t, e) // two notes written here
	cancel()
	var o addOutcome
	select {
	case o = <-done:
	case <-time.After(30 * time.Second): // the page's own limit is 60 s
		t.Fatal("the cancelled scan did not stop")
	}
	if !errs.Is(o.err, errs.Cancelled) {
		t.Fatalf("a cancelled scan: %+v, err %v (want cancelled)", o.res, o.err)
	}
	if fake.Runs() != 3 {
		t.Fatalf("%d recognitions after the cancel at the third page", fake.Runs())
	}
	after, err := e.Store.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Chunks != before.Chunks+2 {
		t.Fatalf("%d chunks before, %d after (want only the two notes written meanwhile)", before.Chunks, after.Chunks)
	}
	if hits, _ := e.Store.BM25(ctx, "microfiche ledger", kb.Filter{}, 5); len(hits) != 0 {
		t.Fatalf("the cancelled scan left chunks: %+v", hits)
	}
	if docs, err := e.Store.List(ctx, kb.Filter{DocTypes: []string{kb.DocPaper}}, 10); err != nil || len(docs) != 0 {
		t.Fatalf("the cancelled scan left a document: %+v %v", docs, err)
	}
}
