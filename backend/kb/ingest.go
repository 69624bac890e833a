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
// written at this metadata schema or a later one, and (when set) of this
// visibility.
type Stored struct {
	ContentHash string
	MetaSchema  int
	Visibility  string
}

// predicate is the SQL condition (over chunks aliased c) of rows holding
// what st names, and its arguments.
func (st Stored) predicate() (string, []any) {
	where, args := "c.content_hash = ? AND c.meta_schema >= ?", []any{st.ContentHash, st.MetaSchema}
	if st.Visibility != "" {
		// Checked on the rows the filter found, never an index to search by
		// (see Filter.where).
		where, args = where+" AND +c.visibility = ?", append(args, st.Visibility)
	}
	return where, args
}

// holds reports whether a row that f selects holds st, read outside any
// write (a cheap look before costly work; the write checks again).
func (s *Store) holds(ctx context.Context, q rowQuerier, f Filter, st Stored) (bool, error) {
	where, args, err := f.where()
	if err != nil {
		return false, err
	}
	cond, cargs := st.predicate()
	var there int
	err = q.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM chunks AS c WHERE (`+where+`) AND `+cond+` LIMIT 1)`,
		append(args, cargs...)...).Scan(&there)
	return there > 0, err
}

// IngestChanged is Ingest for a document that several processes may index
// at the same moment (the window and the tray both watch the vault). When
// what replace selects already holds same — another process stored these
// bytes after the caller last looked — nothing is written and written is
// false, so that process's chunks and their vectors stay. The check runs
// inside the write transaction, so of two processes racing one writes; a
// look before embedding spares the embedding when the other process is
// already done. replace names one document (a note's path).
func (s *Store) IngestChanged(ctx context.Context, e Embedder, chunks []Chunk, replace *Filter, same Stored) (written bool, err error) {
	const op = "kb.IngestChanged"
	if replace == nil || same.ContentHash == "" {
		return false, errs.New(errs.Invalid, op, "name what is replaced and its content hash")
	}
	if there, err := s.holds(ctx, s.db, *replace, same); err != nil {
		return false, errs.Wrap(errs.RAG, op, err)
	} else if there {
		return false, nil
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
