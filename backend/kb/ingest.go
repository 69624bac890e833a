package kb

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Ingest embeds the chunks' EmbedText and commits them, replacing the set
// named by replace (nil: add only). Embedding happens before the
// transaction, so a cancelled or failed ingest leaves the store untouched.
func (s *Store) Ingest(ctx context.Context, e Embedder, chunks []Chunk, replace *Filter) error {
	if len(chunks) > 0 {
		if got := e.Info(); got != s.model {
			return errs.New(errs.RAG, "kb.Ingest", "embedder %s (%d dims) does not match the store's %s (%d dims)", got.ID, got.Dims, s.model.ID, s.model.Dims)
		}
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
	return s.CommitReplacing(chunks, replace)
}

// Model is the embedding model the store was built with.
func (s *Store) Model() ModelInfo { return s.model }

// ReindexProgress reports re-embedding progress in chunks.
type ReindexProgress func(done, total int)

// reindexBatch is how many chunks are embedded between progress reports.
const reindexBatch = 64

// Reindex re-embeds every chunk of the store in dir with e and stamps the
// store with e's model, so a store built with another model opens again.
// All vectors are computed first; one transaction then replaces every row
// (new ids, so each process's dense index reloads them) and the model
// record. A cancel or failure before that leaves the store as it was.
func Reindex(ctx context.Context, dir string, e Embedder, progress ReindexProgress) (int, error) {
	const op = "kb.Reindex"
	stored, err := StoredModel(dir)
	if err != nil {
		return 0, err
	}
	// Open under the stored model so the guard passes; the new model is
	// written at the end.
	s, err := Open(dir, stored)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	rows, err := s.db.QueryContext(ctx, `SELECT `+selectCols+` FROM chunks ORDER BY id`)
	if err != nil {
		return 0, errs.Wrap(errs.RAG, op, err)
	}
	var chunks []Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			rows.Close()
			return 0, errs.Wrap(errs.RAG, op, err)
		}
		chunks = append(chunks, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, errs.Wrap(errs.RAG, op, err)
	}
	info := e.Info()
	for start := 0; start < len(chunks); start += reindexBatch {
		if err := ctx.Err(); err != nil {
			return 0, errs.Wrap(errs.Cancelled, op, err)
		}
		part := chunks[start:min(start+reindexBatch, len(chunks))]
		texts := make([]string, len(part))
		for i, c := range part {
			texts[i] = c.EmbedText
		}
		vecs, err := e.EmbedDocuments(ctx, texts)
		if err != nil {
			return 0, errs.Wrap(errs.RAG, op, err)
		}
		for i := range part {
			part[i].Vector = vecs[i]
		}
		if progress != nil {
			progress(start+len(part), len(chunks))
		}
	}
	for _, c := range chunks {
		if err := validateChunk(c, info.Dims); err != nil {
			return 0, errs.Wrap(errs.Invalid, op, err)
		}
	}
	tx, err := s.db.BeginTx(context.Background(), nil)
	if err != nil {
		return 0, errs.Wrap(errs.RAG, op, err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM chunks`); err != nil {
		return 0, errs.Wrap(errs.RAG, op, err)
	}
	if err := s.insertChunks(context.Background(), tx, op, chunks); err != nil {
		return 0, err
	}
	for k, v := range map[string]string{"embed_model": info.ID, "embed_dims": strconv.Itoa(info.Dims)} {
		if _, err := tx.Exec(`UPDATE meta SET value = ? WHERE key = ?`, v, k); err != nil {
			return 0, errs.Wrap(errs.RAG, op, err)
		}
	}
	if err := bumpGeneration(context.Background(), tx); err != nil {
		return 0, errs.Wrap(errs.RAG, op, err)
	}
	return len(chunks), errs.Wrap(errs.RAG, op, tx.Commit())
}

// StoredModel reads the model record of the store in dir without opening it
// under a model (a fresh dir reports the zero ModelInfo).
func StoredModel(dir string) (ModelInfo, error) {
	const op = "kb.Reindex"
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DBName)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return ModelInfo{}, errs.Wrap(errs.RAG, op, err)
	}
	defer db.Close()
	var id, dims string
	err = db.QueryRow(`SELECT (SELECT value FROM meta WHERE key='embed_model'), (SELECT value FROM meta WHERE key='embed_dims')`).Scan(&id, &dims)
	if err != nil {
		return ModelInfo{}, errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "no knowledge base in %s", dir), "nothing to reindex yet")
	}
	n, err := strconv.Atoi(dims)
	if err != nil {
		return ModelInfo{}, errs.Wrapf(errs.RAG, op, err, "bad embed_dims %q", dims)
	}
	return ModelInfo{ID: id, Dims: n}, nil
}
