package kbtools

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// MaxListed caps one listing.
const MaxListed = 200

// ListDocuments lists the documents inside the filter the caller may see.
func (k *KB) ListDocuments(ctx context.Context, c Caller, f kb.Filter, limit int) ([]kb.DocumentSummary, error) {
	if limit <= 0 || limit > MaxListed {
		limit = MaxListed
	}
	docs, err := k.Store.List(ctx, c.Scope(f), limit)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		c.saw(d.Visibility)
	}
	return docs, nil
}

// Stats counts what the caller may see: for a cloud caller public chunks
// only, so no private record type or status is named.
func (k *KB) Stats(ctx context.Context, c Caller) (kb.Counts, error) {
	counts, err := k.Store.CountWhere(ctx, c.Scope(kb.Filter{}))
	if err != nil {
		return kb.Counts{}, err
	}
	if counts.Private > 0 {
		c.saw(kb.Private)
	}
	return counts, nil
}
