package kb

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/analysis"
	"github.com/jarvis-kb/jarvis/backend/kb/synth"
)

// The benchmarks run over generated text shaped like a real knowledge base
// (synth: Zipf vocabulary of 60k words with English stop words on top,
// ~150 words per chunk, one chunk in ten private) and report per-query
// p50/p95. Keyword search is timed side by side with an exhaustive
// in-memory BM25 written here (same analyser, same parameters, every
// matching chunk scored and fully sorted), which is also the yardstick its
// rankings are checked against. Vectors are clustered random unit vectors:
// they time arithmetic and memory traffic, not retrieval quality.
//
// Stores are built once per size and shared by the benchmarks of one run
// (100k chunks with 384-dim vectors take a few minutes to write).

var benchCorpus = synth.New(60_000, 1)

const benchDims = 384

// synthChunk is generated chunk i as the vault would store it: three
// chunks per note, the title in the metadata and the embed header.
func synthChunk(i, dims int) Chunk {
	d := benchCorpus.Doc(i)
	vis := Public
	if d.Private {
		vis = Private
	}
	c := note(fmt.Sprintf("notes/n%d.md", i/3), d.Body, vis, nil)
	c.Meta.Title, c.Meta.ChunkIndex = d.Title, i%3
	c.EmbedText = d.Title + "\n" + d.Body
	if dims > 0 {
		c.Vector = benchCorpus.Vector(d, i, dims)
	}
	return c
}

// synthChunks generates chunks [from, to) on every core.
func synthChunks(from, to, dims int) []Chunk {
	out := make([]Chunk, to-from)
	var wg sync.WaitGroup
	workers := 4
	for w := range workers {
		wg.Go(func() {
			for i := from + w; i < to; i += workers {
				out[i-from] = synthChunk(i, dims)
			}
		})
	}
	wg.Wait()
	return out
}

var benchModel = ModelInfo{ID: "bench", Dims: benchDims}

// fillStore commits synthetic chunks [from, to) with vectors of benchModel.
func fillStore(tb testing.TB, s *Store, from, to int) {
	tb.Helper()
	for lo := from; lo < to; lo += 2000 {
		if err := s.commit(synthChunks(lo, min(lo+2000, to), benchDims), nil, benchModel); err != nil {
			tb.Fatal(err)
		}
	}
}

var benchStores = struct {
	sync.Mutex
	dirs []string
	byN  map[int]*Store
}{byN: map[int]*Store{}}

// sharedStore returns the store of n synthetic chunks, building it on
// first use; TestMain removes it.
func sharedStore(b *testing.B, n int) *Store {
	b.Helper()
	benchStores.Lock()
	defer benchStores.Unlock()
	if s := benchStores.byN[n]; s != nil {
		return s
	}
	dir, err := os.MkdirTemp("", "kbbench")
	if err != nil {
		b.Fatal(err)
	}
	benchStores.dirs = append(benchStores.dirs, dir)
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	fillStore(b, s, 0, n)
	b.Logf("built a store of %d chunks in %s", n, time.Since(start).Round(time.Second))
	benchStores.byN[n] = s
	return s
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, s := range benchStores.byN {
		s.Close()
	}
	for _, d := range benchStores.dirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// refBM25 is the exhaustive reference: an inverted index over the same
// analysed text, every matching chunk of the pool scored, all of them
// sorted. Chunk i of the generator is row i.
type refBM25 struct {
	post   map[string][]refPosting
	length []uint32
	pool   []bool
	n      int
	avgLen float64
	acc    []float32
	langs  []analysis.Lang // the chunks' languages other than English, for the query
}

type refPosting struct {
	doc      int32
	body, me uint32
}

func newRefBM25(chunks []Chunk, inPool func(Chunk) bool) *refBM25 {
	x := &refBM25{post: map[string][]refPosting{}, length: make([]uint32, len(chunks)), pool: make([]bool, len(chunks)), acc: make([]float32, len(chunks))}
	var total float64
	for i, c := range chunks {
		tc := analyseChunk(c)
		if tc.lang != analysis.English && !slices.Contains(x.langs, tc.lang) {
			x.langs = append(x.langs, tc.lang)
		}
		for t, n := range tc.terms {
			x.post[t] = append(x.post[t], refPosting{doc: int32(i), body: n[0], me: n[1]})
		}
		x.length[i] = tc.bodyLen + tc.metaLen
		if inPool(c) {
			x.pool[i] = true
			x.n++
			total += float64(x.length[i])
		}
	}
	x.avgLen = total / float64(x.n)
	return x
}

// search returns the best k rows (and their scores) for query.
func (x *refBM25) search(query string, k int) ([]int32, []float32) {
	counts := map[string]int{}
	analysis.EachQuery(query, analysis.QueryLangs(query, x.langs), func(t string, n int) { counts[t] = n })
	clear(x.acc)
	var touched []int32
	for _, t := range slices.Sorted(func(yield func(string) bool) {
		for t := range counts {
			if !yield(t) {
				return
			}
		}
	}) {
		ps := x.post[t]
		df := 0
		for _, p := range ps {
			if x.pool[p.doc] {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := bm25IDF(x.n, df) * float64(counts[t])
		for _, p := range ps {
			if !x.pool[p.doc] {
				continue
			}
			tf := float64(p.body) + metaBoost*float64(p.me)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(x.length[p.doc])/x.avgLen)
			if x.acc[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			x.acc[p.doc] += float32(idf * tf * (bm25K1 + 1) / (tf + norm))
		}
	}
	slices.SortFunc(touched, func(a, b int32) int {
		if x.acc[a] != x.acc[b] {
			if x.acc[a] > x.acc[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	touched = touched[:min(k, len(touched))]
	scores := make([]float32, len(touched))
	for i, d := range touched {
		scores[i] = x.acc[d]
	}
	return touched, scores
}

// latencies times fn once per iteration (query i of the set) and reports
// p50 and p95 in milliseconds.
func latencies(b *testing.B, fn func(i int)) {
	b.Helper()
	var lat []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		fn(i)
		lat = append(lat, time.Since(start))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(0, "ns/op") // per-query percentiles say it better
}

var benchSizes = []int{10_000, 100_000}

const benchQueries = 300

// BenchmarkKeyword: BM25 over the public pool (the cloud case: one chunk in
// ten is filtered out before scoring), 25 results. "reference" is the
// exhaustive scorer, "index" the index's ranking as a search runs it
// (generation check, query analysis, pool, BM25 top 25), "store" the full
// Store.BM25 call (that plus loading the 25 chunks, from SQLite or the hit
// cache), "store-uncached" the same with the hit cache emptied before each
// query (every chunk read from SQLite).
func BenchmarkKeyword(b *testing.B) {
	// 5,183: the size of the held-out BEIR corpus the target was set on.
	for _, n := range append([]int{5_183}, benchSizes...) {
		queries := benchCorpus.Queries(benchQueries, n)
		f := Filter{Visibility: []string{Public}}
		b.Run(fmt.Sprintf("chunks=%d/reference", n), func(b *testing.B) {
			ref := newRefBM25(synthChunks(0, n, 0), func(c Chunk) bool { return c.Meta.Visibility == Public })
			latencies(b, func(i int) { ref.search(queries[i%len(queries)], 25) })
		})
		b.Run(fmt.Sprintf("chunks=%d/index", n), func(b *testing.B) {
			s := sharedStore(b, n)
			ctx := context.Background()
			ix := s.Index()
			latencies(b, func(i int) {
				if err := ix.Sync(ctx, s, ix.model()); err != nil {
					b.Fatal(err)
				}
				terms, err := s.queryTerms(ctx, queries[i%len(queries)])
				if err != nil {
					b.Fatal(err)
				}
				ix.mu.RLock()
				ix.keyword(ix.poolOf(f), terms, 25)
				ix.mu.RUnlock()
			})
		})
		b.Run(fmt.Sprintf("chunks=%d/store", n), func(b *testing.B) {
			s := sharedStore(b, n)
			ctx := context.Background()
			if _, err := s.BM25(ctx, "warm", f, 25); err != nil {
				b.Fatal(err)
			}
			latencies(b, func(i int) {
				if _, err := s.BM25(ctx, queries[i%len(queries)], f, 25); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(fmt.Sprintf("chunks=%d/store-uncached", n), func(b *testing.B) {
			s := sharedStore(b, n)
			ctx := context.Background()
			latencies(b, func(i int) {
				s.hitCache.mu.Lock()
				s.hitCache.cur, s.hitCache.prev, s.hitCache.curBytes = nil, nil, 0
				s.hitCache.mu.Unlock()
				if _, err := s.BM25(ctx, queries[i%len(queries)], f, 25); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// queryEmbedder hands out the generated query vectors: the search
// benchmarks time the pipeline around the model, not the model.
type benchEmbedder struct{ byText map[string][]float32 }

func (f benchEmbedder) Info() ModelInfo { return benchModel }
func (f benchEmbedder) Backend() string { return "bench" }
func (f benchEmbedder) EmbedQuery(_ context.Context, q string) ([]float32, error) {
	return append([]float32(nil), f.byText[q]...), nil
}
func (f benchEmbedder) EmbedDocuments(_ context.Context, ts []string) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i := range out {
		out[i] = benchCorpus.QueryVector(i, benchDims)
	}
	return out, nil
}

// BenchmarkSearch times the Searcher per pipeline shape at 384 dims (as
// BGE small): dense only, hybrid (dense + BM25 + RRF), and hybrid with a
// rerank stage (a trivial reranker: the stage's own cost).
func BenchmarkSearch(b *testing.B) {
	for _, n := range benchSizes {
		queries := benchCorpus.Queries(benchQueries, n)
		emb := benchEmbedder{byText: map[string][]float32{}}
		for i, q := range queries {
			emb.byText[q] = benchCorpus.QueryVector(i, benchDims)
		}
		for _, mode := range []struct {
			name   string
			hybrid bool
			rerank Reranker
		}{{"dense", false, nil}, {"hybrid", true, nil}, {"hybrid+rerank", true, lengthReranker{}}} {
			b.Run(fmt.Sprintf("chunks=%d/%s", n, mode.name), func(b *testing.B) {
				s := sharedStore(b, n)
				sr := NewSearcher(s, SearchOptions{Hybrid: mode.hybrid, RerankTopN: 25}, mode.rerank, emb)
				ctx := context.Background()
				f := Filter{Visibility: []string{Public}}
				if _, err := sr.Search(ctx, queries[0], 8, f); err != nil {
					b.Fatal(err)
				}
				latencies(b, func(i int) {
					if _, err := sr.Search(ctx, queries[i%len(queries)], 8, f); err != nil {
						b.Fatal(err)
					}
				})
				if ix := s.Index(); ix.vec != nil {
					b.ReportMetric(float64(ix.vec.bytesPerRow())*100_000/1e6, "MB/100k-vectors")
				}
			})
		}
	}
}

// BenchmarkCatchUp: a second process's view (another Store handle on the
// same file) catching up after another writes 1,000 chunks with vectors.
func BenchmarkCatchUp(b *testing.B) {
	dir := b.TempDir()
	writer, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer writer.Close()
	reader, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer reader.Close()
	const base = 100_000
	fillStore(b, writer, 0, base)
	ctx := context.Background()
	ix := reader.Index()
	if err := ix.Sync(ctx, reader, benchModel); err != nil {
		b.Fatal(err)
	}
	next := base
	for b.Loop() {
		b.StopTimer()
		fillStore(b, writer, next, next+1000)
		next += 1000
		b.StartTimer()
		if err := ix.Sync(ctx, reader, benchModel); err != nil {
			b.Fatal(err)
		}
	}
	if n, v := ix.Len(); n != next || v != next {
		b.Fatalf("reader sees %d chunks, %d vectors; %d written", n, v, next)
	}
}

func BenchmarkCommit1000(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	batch := synthChunks(0, 1000, benchDims)
	for b.Loop() {
		if err := s.commit(batch, &Filter{Source: "notes/n0.md"}, benchModel); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkColdSearch: what a one-shot `jarvis-cli kb search` pays inside
// the store: open a new handle on an existing store of 100k chunks, load
// its index (keyword only, no models) and answer one query.
func BenchmarkColdSearch(b *testing.B) {
	dir := sharedStore(b, 100_000).Dir()
	queries := benchCorpus.Queries(benchQueries, 100_000)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		s, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.BM25(ctx, queries[i%len(queries)], Filter{}, 10); err != nil {
			b.Fatal(err)
		}
		s.Close()
		i++
	}
}

// BenchmarkList20kDocuments lists a 20,000-note library whole, as the
// window's Library does (three chunks a note).
func BenchmarkList20kDocuments(b *testing.B) {
	s := sharedStore(b, 60_000)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		docs, err := s.ListWith(ctx, Filter{}, ListOptions{Limit: 100_000})
		if err != nil || len(docs) != 20_000 {
			b.Fatalf("%d documents, %v", len(docs), err)
		}
	}
}
