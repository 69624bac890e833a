package kb

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Embedder turns text into vectors. Queries get the model's query prefix
// (BGE's retrieval instruction); documents are embedded bare.
type Embedder interface {
	Info() ModelInfo
	Backend() string // "onnxruntime" or "go", reported by doctor
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
}

// Reranker scores (query, passage) pairs with a cross-encoder; it reads the
// raw text, never the vectors.
type Reranker interface {
	Rerank(ctx context.Context, query string, passages []string) ([]float64, error)
}

// SearchOptions are the retrieval switches from [rag].
type SearchOptions struct {
	Hybrid     bool // fuse BM25 with dense; false = dense only (keyword when there are no vectors)
	RerankTopN int  // candidates handed to the reranker
}

// Searcher runs the retrieval pipeline: filtered pool -> keyword (BM25) and
// dense -> RRF (c=60) -> top RerankTopN -> cross-encoder -> n. Every model
// is optional: with none it is a keyword search over the same pool, and it
// becomes hybrid chunk by chunk as vectors arrive.
type Searcher struct {
	Store *Store
	Opts  SearchOptions

	mu     sync.RWMutex
	embed  []Embedder // models that can embed queries (configured first)
	rerank Reranker
}

// NewSearcher returns a searcher over store with the given models (each may
// be nil). Extra embedders serve queries for the store's active model while
// a switch to the configured one fills in.
func NewSearcher(store *Store, opts SearchOptions, rerank Reranker, embedders ...Embedder) *Searcher {
	s := &Searcher{Store: store, Opts: opts}
	s.SetModels(rerank, embedders...)
	return s
}

// SetModels swaps the models (a download finished, a setting changed);
// searches already running keep the ones they started with.
func (s *Searcher) SetModels(rerank Reranker, embedders ...Embedder) {
	var es []Embedder
	for _, e := range embedders {
		if e != nil {
			es = append(es, e)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed, s.rerank = es, rerank
}

// Embedder is the configured embedding model (nil without one), for
// callers that store chunks through the searcher's store.
func (s *Searcher) Embedder() Embedder {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.embed) == 0 {
		return nil
	}
	return s.embed[0]
}

func (s *Searcher) models() ([]Embedder, Reranker) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.embed, s.rerank
}

// Mode says how a search was answered, for every surface to show.
type Mode struct {
	Keyword bool
	Dense   bool
	Rerank  bool
	Model   string // the vector model the dense half used
	Vectors int    // chunks of the pool the dense half could see
	Pool    int    // chunks in the pool
}

// Kind names the stages that ran, without counts ("keyword",
// "hybrid (keyword + dense) + rerank", ...).
func (m Mode) Kind() string {
	s := "keyword"
	switch {
	case m.Dense && m.Keyword:
		s = "hybrid (keyword + dense)"
	case m.Dense:
		s = "dense"
	}
	if m.Rerank {
		s += " + rerank"
	}
	return s
}

func (m Mode) String() string {
	s := m.Kind()
	if m.Dense && m.Vectors < m.Pool {
		s += fmt.Sprintf("; dense covers %d of %d chunks while embedding catches up", m.Vectors, m.Pool)
	}
	return s
}

// Result is one search's hits and how they were found.
type Result struct {
	Hits []Hit
	Mode Mode
}

// rrfC is the reciprocal-rank-fusion constant.
const rrfC = 60

// queryEmbedder picks the model whose vectors the dense half ranks: the
// store's active model when loaded, else the model being filled in.
func queryEmbedder(es []Embedder, m Models) Embedder {
	for _, want := range []ModelInfo{m.Active, m.Target} {
		for _, e := range es {
			if sameModel(want, e.Info()) {
				return e
			}
		}
	}
	return nil
}

// Search returns up to n hits inside the filter.
func (s *Searcher) Search(ctx context.Context, query string, n int, f Filter) (Result, error) {
	q, err := s.prepare(ctx, query)
	if err != nil {
		return Result{}, err
	}
	return s.rank(ctx, q, n, f)
}

// SearchEach ranks one query over each filter in turn, analysing and
// embedding the query once (a cloud session ranks the public pool and, for
// the user's withheld count only, the whole one).
func (s *Searcher) SearchEach(ctx context.Context, query string, n int, filters ...Filter) ([]Result, error) {
	q, err := s.prepare(ctx, query)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(filters))
	for i, f := range filters {
		if out[i], err = s.rank(ctx, q, n, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// prepared is a query analysed and embedded once, for one or more rankings.
type prepared struct {
	text   string
	vm     ModelInfo // vector model of qv; zero: keyword only
	qv     []float32
	terms  []qterm
	rerank Reranker
}

func (s *Searcher) prepare(ctx context.Context, query string) (prepared, error) {
	const op = "kb.Search"
	embedders, rerank := s.models()
	q := prepared{text: query, rerank: rerank}
	models, err := s.Store.Models(ctx)
	if err != nil {
		return q, err
	}
	if qe := queryEmbedder(embedders, models); qe != nil {
		q.vm = qe.Info()
		if q.qv, err = qe.EmbedQuery(ctx, query); err != nil {
			return q, errs.Wrap(errs.RAG, op, err)
		}
		normalise(q.qv)
	}
	if q.terms, err = s.Store.queryTerms(ctx, query); err != nil {
		return q, errs.Wrap(errs.RAG, op, err)
	}
	return q, nil
}

// rank runs the pipeline for a prepared query.
func (s *Searcher) rank(ctx context.Context, q prepared, n int, f Filter) (Result, error) {
	const op = "kb.Search"
	if _, _, err := f.where(); err != nil {
		return Result{}, err
	}
	if n <= 0 {
		n = 8
	}
	topN := max(s.Opts.RerankTopN, n)
	ix := s.Store.Index()
	if err := ix.Sync(ctx, s.Store, q.vm); err != nil {
		return Result{}, err
	}
	ix.mu.RLock()
	p := ix.poolOf(f)
	mode := Mode{Pool: p.n, Vectors: p.vectors, Model: q.vm.ID}
	var dense, sparse []scored
	exact := true
	if q.qv != nil && p.vectors > 0 {
		dense, exact = ix.dense(p, q.qv, topN)
		mode.Dense = true
	}
	if s.Opts.Hybrid || !mode.Dense {
		sparse = ix.keyword(p, q.terms, topN)
		mode.Keyword = true
	}
	denseIDs, sparseIDs := ix.ids(dense), ix.ids(sparse)
	rk := ranking{gen: ix.gen, revs: ix.revs(dense, sparse)}
	ix.mu.RUnlock()
	if !exact {
		var err error
		if dense, denseIDs, err = s.Store.rescore(ctx, q.vm, q.qv, dense, denseIDs, topN); err != nil {
			return Result{}, errs.Wrap(errs.RAG, op, err)
		}
	}

	// A single ranking keeps its own scores (BM25, cosine); a fused one
	// scores by reciprocal rank.
	score := map[int64]float64{}
	ranked := sparseIDs
	switch {
	case mode.Dense && mode.Keyword:
		ranked = RRF(rrfC, denseIDs, sparseIDs)
		for _, ids := range [][]int64{denseIDs, sparseIDs} {
			for rank, id := range ids {
				score[id] += 1 / (rrfC + float64(rank+1))
			}
		}
	case mode.Dense:
		ranked = denseIDs
		for i, id := range denseIDs {
			score[id] = float64(dense[i].score)
		}
	default:
		for i, id := range sparseIDs {
			score[id] = float64(sparse[i].score)
		}
	}
	if len(ranked) > topN {
		ranked = ranked[:topN]
	}
	chunks, err := s.Store.chunksAt(ctx, ranked, rk)
	if err != nil {
		return Result{}, err
	}
	hits := make([]Hit, len(chunks))
	for i, c := range chunks {
		hits[i] = Hit{Chunk: c, Score: score[c.ID]}
	}
	if q.rerank != nil && len(hits) > 1 {
		passages := make([]string, len(hits))
		for i, h := range hits {
			passages[i] = h.Chunk.Content
		}
		scores, err := q.rerank.Rerank(ctx, q.text, passages)
		if err != nil {
			return Result{}, errs.Wrap(errs.RAG, op, err)
		}
		for i := range hits {
			hits[i].Score = scores[i]
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
		mode.Rerank = true
	}
	if len(hits) > n {
		hits = hits[:n]
	}
	return Result{Hits: hits, Mode: mode}, nil
}
