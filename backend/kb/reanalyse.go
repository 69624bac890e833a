package kb

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// A store's lexical entries were made by the analyser of meta's
// lex_version (absent: version 1, before the language-aware analyser).
// A store behind lexVersion is re-analysed in the background, one committed
// batch at a time: meanwhile the old entries keep serving search (a row
// holds either its old or its new entries, never none), the cursor in
// meta's lex_cursor survives a kill, and the version moves only once the
// last row is done. Rows committed meanwhile are analysed by the current
// analyser already; passing over them again is harmless.

// ReanalyseBatch is how many chunks one re-analysis transaction rewrites.
var ReanalyseBatch = 500

// LexStale reports whether the store's lexical entries predate this
// analyser, and how many chunks are still to re-analyse.
func (s *Store) LexStale(ctx context.Context) (stale bool, left int, err error) {
	const op = "kb.LexStale"
	v, cursor, err := lexState(ctx, s.db)
	if err != nil {
		return false, 0, errs.Wrap(errs.RAG, op, err)
	}
	if v >= lexVersion {
		return false, 0, nil
	}
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE id > ?`, cursor).Scan(&left); err != nil {
		return false, 0, errs.Wrap(errs.RAG, op, err)
	}
	return true, left, nil
}

// lexState reads the analyser version and the re-analysis cursor.
func lexState(ctx context.Context, q rowQuerier) (version int, cursor int64, err error) {
	var v, c sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key='lex_version'), (SELECT value FROM meta WHERE key='lex_cursor')`).Scan(&v, &c); err != nil {
		return 0, 0, err
	}
	version = 1
	if v.Valid {
		if version, err = strconv.Atoi(v.String); err != nil {
			return 0, 0, err
		}
	}
	if c.Valid {
		if cursor, err = strconv.ParseInt(c.String, 10, 64); err != nil {
			return 0, 0, err
		}
	}
	return version, cursor, nil
}

// setLexCurrent marks the store's entries as this analyser's (a new store,
// or a migration that analysed every row inside its transaction).
func setLexCurrent(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('lex_version', ?)`, strconv.Itoa(lexVersion)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM meta WHERE key = 'lex_cursor'`)
	return err
}

// ReanalyseLex brings a stale store's lexical entries to this analyser,
// calling progress after each batch with the chunks done so far and the
// total. It returns how many chunks it rewrote; a cancelled context stops
// it between batches with everything committed so far kept.
func ReanalyseLex(ctx context.Context, s *Store, progress func(done, total int)) (int, error) {
	const op = "kb.ReanalyseLex"
	stale, total, err := s.LexStale(ctx)
	if err != nil || !stale {
		return 0, err
	}
	done := 0
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		var n int
		var finished bool
		var learned map[string]int64
		err := s.writeTx(ctx, op, func(tx *sql.Tx) error {
			v, cursor, err := lexState(ctx, tx)
			if err != nil {
				return err
			}
			if v >= lexVersion {
				finished = true // another process finished it
				return nil
			}
			chunks, err := chunksAfter(ctx, tx, cursor, ReanalyseBatch)
			if err != nil {
				return err
			}
			if len(chunks) == 0 {
				finished = true
				return setLexCurrent(ctx, tx)
			}
			gen, err := bumpGeneration(ctx, tx)
			if err != nil {
				return err
			}
			learned = map[string]int64{}
			lex := make([][]byte, len(chunks))
			if err := s.encodeLex(ctx, tx, chunks, lex, learned); err != nil {
				return err
			}
			upd, err := tx.PrepareContext(ctx, `UPDATE chunks SET lex = ?, rev = ? WHERE id = ?`)
			if err != nil {
				return err
			}
			defer upd.Close()
			for i, c := range chunks {
				if _, err := upd.ExecContext(ctx, lex[i], gen, c.ID); err != nil {
					return err
				}
			}
			n = len(chunks)
			_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key, value) VALUES ('lex_cursor', ?)`, strconv.FormatInt(chunks[len(chunks)-1].ID, 10))
			return err
		})
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return done, err
			}
			return done, errs.Wrap(errs.RAG, op, err)
		}
		s.terms.merge(learned)
		done += n
		if progress != nil && n > 0 {
			progress(done, max(total, done))
		}
		if finished {
			return done, nil
		}
	}
}

// chunksAfter reads up to limit chunks with ids above after, in id order.
func chunksAfter(ctx context.Context, tx *sql.Tx, after int64, limit int) ([]Chunk, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+selectCols+` FROM chunks WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
