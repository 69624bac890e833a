package kbtools

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// MaxResults caps one search by a model; a person gets as many as asked.
const MaxResults = 50

// SearchArgs is one search.
type SearchArgs struct {
	Query  string
	N      int       // results; 0 (or, for a model, more than MaxResults) means the configured default
	Filter kb.Filter // where to look
	// ExcludeSource drops one document from the results (a conversation
	// searching the history it is part of).
	ExcludeSource string
}

// Found is a search's answer.
type Found struct {
	Chunks []kb.Chunk
	Hits   []kb.Hit // Chunks with their scores, in the same order
	Mode   kb.Mode  // how it ran (keyword, hybrid, reranked)
}

// MaxPersonResults caps one search by a person: far more than a screen
// holds, and still a bounded allocation.
const MaxPersonResults = 1000

// Search ranks the chunks inside the filter the caller may see, and hands
// them to it. For a cloud caller the pool holds public chunks only, so the
// ranking is the one a store without private notes would give; the private
// matches a full search would have returned are counted in the ledger.
func (k *KB) Search(ctx context.Context, c Caller, a SearchArgs) (Found, error) {
	found, unscoped, err := k.search(ctx, c, a)
	if err != nil {
		return Found{}, err
	}
	withheld := 0
	for _, h := range unscoped {
		if h.Chunk.Meta.Visibility == kb.Private {
			withheld++
		}
	}
	c.withheld(withheld)
	c.hand(found.Chunks)
	return found, nil
}

// search ranks as Search does, handing nothing to the caller; for a cloud
// caller with a ledger it also returns the ranking over everything, from
// which what was kept back is counted.
func (k *KB) search(ctx context.Context, c Caller, a SearchArgs) (Found, []kb.Hit, error) {
	n := a.N
	switch {
	case n <= 0 || (n > MaxResults && !c.Person):
		n = max(k.NResults, 1)
	case n > MaxPersonResults:
		n = MaxPersonResults
	}
	ask := n
	if a.ExcludeSource != "" {
		ask = n + 5
	}
	// The unscoped search only counts what was kept back, for a ledger.
	counting := c.Cloud && c.Ledger != nil
	filters := []kb.Filter{c.Scope(a.Filter)}
	if counting {
		filters = append(filters, a.Filter)
	}
	results, err := k.Searcher.SearchEach(ctx, a.Query, ask, filters...)
	if err != nil {
		return Found{}, nil, err
	}
	var found Found
	for _, h := range results[0].Hits {
		if len(found.Hits) < n && (h.Chunk.Meta.Source != a.ExcludeSource || a.ExcludeSource == "") {
			found.Hits = append(found.Hits, h)
			found.Chunks = append(found.Chunks, h.Chunk)
		}
	}
	found.Mode = results[0].Mode
	var unscoped []kb.Hit
	if counting {
		unscoped = results[1].Hits
	}
	return found, unscoped, nil
}
