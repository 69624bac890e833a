package kb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // the store's driver: pure Go, FTS5 included

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// DBName is the store's file inside the rag dir.
const DBName = "jarvis.sqlite"

const schemaVersion = 1

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
	id              INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: the vector index keys on it
	doc_type        TEXT NOT NULL,
	visibility      TEXT NOT NULL CHECK (visibility IN ('public','private')),
	source          TEXT NOT NULL,
	title           TEXT NOT NULL DEFAULT '',
	authors         TEXT NOT NULL DEFAULT '',
	doi             TEXT NOT NULL DEFAULT '',
	score           INTEGER,
	track           TEXT NOT NULL DEFAULT '',
	storage_mode    TEXT NOT NULL DEFAULT '',
	file_path       TEXT NOT NULL DEFAULT '',
	content_hash    TEXT NOT NULL DEFAULT '',
	chunk_index     INTEGER NOT NULL DEFAULT 0,
	section         TEXT NOT NULL DEFAULT '',
	modified_at     TEXT NOT NULL DEFAULT '',
	meta_schema     INTEGER NOT NULL DEFAULT 0,
	date_added      TEXT NOT NULL DEFAULT '',
	category        TEXT NOT NULL DEFAULT '',
	status          TEXT NOT NULL DEFAULT '',
	entity          TEXT NOT NULL DEFAULT '',
	event_date      TEXT NOT NULL DEFAULT '',
	tags            TEXT NOT NULL DEFAULT '',
	annotation_kind TEXT NOT NULL DEFAULT '',
	page            INTEGER NOT NULL DEFAULT 0,
	note_text       TEXT NOT NULL DEFAULT '',
	extra           TEXT NOT NULL DEFAULT '{}',
	content         TEXT NOT NULL,
	embed_text      TEXT NOT NULL,
	vector          BLOB
);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_path);
CREATE INDEX IF NOT EXISTS chunks_pool ON chunks(visibility, doc_type);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(embed_text, content='chunks', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS chunks_ai AFTER INSERT ON chunks BEGIN
	INSERT INTO chunks_fts(rowid, embed_text) VALUES (new.id, new.embed_text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunks BEGIN
	INSERT INTO chunks_fts(chunks_fts, rowid, embed_text) VALUES ('delete', old.id, old.embed_text);
END;
`

// ModelInfo identifies the embedding model a store's vectors belong to.
type ModelInfo struct {
	ID   string
	Dims int
}

// Store is one open knowledge base.
type Store struct {
	db    *sql.DB
	path  string
	model ModelInfo

	// failAfterInserts, when > 0, makes Commit fail after that many inserts
	// (tests use it to prove a failed commit changes nothing).
	failAfterInserts int
}

// Open opens (creating if needed) the store in dir, whose mode is forced to
// 0700 because it holds the full text of private notes. A store created for
// a different embedding model refuses to open and names the fix.
func Open(dir string, model ModelInfo) (*Store, error) {
	const op = "kb.Open"
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	path := filepath.Join(dir, DBName)
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	s := &Store{db: db, path: path, model: model}
	if err := s.init(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) init() error {
	const op = "kb.Open"
	if _, err := s.db.Exec(schema); err != nil {
		return errs.Wrapf(errs.RAG, op, err, "cannot create schema in %s", s.path)
	}
	tx, err := s.db.Begin()
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	defer tx.Rollback()
	stored := map[string]string{}
	rows, err := tx.Query(`SELECT key, value FROM meta`)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return errs.Wrap(errs.RAG, op, err)
		}
		stored[k] = v
	}
	rows.Close()
	if id, ok := stored["embed_model"]; ok {
		if id != s.model.ID || stored["embed_dims"] != strconv.Itoa(s.model.Dims) {
			return errs.WithHint(errs.New(errs.RAG, op, "the knowledge base was built with %s (%s dims) but %s (%d dims) is configured",
				id, stored["embed_dims"], s.model.ID, s.model.Dims), "run `jarvis-cli kb reindex` to re-embed it with the configured model")
		}
		return nil
	}
	for k, v := range map[string]string{"embed_model": s.model.ID, "embed_dims": strconv.Itoa(s.model.Dims), "generation": "0", "schema_version": strconv.Itoa(schemaVersion)} {
		if _, err := tx.Exec(`INSERT INTO meta(key, value) VALUES (?, ?)`, k, v); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
	}
	return errs.Wrap(errs.RAG, op, tx.Commit())
}

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// Generation is the commit counter; it moves whenever any process commits.
func (s *Store) Generation(ctx context.Context) (int64, error) {
	var v string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='generation'`).Scan(&v); err != nil {
		return 0, errs.Wrap(errs.RAG, "kb.Generation", err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, errs.Wrap(errs.RAG, "kb.Generation", err)
}

func bumpGeneration(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation'`)
	return err
}

// Commit is the only write of new chunks: in one transaction it deletes every
// chunk of replaceSource (when set) and inserts chunks, then bumps the
// generation. It is deliberately not cancellable once started — the commit is
// the point of no return — and any failure rolls everything back.
func (s *Store) Commit(chunks []Chunk, replaceSource string) error {
	var replace *Filter
	if replaceSource != "" {
		replace = &Filter{Source: replaceSource}
	}
	return s.CommitReplacing(chunks, replace)
}

// CommitReplacing is Commit with the replaced set given as a filter (vault
// notes share source "local" and are replaced by file_path). An empty filter
// is refused: it would replace everything.
func (s *Store) CommitReplacing(chunks []Chunk, replace *Filter) error {
	const op = "kb.Commit"
	ctx := context.Background()
	for i, c := range chunks {
		if err := validateChunk(c, s.model.Dims); err != nil {
			return errs.Wrapf(errs.Invalid, op, err, "chunk %d", i)
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	defer tx.Rollback() // no-op after Commit
	if replace != nil {
		where, args, err := replace.where()
		if err != nil {
			return err
		}
		if where == "1=1" {
			return errs.New(errs.Invalid, op, "refusing to replace with an empty filter")
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM chunks AS c WHERE `+where, args...); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
	}
	if err := s.insertChunks(ctx, tx, op, chunks); err != nil {
		return err
	}
	if err := bumpGeneration(ctx, tx); err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	return errs.Wrap(errs.RAG, op, tx.Commit())
}

// insertChunks writes validated chunks inside tx, stamping date_added on new
// ones; the caller commits.
func (s *Store) insertChunks(ctx context.Context, tx *sql.Tx, op string, chunks []Chunk) error {
	stmt, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	defer stmt.Close()
	now := time.Now().UTC().Format(time.RFC3339)
	for i, c := range chunks {
		if s.failAfterInserts > 0 && i == s.failAfterInserts {
			return errs.New(errs.RAG, op, "injected failure after %d inserts", i)
		}
		if c.Meta.DateAdded == "" {
			c.Meta.DateAdded = now
		}
		if _, err := stmt.ExecContext(ctx, insertArgs(c)...); err != nil {
			return errs.Wrapf(errs.RAG, op, err, "inserting chunk %d of %s", i, c.Meta.Source)
		}
	}
	return nil
}

func validateChunk(c Chunk, dims int) error {
	switch {
	case c.Content == "" || c.EmbedText == "":
		return errors.New("empty content")
	case c.Meta.Source == "" || c.Meta.DocType == "":
		return errors.New("source and doc_type are required")
	case c.Meta.Visibility != Public && c.Meta.Visibility != Private:
		return fmt.Errorf("visibility %q", c.Meta.Visibility)
	case c.Meta.DocType == DocPaper && c.Meta.Visibility != Public:
		return errors.New("papers are always public")
	case c.Vector != nil && len(c.Vector) != dims:
		return fmt.Errorf("vector has %d dims, store expects %d", len(c.Vector), dims)
	}
	return nil
}

const insertSQL = `INSERT INTO chunks (doc_type, visibility, source, title, authors, doi, score, track, storage_mode,
	file_path, content_hash, chunk_index, section, modified_at, meta_schema, date_added, category, status, entity,
	event_date, tags, annotation_kind, page, note_text, extra, content, embed_text, vector)
	VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`

func insertArgs(c Chunk) []any {
	m := c.Meta
	extra, _ := json.Marshal(m.Extra) // map[string]string always marshals
	if m.Extra == nil {
		extra = []byte("{}")
	}
	var score any
	if m.Score != nil {
		score = *m.Score
	}
	return []any{m.DocType, m.Visibility, m.Source, m.Title, m.Authors, m.DOI, score, m.Track, m.StorageMode,
		m.FilePath, m.ContentHash, m.ChunkIndex, m.Section, m.ModifiedAt, m.MetaSchema, m.DateAdded, m.Category, m.Status,
		m.Entity, m.EventDate, m.Tags, m.AnnotationKind, m.Page, m.NoteText, string(extra), c.Content, c.EmbedText, encodeVector(c.Vector)}
}

// encodeVector stores float32s little-endian; nil stays NULL.
func encodeVector(v []float32) any {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func decodeVector(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

const selectCols = `id, doc_type, visibility, source, title, authors, doi, score, track, storage_mode, file_path, content_hash,
	chunk_index, section, modified_at, meta_schema, date_added, category, status, entity, event_date, tags, annotation_kind,
	page, note_text, extra, content, embed_text`

// scanChunk scans selectCols, plus any extra trailing columns into extraCols.
func scanChunk(sc interface{ Scan(...any) error }, extraCols ...any) (Chunk, error) {
	var c Chunk
	var score sql.NullInt64
	var extra string
	m := &c.Meta
	dest := []any{&c.ID, &m.DocType, &m.Visibility, &m.Source, &m.Title, &m.Authors, &m.DOI, &score, &m.Track, &m.StorageMode,
		&m.FilePath, &m.ContentHash, &m.ChunkIndex, &m.Section, &m.ModifiedAt, &m.MetaSchema, &m.DateAdded, &m.Category, &m.Status,
		&m.Entity, &m.EventDate, &m.Tags, &m.AnnotationKind, &m.Page, &m.NoteText, &extra, &c.Content, &c.EmbedText}
	if err := sc.Scan(append(dest, extraCols...)...); err != nil {
		return c, err
	}
	if score.Valid {
		n := int(score.Int64)
		m.Score = &n
	}
	if extra != "" && extra != "{}" {
		_ = json.Unmarshal([]byte(extra), &m.Extra) // written by insertArgs; a bad row just loses its extras
	}
	return c, nil
}
