package kb

import (
	"context"
	"sort"

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
	Hybrid     bool // fuse BM25 with dense; false = dense only
	RerankTopN int  // candidates handed to the reranker
}

// Searcher runs the retrieval pipeline: filtered pool -> dense + BM25 ->
// RRF (c=60) -> top RerankTopN -> cross-encoder -> n.
type Searcher struct {
	Store  *Store
	Index  *DenseIndex
	Embed  Embedder
	Rerank Reranker // nil disables reranking
	Opts   SearchOptions
}

// rrfC is the reciprocal-rank-fusion constant.
const rrfC = 60

// Search returns up to n hits inside the filter.
func (s *Searcher) Search(ctx context.Context, query string, n int, f Filter) ([]Hit, error) {
	qv, err := s.Embed.EmbedQuery(ctx, query)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, "kb.Search", err)
	}
	hits, _, err := s.search(ctx, query, qv, n, f)
	return hits, err
}

// search runs the pipeline for an already embedded query. It also returns
// the BM25 hits it ranked (nil when hybrid is off), so the privacy check can
// judge lexical matches without a second BM25 pass.
func (s *Searcher) search(ctx context.Context, query string, qv []float32, n int, f Filter) ([]Hit, []Hit, error) {
	const op = "kb.Search"
	if n <= 0 {
		n = 8
	}
	topN := max(s.Opts.RerankTopN, n)
	pool, err := s.Store.PoolIDs(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	if len(pool) == 0 {
		return nil, nil, nil
	}
	if err := s.Index.Sync(ctx, s.Store); err != nil {
		return nil, nil, err
	}
	var dense []int64
	for _, h := range s.Index.Search(qv, pool, topN) {
		dense = append(dense, h.Chunk.ID)
	}
	ranked := dense
	var bm []Hit
	if s.Opts.Hybrid {
		if bm, err = s.Store.BM25(ctx, query, f, topN); err != nil {
			return nil, nil, err
		}
		var sparse []int64
		for _, h := range bm {
			sparse = append(sparse, h.Chunk.ID)
		}
		ranked = RRF(rrfC, dense, sparse)
	}
	if len(ranked) > topN {
		ranked = ranked[:topN]
	}
	chunks, err := s.Store.Chunks(ctx, ranked)
	if err != nil {
		return nil, nil, err
	}
	hits := make([]Hit, len(chunks))
	for i, c := range chunks {
		hits[i] = Hit{Chunk: c, Score: float64(len(chunks) - i)} // fused rank as score
	}
	if s.Rerank != nil && len(hits) > 1 {
		passages := make([]string, len(hits))
		for i, h := range hits {
			passages[i] = h.Chunk.Content
		}
		scores, err := s.Rerank.Rerank(ctx, query, passages)
		if err != nil {
			return nil, nil, errs.Wrap(errs.RAG, op, err)
		}
		for i := range hits {
			hits[i].Score = scores[i]
		}
		sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	}
	if len(hits) > n {
		hits = hits[:n]
	}
	return hits, bm, nil
}

// PrivateCaveat is the fixed line shown (to the model and the user) when a
// cloud search withheld private matches. It carries no private content.
const PrivateCaveat = "Note: some matching notes are private and were withheld from this cloud model."

// PrivacyResult is a provider-aware search outcome.
type PrivacyResult struct {
	Hits     []Hit
	Withheld int // private hits that would have been returned but were excluded
}

// SearchWithPrivacyCheck searches for a provider. Local models see
// everything in the filter. For a cloud model, private chunks are removed
// from the pool before ranking; if the query matched only private content a
// Privacy error stops the caller (the turn must make no further request).
func (s *Searcher) SearchWithPrivacyCheck(ctx context.Context, query string, n int, f Filter, cloud bool) (PrivacyResult, error) {
	qv, err := s.Embed.EmbedQuery(ctx, query)
	if err != nil {
		return PrivacyResult{}, errs.Wrap(errs.RAG, "kb.Search", err)
	}
	if !cloud {
		hits, _, err := s.search(ctx, query, qv, n, f)
		return PrivacyResult{Hits: hits}, err
	}
	// Ranking private chunks locally to count them is safe: nothing of them
	// leaves this function but the count. The query is embedded once.
	all, lexical, err := s.search(ctx, query, qv, n, f)
	if err != nil {
		return PrivacyResult{}, err
	}
	withheld := 0
	for _, h := range all {
		if h.Chunk.Meta.Visibility == Private {
			withheld++
		}
	}
	// Dense retrieval returns neighbours however far, so "the query matched
	// only private content" is judged on the lexical matches when there are
	// any (every chunk sharing a query term is private), else on the top
	// hits of the whole pool.
	onlyPrivate := withheld > 0 && withheld == len(all)
	if !s.Opts.Hybrid { // search ranked no BM25: ask for it
		if lexical, err = s.Store.BM25(ctx, query, f, max(s.Opts.RerankTopN, n)); err != nil {
			return PrivacyResult{}, err
		}
	}
	if len(lexical) > 0 {
		onlyPrivate = true
		for _, h := range lexical {
			if h.Chunk.Meta.Visibility != Private {
				onlyPrivate = false
				break
			}
		}
	}
	if onlyPrivate {
		return PrivacyResult{Withheld: withheld}, errs.New(errs.Privacy, "kb.Search",
			"this question matches only private notes, which are never sent to a cloud model; switch to a local model to use them")
	}
	pub := f
	pub.Visibility = []string{Public}
	hits, _, err := s.search(ctx, query, qv, n, pub)
	if err != nil {
		return PrivacyResult{}, err
	}
	if len(hits) == 0 && withheld > 0 {
		return PrivacyResult{Withheld: withheld}, errs.New(errs.Privacy, "kb.Search",
			"this question matches only private notes, which are never sent to a cloud model; switch to a local model to use them")
	}
	return PrivacyResult{Hits: hits, Withheld: withheld}, nil
}
