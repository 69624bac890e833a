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
	_, err := s.ingest(ctx, e, chunks, replace, nil)
	return err
}

// Stored names content already in the store: chunks with this content hash,
// written at this metadata schema or a later one.
type Stored struct {
	ContentHash string
	MetaSchema  int
}

// IngestChanged is Ingest for a document that several processes may index
// at the same moment (the window and the tray both watch the vault). When
// what replace selects already holds same — another process stored these
// bytes after the caller last looked — nothing is written and written is
// false, so that process's chunks and their vectors stay. The check runs
// inside the write transaction, so of two processes racing one writes.
func (s *Store) IngestChanged(ctx context.Context, e Embedder, chunks []Chunk, replace *Filter, same Stored) (written bool, err error) {
	if replace == nil || same.ContentHash == "" {
		return false, errs.New(errs.Invalid, "kb.IngestChanged", "name what is replaced and its content hash")
	}
	return s.ingest(ctx, e, chunks, replace, &same)
}

func (s *Store) ingest(ctx context.Context, e Embedder, chunks []Chunk, replace *Filter, same *Stored) (bool, error) {
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
				return false, errs.Wrap(errs.Cancelled, "kb.Ingest", ctx.Err())
			}
			return false, errs.Wrap(errs.RAG, "kb.Ingest", err)
		}
		for i := range chunks {
			chunks[i].Vector = vecs[i]
		}
	}
	if err := ctx.Err(); err != nil {
		return false, errs.Wrap(errs.Cancelled, "kb.Ingest", err)
	}
	return s.commitUnless(chunks, replace, vm, same)
}
