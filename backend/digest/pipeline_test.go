package digest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

type fakeIndexer struct {
	digests   []string
	fullText  []string
	summaries []string
	known     map[string]bool
	stale     map[string]bool // stored at an older version
}

func (f *fakeIndexer) IndexDigest(_ context.Context, path, title, md string) error {
	f.digests = append(f.digests, title)
	return nil
}
func (f *fakeIndexer) Stored(_ context.Context, p Paper) (Presence, error) {
	switch {
	case f.known[p.Title]:
		return Current, nil
	case f.stale[p.Title]:
		return Stale, nil
	}
	return Absent, nil
}
func (f *fakeIndexer) IndexFullText(_ context.Context, s Scored, pdf string) error {
	if _, err := os.Stat(pdf); err != nil {
		return err
	}
	f.fullText = append(f.fullText, s.Paper.Title)
	return nil
}
func (f *fakeIndexer) IndexSummaries(_ context.Context, es []Scored) error {
	for _, e := range es {
		f.summaries = append(f.summaries, e.Paper.Title)
	}
	return nil
}

func TestPipelineEndToEndAgainstFakeServers(t *testing.T) {
	arx, _ := arxivServer(t, fixture(t, "arxiv_page.xml"))
	bio, _ := biorxivServer(t, fixture(t, "biorxiv_page.json"))
	s := &noSleep{}
	// Scores: arXiv 2611.01234 -> 9 (full text), arXiv 2611.05678 -> 8 (summary),
	// bioRxiv cytometry -> 9 (no PDF: summary fallback), protein LM -> 5 (digest only).
	llm := &scriptedLLM{replies: []string{`[{"id":0,"score":9,"summary":"s","reason":"r","track":"m"},{"id":1,"score":8},{"id":2,"score":9},{"id":3,"score":5}]`}}
	out := t.TempDir()
	idx := &fakeIndexer{known: map[string]bool{}}
	p := &Pipeline{
		Cfg: config.Digest{OutputDir: out, MaxResults: 10, ArxivCategories: []config.Quota{{Name: "cs.LG", Limit: 2}},
			BiorxivCategories: []config.Quota{{Name: "bioinformatics", Limit: 5}}, BiorxivDays: 7},
		Arxiv:   testArxiv(arx, s),
		Biorxiv: &Biorxiv{BaseURL: bio.URL, HTTP: bio.Client(), Retry: Retry{Attempts: 1}},
		LLM:     llm, ModelName: "ollama:test",
		Prompt: func() (string, error) { return "RUBRIC", nil },
		Index:  idx,
		Now:    func() time.Time { return time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC) },
	}
	res, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Fetched != 4 || res.Unique != 4 || res.Selected != 4 || res.FullText != 1 || res.Summaries != 1 || res.SummaryFallback != 1 {
		t.Fatalf("outcome = %+v", res)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "Spectral cytometry") {
		t.Fatalf("fallback must warn: %v", res.Warnings)
	}
	md, err := os.ReadFile(res.DigestPath)
	if err != nil || !strings.HasSuffix(res.DigestPath, "digest-2026-12-07.md") || !strings.Contains(string(md), "## Skim") {
		t.Fatalf("digest file: %v\n%s", err, md)
	}
	if len(idx.digests) != 1 || idx.digests[0] != "Paper Digest — 2026-12-07" {
		t.Fatalf("digest doc indexed: %v", idx.digests)
	}
	if len(idx.fullText) != 1 || idx.fullText[0] != "Sparse Mixtures of Experts for Cytometry" || len(idx.summaries) != 2 {
		t.Fatalf("tiers: full=%v summaries=%v", idx.fullText, idx.summaries)
	}
	if len(llm.prompts) != 1 {
		t.Fatal("8-9 summaries must not cost an extra LLM call")
	}
}

// arxivPagePipeline is a Pipeline over the two papers of arxiv_page.xml
// (cs.LG only) that the LLM scores with scores and that indexes into idx.
func arxivPagePipeline(t *testing.T, idx *fakeIndexer, scores string) *Pipeline {
	arx, _ := arxivServer(t, fixture(t, "arxiv_page.xml"))
	return &Pipeline{Cfg: config.Digest{OutputDir: t.TempDir(), MaxResults: 5, ArxivCategories: []config.Quota{{Name: "cs.LG", Limit: 2}}},
		Arxiv: testArxiv(arx, &noSleep{}), LLM: &scriptedLLM{replies: []string{scores}}, Prompt: func() (string, error) { return "R", nil }, Index: idx}
}

func TestPipelineSkipsKnownAndFailsWithNothingFetched(t *testing.T) {
	p := arxivPagePipeline(t, &fakeIndexer{known: map[string]bool{"Sparse Mixtures of Experts for Cytometry": true}},
		`[{"id":0,"score":10},{"id":1,"score":3}]`)
	res, err := p.Run(context.Background())
	if err != nil || res.Skipped != 1 || res.FullText != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	empty, _ := arxivServer(t, fixture(t, "arxiv_empty.xml"))
	p.Arxiv = testArxiv(empty, &noSleep{})
	if _, err := p.Run(context.Background()); !errs.Is(err, errs.Fetch) {
		t.Fatalf("nothing fetched: %v", err)
	}
}

func TestPipelineUpdatesStaleRevisions(t *testing.T) {
	idx := &fakeIndexer{stale: map[string]bool{"A Benchmark for Retrieval": true}}
	p := arxivPagePipeline(t, idx, `[{"id":0,"score":3},{"id":1,"score":8}]`)
	res, err := p.Run(context.Background())
	if err != nil || res.Updated != 1 || res.Skipped != 0 || len(idx.summaries) != 1 || idx.summaries[0] != "A Benchmark for Retrieval" {
		t.Fatalf("%v %+v %v", err, res, idx.summaries)
	}
}
