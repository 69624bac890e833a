package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/digest/digesttest"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

type oneReply string

func (r oneReply) CompleteText(context.Context, string, int, int) (string, error) {
	return string(r), nil
}

// bowStore is an empty knowledge base with a small real embedder that
// knows words. The external tests use it too, as BowStore
// (export_test.go).
func bowStore(t *testing.T, words ...string) (*kb.Store, kb.Embedder) {
	t.Helper()
	rt, err := embed.NewRuntime()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	dir := filepath.Join(t.TempDir(), "bow")
	if err := embedtest.WriteEmbedder(dir, embedtest.Words(words...)); err != nil {
		t.Fatal(err)
	}
	e, err := rt.Embedder(embed.EmbedderOptions{ID: "bow", Dir: dir, Pooling: embed.PoolMean})
	if err != nil {
		t.Fatal(err)
	}
	s, err := kb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, e
}

// kbIndexer opens a store with the real embedder fixture.
func kbIndexer(t *testing.T, words ...string) *DigestIndexer {
	t.Helper()
	s, e := bowStore(t, words...)
	return &DigestIndexer{Store: s, Embed: e, Opts: Options{ChunkSize: 1024, ChunkOverlap: 100}}
}

func TestDigestPipelineIndexesTiersIntoTheStore(t *testing.T) {
	feed := digesttest.Feed(t)
	srv := digesttest.ServeArxiv(t, "../pdf/testdata/paper.pdf")
	idx := kbIndexer(t, string(feed), "sparse attention keeps accuracy window size validation sweep")
	out := t.TempDir()
	ax := digesttest.Client(srv)
	ax.PageSize = 100
	p := &digest.Pipeline{
		Cfg:       config.Digest{OutputDir: out, MaxResults: 10, ArxivCategories: []config.Quota{{Name: "cs.LG", Limit: 2}}},
		Arxiv:     ax,
		LLM:       oneReply(`[{"id":0,"score":9,"summary":"MoE for cytometry.","reason":"methods","track":"ml"},{"id":1,"score":8,"summary":"Second paper."}]`),
		ModelName: "ollama:test", Prompt: func() (string, error) { return "R", nil }, Index: idx,
		Now: func() time.Time { return time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC) },
	}
	res, err := p.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.FullText != 1 || res.Summaries != 1 || res.SummaryFallback != 0 {
		t.Fatalf("outcome %+v", res)
	}
	ctx := context.Background()
	docs, err := idx.Store.List(ctx, kb.Filter{}, 50)
	if err != nil {
		t.Fatal(err)
	}
	byType := map[string]int{}
	for _, d := range docs {
		byType[d.DocType]++
	}
	if byType[kb.DocPaper] != 2 || byType[kb.DocDigest] != 1 {
		t.Fatalf("documents %+v", docs)
	}
	var full []kb.Chunk
	for _, d := range docs {
		if d.DocType == kb.DocPaper {
			if cs, _ := idx.Store.Document(ctx, kb.Filter{Source: d.Key}); len(cs) > 0 && cs[0].Meta.StorageMode == FullText {
				full = cs
			}
		}
	}
	if err != nil || len(full) < 2 || full[0].Meta.Score == nil || *full[0].Meta.Score != 9 || full[0].Meta.Track != "ml" || full[0].Meta.FilePath != "" {
		t.Fatalf("full-text paper %v %+v", err, full)
	}
	// Running the same digest again finds both papers known.
	res, err = p.Run(ctx)
	if err != nil || res.Skipped != 2 {
		t.Fatalf("second run %v %+v", err, res)
	}

	// kb add-digest into a fresh store: the file's papers >= 8 become summaries.
	md, _ := os.ReadFile(res.DigestPath)
	fresh := kbIndexer(t, string(md))
	imp, err := fresh.ImportDigest(ctx, res.DigestPath, string(md))
	if err != nil || imp.Summaries != 2 || imp.Low != 0 {
		t.Fatalf("import %v %+v", err, imp)
	}
	imp, err = fresh.ImportDigest(ctx, res.DigestPath, string(md))
	if err != nil || imp.Skipped != 2 || imp.Summaries != 0 {
		t.Fatalf("re-import %v %+v", err, imp)
	}
	c, _ := fresh.Store.Count(ctx)
	if c.ByType[kb.DocDigest] == 0 || c.Documents != 3 {
		t.Fatalf("counts after re-import (digest replaced, not doubled): %+v", c)
	}
}

// A bioRxiv revision (same DOI, newer version) replaces the stored entry
// instead of standing beside it or being skipped, and authors written
// "Surname, I." survive the digest file and `kb add-digest`.
func TestAddDigestRoundTripUpdatesRevisionsAndKeepsAuthors(t *testing.T) {
	paper := digest.Paper{Title: "Subnetworks of interneurons", Link: "https://doi.org/10.1101/2025.03.10.600001", DOI: "10.1101/2025.03.10.600001",
		Authors: []string{"Naka, A.", "Shababo, B.", "García-Pérez, M. J."}, Source: "neuroscience", Categories: []string{"neuroscience"}, Version: 1}
	idx := kbIndexer(t, "subnetworks interneurons first second version revised neuroscience")
	ctx := context.Background()
	if err := idx.IndexSummaries(ctx, []digest.Scored{{Paper: paper, Score: 8, Summary: "First version."}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := idx.Stored(ctx, paper); got != digest.Current {
		t.Fatalf("the same version is current: %v", got)
	}
	rev := paper
	rev.Version, rev.JournalDOI = 3, "10.7554/eLife.00001"
	md := digest.Format(time.Date(2026, 8, 7, 0, 0, 0, 0, time.UTC), time.Now(), []digest.Scored{{Paper: rev, Score: 9, Summary: "Third version, revised."}}, "m")
	path := filepath.Join(t.TempDir(), "digest-2026-08-07.md")
	out, err := idx.ImportDigest(ctx, path, md)
	if err != nil || out.Updated != 1 || out.Summaries != 1 || out.Skipped != 0 {
		t.Fatalf("import: %v %+v", err, out)
	}
	chunks, err := idx.Store.Document(ctx, kb.Filter{Source: paper.Link})
	if err != nil || len(chunks) != 1 {
		t.Fatalf("one entry for the preprint, replaced: %v %+v", err, chunks)
	}
	m := chunks[0].Meta
	if m.Authors != "Naka, A.; Shababo, B.; García-Pérez, M. J." || m.Extra["x_version"] != "3" || m.DOI != paper.DOI ||
		!strings.Contains(chunks[0].Content, "Third version, revised.") || !strings.Contains(chunks[0].Content, "Journal DOI: 10.7554/eLife.00001") {
		t.Fatalf("stored: %+v\n%s", m, chunks[0].Content)
	}
	if out, _ = idx.ImportDigest(ctx, path, md); out.Skipped != 1 || out.Updated != 0 {
		t.Fatalf("re-import of the same version: %+v", out)
	}
}
