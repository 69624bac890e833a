package kb

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Ingest commits chunks, replacing the set named by replace (nil: add
// only). With an embedder the chunks' EmbedText is embedded first and the
// vectors stored with them; without one (no model installed) the chunks are
// stored at once, found by keyword, and wait for the backfill. Embedding
// happens before the transaction, so a cancelled or failed ingest leaves
// the store untouched.
func (s *Store) Ingest(ctx context.Context, e Embedder, chunks []Chunk, replace *Filter) error {
	var vm ModelInfo
	if e != nil && len(chunks) > 0 {
		vm = e.Info()
		texts := make([]string, len(chunks))
		for i, c := range chunks {
			texts[i] = c.EmbedText
		}
		vecs, err := e.EmbedDocuments(ctx, texts)
		if err != nil {
			if ctx.Err() != nil {
				return errs.Wrap(errs.Cancelled, "kb.Ingest", ctx.Err())
			}
			return errs.Wrap(errs.RAG, "kb.Ingest", err)
		}
		for i := range chunks {
			chunks[i].Vector = vecs[i]
		}
	}
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Cancelled, "kb.Ingest", err)
	}
	return s.commit(chunks, replace, vm)
}
