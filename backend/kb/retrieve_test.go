package kb

import (
	"context"
	"strings"
	"testing"
)

// wordEmbedder is a test-only bag-of-words embedder over a fixed vocabulary.
// It exercises the pipeline's plumbing (pool, fusion, privacy, rerank order),
// which is pure logic; retrieval quality is measured with the real models.
type wordEmbedder struct{ vocab []string }

func (w wordEmbedder) Info() ModelInfo { return ModelInfo{ID: "test/bow", Dims: len(w.vocab)} }
func (w wordEmbedder) Backend() string { return "test" }
func (w wordEmbedder) vec(text string) []float32 {
	v := make([]float32, len(w.vocab))
	for i, word := range w.vocab {
		if strings.Contains(strings.ToLower(text), word) {
			v[i] = 1
		}
	}
	return v
}
func (w wordEmbedder) EmbedQuery(_ context.Context, q string) ([]float32, error) {
	return w.vec(q), nil
}
func (w wordEmbedder) EmbedDocuments(_ context.Context, ts []string) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i, t := range ts {
		out[i] = w.vec(t)
	}
	return out, nil
}

// lengthReranker prefers shorter passages, so its effect on order is visible.
type lengthReranker struct{}

func (lengthReranker) Rerank(_ context.Context, _ string, ps []string) ([]float64, error) {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = -float64(len(p))
	}
	return out, nil
}

func searcher(t *testing.T, chunks []Chunk, rerank Reranker) *Searcher {
	emb := wordEmbedder{vocab: []string{"protein", "folding", "budget", "grant", "diary"}}
	s := open(t, t.TempDir())
	if err := s.Ingest(context.Background(), emb, chunks, nil); err != nil {
		t.Fatal(err)
	}
	return NewSearcher(s, SearchOptions{Hybrid: true, RerankTopN: 25}, rerank, emb)
}

func TestHybridFindsExactTokenDenseMisses(t *testing.T) {
	sr := searcher(t, []Chunk{
		note("a", "protein folding with AlphaFold2", Public, nil),
		note("b", "protein folding review", Public, nil),
	}, nil)
	ctx := context.Background()
	// "AlphaFold2" is outside the embedder's vocabulary: dense alone ties the
	// two, BM25 breaks the tie on the exact token.
	res, err := sr.Search(ctx, "AlphaFold2 protein folding", 2, Filter{})
	if err != nil || res.Hits[0].Chunk.Meta.Source != "a" || !res.Mode.Dense || !res.Mode.Keyword {
		t.Fatalf("hybrid: %v %+v", err, res)
	}
	sr.Opts.Hybrid = false
	dense, _ := sr.Search(ctx, "AlphaFold2 protein folding", 2, Filter{})
	if len(dense.Hits) != 2 || dense.Mode.Keyword || dense.Mode.String() != "dense" {
		t.Fatalf("dense-only: %+v", dense)
	}
}

func TestRerankReordersCandidates(t *testing.T) {
	sr := searcher(t, []Chunk{
		note("long", "grant budget grant budget with a very long justification paragraph", Public, nil),
		note("short", "grant budget", Public, nil),
	}, lengthReranker{})
	res, _ := sr.Search(context.Background(), "grant budget", 2, Filter{})
	if res.Hits[0].Chunk.Meta.Source != "short" || !res.Mode.Rerank {
		t.Fatalf("rerank order: %+v", res)
	}
}

// countingEmbedder counts query embeddings.
type countingEmbedder struct {
	wordEmbedder
	queries int
}

func (c *countingEmbedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	c.queries++
	return c.wordEmbedder.EmbedQuery(ctx, q)
}

// One query over two pools (a cloud session's public ranking and the full
// one it counts withheld matches in) is embedded once.
func TestSearchEachEmbedsTheQueryOnce(t *testing.T) {
	emb := &countingEmbedder{wordEmbedder: wordEmbedder{vocab: []string{"grant", "diary"}}}
	s := open(t, t.TempDir())
	if err := s.Ingest(context.Background(), emb, []Chunk{note("a", "grant plan", Public, nil), note("b", "grant diary", Private, nil)}, nil); err != nil {
		t.Fatal(err)
	}
	sr := NewSearcher(s, SearchOptions{Hybrid: true, RerankTopN: 5}, nil, emb)
	res, err := sr.SearchEach(context.Background(), "grant", 5, Filter{Visibility: []string{Public}}, Filter{})
	if err != nil || len(res) != 2 || len(res[0].Hits) != 1 || len(res[1].Hits) != 2 || emb.queries != 1 {
		t.Fatalf("%v %+v, %d query embeddings", err, res, emb.queries)
	}
}
