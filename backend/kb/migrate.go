package kb

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// migrateV1 upgrades a store written by the first release, in place and in
// the caller's one write transaction (a failure or a kill leaves the v1
// store as it was): vectors move to the vectors table under the store's
// model, the FTS5 index and its triggers give way to the stemmed lexical
// entries computed here for every chunk, and rows get their generation.
func (s *Store) migrateV1(ctx context.Context, tx *sql.Tx) error {
	var model, dims sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key='embed_model'), (SELECT value FROM meta WHERE key='embed_dims')`).Scan(&model, &dims); err != nil {
		return fmt.Errorf("migrate: read model: %w", err)
	}
	gen, err := bumpGeneration(ctx, tx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	steps := []string{
		`DROP TRIGGER IF EXISTS chunks_ai`,
		`DROP TRIGGER IF EXISTS chunks_ad`,
		`DROP TABLE IF EXISTS chunks_fts`,
		`ALTER TABLE chunks ADD COLUMN lex BLOB NOT NULL DEFAULT x''`,
		`ALTER TABLE chunks ADD COLUMN rev INTEGER NOT NULL DEFAULT 0`,
	}
	for _, q := range steps {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("migrate: %s: %w", q, err)
		}
	}
	// The rest of the v2 schema (new tables, indexes, the deletion trigger).
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("migrate: schema: %w", err)
	}
	if n, err := strconv.Atoi(dims.String); err == nil && model.String != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO vectors(model, chunk_id, gen, vector)
			SELECT ?, id, ?, vector FROM chunks WHERE vector IS NOT NULL AND length(vector) = ?`, model.String, gen, 4*n); err != nil {
			return fmt.Errorf("migrate: vectors: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE chunks DROP COLUMN vector`); err != nil {
		return fmt.Errorf("migrate: drop vector column: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chunks SET rev = ?`, gen); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// The ids it learns are not cached: this transaction may still roll
	// back, and the cache refills on use.
	if _, err := s.relex(ctx, tx, gen); err != nil {
		return fmt.Errorf("migrate: lexical index: %w", err)
	}
	if err := setLexCurrent(ctx, tx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	_, err = tx.ExecContext(ctx, `UPDATE meta SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(schemaVersion))
	return err
}
