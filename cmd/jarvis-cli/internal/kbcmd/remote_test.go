package kbcmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/digest/digesttest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// paperServers are loopback arXiv (Atom API and PDFs), bioRxiv (details
// API) and Ollama (streamed chat: summaries and figure captions) servers
// speaking their real wire formats.
func paperServers(t *testing.T, cfg *config.Config) (pdfs, captions *atomic.Int32) {
	t.Helper()
	papers := digesttest.NewArxiv(t, "../../../../backend/pdf/testdata/paper.pdf")
	pdfs, captions = &papers.PDFs, &atomic.Int32{}
	arxiv := httptest.NewServer(papers)
	biorxiv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/details/biorxiv/10.1101/2026.01.15.123456/na/json" {
			w.Write([]byte(`{"messages":[{"status":"no posts found"}],"collection":[]}`))
			return
		}
		w.Write([]byte(`{"messages":[{"status":"ok","total":2}],"collection":[
			{"doi":"10.1101/2026.01.15.123456","title":"Cytometry at scale","authors":"Naka, A.; Shababo, B.","date":"2026-01-15","version":"1","category":"bioinformatics","abstract":"Old abstract.","published":"NA"},
			{"doi":"10.1101/2026.01.15.123456","title":"Cytometry at scale","authors":"Naka, A.; Shababo, B.","date":"2026-02-01","version":"2","category":"bioinformatics","abstract":"We gate a million cells per second.","published":"NA"}]}`))
	}))
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reply := "A summary: gating a million cells per second."
		if strings.Contains(string(body), `"images"`) {
			captions.Add(1)
			reply = "A bar chart of accuracy by window size."
		}
		line := func(v any) { b, _ := json.Marshal(v); w.Write(append(b, '\n')) }
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": reply}, "done": false})
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"})
	}))
	for _, s := range []*httptest.Server{arxiv, biorxiv, ollama} {
		t.Cleanup(s.Close)
	}
	cfg.Digest.ArxivURL, cfg.Digest.BiorxivURL = arxiv.URL+"/api/query", biorxiv.URL
	cfg.Chat.Provider, cfg.Chat.OllamaURL = "ollama", ollama.URL
	cfg.RAG.FigureMinPixels = 1000
	return pdfs, captions
}

// `kb add` takes arXiv links and ids (abs or pdf, versioned or not) and
// DOIs by the chat tool's rules: filed under the abs link with no local
// path, a second add asks first, and agreeing re-ingests the paper with
// its full text and figures in place of the old entry.
func TestKBAddArxivAndDOIURLs(t *testing.T) {
	cfg, _ := e2e(t)
	pdfs, captions := paperServers(t, cfg)
	const source = "https://arxiv.org/abs/2611.01234"
	out, err := run(t, cfg, "", "add", "https://arxiv.org/abs/2611.01234v2")
	if err != nil || !strings.Contains(out, "added paper") || !strings.Contains(out, "(summary,") {
		t.Fatalf("add by abs link: %v\n%s", err, out)
	}
	doc := func() []kb.Chunk {
		s, _ := openStore(cfg)
		defer s.Close()
		chunks, err := s.Document(context.Background(), kb.Filter{Source: source})
		if err != nil {
			t.Fatal(err)
		}
		return chunks
	}
	first := doc()
	if len(first) == 0 || first[0].Meta.FilePath != "" || first[0].Meta.Extra["x_year"] != "2026" || first[0].Meta.Title == "" || first[0].Meta.StorageMode != "summary" {
		t.Fatalf("stored: %+v", first)
	}
	// The same paper by its PDF link, its arXiv DOI, or "arXiv:": a
	// duplicate, skipped unless the user says yes.
	for _, arg := range []string{"https://arxiv.org/pdf/2611.01234v1.pdf", "https://doi.org/10.48550/arXiv.2611.01234", "arXiv:2611.01234"} {
		out, err = run(t, cfg, "n\n", "add", arg, "--full-text")
		if err != nil || !strings.Contains(out, "skipped (duplicate)") {
			t.Fatalf("%s: %v\n%s", arg, err, out)
		}
	}
	out, err = run(t, cfg, "y\n", "add", "arXiv:2611.01234", "--full-text", "--figures")
	if err != nil || !strings.Contains(out, "replaced paper") || !strings.Contains(out, "full_text") || strings.Contains(out, " 0 figures") {
		t.Fatalf("re-ingest with full text and figures: %v\n%s", err, out)
	}
	again := doc()
	figs := 0
	for _, c := range again {
		if c.Meta.AnnotationKind == "figure" {
			figs++
		}
		if c.Meta.StorageMode != "full_text" || c.Meta.FilePath != "" {
			t.Fatalf("the old entry was not replaced: %+v", c.Meta)
		}
	}
	if figs == 0 || captions.Load() == 0 || len(again) <= len(first) || pdfs.Load() != 2 {
		t.Fatalf("figures %d, captions %d, chunks %d -> %d, PDFs fetched %d", figs, captions.Load(), len(first), len(again), pdfs.Load())
	}
	// Each caption request is one ledger record naming the paper (local:
	// the demo's model is Ollama).
	book, err := ledger.Open(cfg.LedgerDir(), cfg.Ledger.KeepDays)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := book.List(context.Background(), ledger.Filter{Purpose: ledger.PurposeCaption})
	book.Close()
	if err != nil || len(recs) != int(captions.Load()) {
		t.Fatalf("%d caption records for %d caption requests (%v)", len(recs), captions.Load(), err)
	}
	for _, r := range recs {
		if !r.Local || r.Provider != "ollama" || len(r.Sources) != 1 || r.Sources[0].Key != source || r.Body != "" {
			t.Errorf("caption record: %+v", r)
		}
	}

	// bioRxiv: no PDF for programs, so a summary of the newest abstract.
	out, err = run(t, cfg, "", "add", "https://doi.org/10.1101/2026.01.15.123456")
	if err != nil || !strings.Contains(out, `added paper "Cytometry at scale"`) {
		t.Fatalf("bioRxiv DOI: %v\n%s", err, out)
	}
	if _, err = run(t, cfg, "y\n", "add", "doi:10.1101/2026.01.15.123456", "--full-text"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("bioRxiv full text must be refused: %v", err)
	}
	_, stderr, err := runAll(t, cfg, "", "add", "https://doi.org/10.1038/s41586-020-0000-0")
	if !errs.Is(err, errs.Invalid) || !strings.Contains(stderr, "--doi") {
		t.Fatalf("a DOI from elsewhere: %v\n%s", err, stderr)
	}
	if _, err = run(t, cfg, "", "add", "https://example.com/paper.pdf"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("an address that is neither: %v", err)
	}
}
