package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// These benchmarks time the store's own machinery (FTS5 BM25 over a filtered
// pool, the generation-synced exact vector scan). The vectors are random:
// they measure arithmetic and I/O, not retrieval quality.

var words = strings.Fields("protein folding cytometry budget grant retrieval embedding transformer cell gene sequencing network graph kernel sparse dense model data analysis method result")

func synthetic(r *rand.Rand, i, dims int) Chunk {
	var b strings.Builder
	for j := 0; j < 120; j++ {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	fmt.Fprintf(&b, "token%d", i)
	v := make([]float32, dims)
	for k := range v {
		v[k] = r.Float32()*2 - 1
	}
	vis := Public
	if i%10 == 0 {
		vis = Private
	}
	return note(fmt.Sprintf("notes/n%d.md", i), b.String(), vis, v)
}

func benchStore(b *testing.B, n, dims int) *Store {
	b.Helper()
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	r := rand.New(rand.NewPCG(1, 2))
	batch := make([]Chunk, 0, 1000)
	for i := 0; i < n; i++ {
		batch = append(batch, synthetic(r, i, dims))
		if len(batch) == cap(batch) {
			if err := s.commit(batch, nil, ModelInfo{ID: "bench", Dims: dims}); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := s.commit(batch, nil, ModelInfo{ID: "bench", Dims: dims}); err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkBM25(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			s := benchStore(b, n, 4)
			ctx := context.Background()
			f := Filter{Visibility: []string{Public}}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.BM25(ctx, "cytometry grant token42", f, 25); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDenseScan(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d/dims=384", n), func(b *testing.B) {
			s := benchStore(b, n, 384)
			ctx := context.Background()
			ix := s.Index()
			if err := ix.Sync(ctx, s, ModelInfo{ID: "bench", Dims: 384}); err != nil {
				b.Fatal(err)
			}
			q := normalise(synthetic(rand.New(rand.NewPCG(3, 4)), 0, 384).Vector)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ix.dense(ix.poolOf(Filter{Visibility: []string{Public}}), q, 25)
			}
		})
	}
}

func BenchmarkCommit1000(b *testing.B) {
	s := benchStore(b, 0, 384)
	r := rand.New(rand.NewPCG(5, 6))
	batch := make([]Chunk, 1000)
	for i := range batch {
		batch[i] = synthetic(r, i, 384)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.commit(batch, &Filter{Source: "notes/n0.md"}, ModelInfo{ID: "bench", Dims: 384}); err != nil {
			b.Fatal(err)
		}
	}
}

// fixedEmbedder returns one random query vector: the search benchmarks time
// the pipeline around the models, not the models.
type fixedEmbedder struct{ v []float32 }

func (f fixedEmbedder) Info() ModelInfo { return ModelInfo{ID: "bench", Dims: len(f.v)} }
func (f fixedEmbedder) Backend() string { return "bench" }
func (f fixedEmbedder) EmbedQuery(context.Context, string) ([]float32, error) {
	return f.v, nil
}
func (f fixedEmbedder) EmbedDocuments(_ context.Context, ts []string) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i := range out {
		out[i] = f.v
	}
	return out, nil
}

// BenchmarkSearchLatency reports p50/p95 per query for each pipeline shape
// (384-dim vectors, as BGE small): dense only, hybrid (dense + BM25 + RRF),
// and hybrid with a rerank stage (a trivial reranker: the stage's own cost).
func BenchmarkSearchLatency(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := benchStore(b, n, 384)
		r := rand.New(rand.NewPCG(3, 4))
		q := make([]float32, 384)
		for i := range q {
			q[i] = r.Float32()*2 - 1
		}
		for _, mode := range []struct {
			name   string
			hybrid bool
			rerank Reranker
		}{{"dense", false, nil}, {"hybrid", true, nil}, {"hybrid+rerank", true, lengthReranker{}}} {
			b.Run(fmt.Sprintf("%s/%d", mode.name, n), func(b *testing.B) {
				sr := NewSearcher(s, SearchOptions{Hybrid: mode.hybrid, RerankTopN: 25}, mode.rerank, fixedEmbedder{q})
				var lat []time.Duration
				for b.Loop() {
					start := time.Now()
					if _, err := sr.Search(context.Background(), "protein folding grant", 8, Filter{Visibility: []string{Public}}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(start))
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
			})
		}
	}
}
