package kbtools

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// MaxResults caps one search.
const MaxResults = 50

// SearchArgs is one search.
type SearchArgs struct {
	Query  string
	N      int       // results; out of 1..MaxResults means the configured default
	Filter kb.Filter // where to look
	// ExcludeSource drops one document from the results (a conversation
	// searching the history it is part of).
	ExcludeSource string
}

// Found is a search's answer.
type Found struct {
	Chunks []kb.Chunk
	Mode   kb.Mode // how it ran (keyword, hybrid, reranked)
}

// Search ranks the chunks inside the filter the caller may see, and hands
// them to it. For a cloud caller the pool holds public chunks only, so the
// ranking is the one a store without private notes would give; the private
// matches a full search would have returned are counted in the ledger.
func (k *KB) Search(ctx context.Context, c Caller, a SearchArgs) (Found, error) {
	n := a.N
	if n <= 0 || n > MaxResults {
		n = max(k.NResults, 1)
	}
	ask := n
	if a.ExcludeSource != "" {
		ask = n + 5
	}
	filters := []kb.Filter{c.Scope(a.Filter)}
	if c.Cloud {
		filters = append(filters, a.Filter)
	}
	results, err := k.Searcher.SearchEach(ctx, a.Query, ask, filters...)
	if err != nil {
		return Found{}, err
	}
	if c.Cloud {
		withheld := 0
		for _, h := range results[1].Hits {
			if h.Chunk.Meta.Visibility == kb.Private {
				withheld++
			}
		}
		c.withheld(withheld)
	}
	var chunks []kb.Chunk
	for _, h := range results[0].Hits {
		if h.Chunk.Meta.Source != a.ExcludeSource || a.ExcludeSource == "" {
			chunks = append(chunks, h.Chunk)
		}
	}
	chunks = chunks[:min(len(chunks), n)]
	c.hand(chunks)
	return Found{Chunks: chunks, Mode: results[0].Mode}, nil
}
