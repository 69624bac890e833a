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
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// DBName is the store's file inside the rag dir.
const DBName = "jarvis.sqlite"

// schemaVersion 2: vectors live in their own table keyed by model (so a
// chunk can wait for its vector, and a new model can fill in beside the
// old one); the lexical index is our own (stemmed terms per chunk); rows
// carry the generation that last wrote them and deletions are logged, so
// every process catches up incrementally.
const schemaVersion = 2

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
	id              INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: the in-memory indexes key on it
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
	lex             BLOB NOT NULL DEFAULT x'',  -- analysed terms, see lexical.go
	rev             INTEGER NOT NULL DEFAULT 0  -- generation of the last write of this row
);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_path);
CREATE INDEX IF NOT EXISTS chunks_pool ON chunks(visibility, doc_type);
CREATE INDEX IF NOT EXISTS chunks_rev ON chunks(rev);
CREATE TABLE IF NOT EXISTS lex_terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
CREATE TABLE IF NOT EXISTS vectors (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	model    TEXT NOT NULL,
	chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
	gen      INTEGER NOT NULL,
	vector   BLOB NOT NULL,
	UNIQUE (model, chunk_id)
);
CREATE INDEX IF NOT EXISTS vectors_chunk ON vectors(chunk_id);
CREATE INDEX IF NOT EXISTS vectors_gen ON vectors(model, gen);
CREATE TABLE IF NOT EXISTS deletions (chunk_id INTEGER NOT NULL, gen INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS deletions_gen ON deletions(gen);
CREATE TRIGGER IF NOT EXISTS chunks_deleted AFTER DELETE ON chunks BEGIN
	INSERT INTO deletions(chunk_id, gen) VALUES (old.id, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'generation'));
END;
`

// ModelInfo identifies an embedding model: vectors of different models
// never mix in one ranking.
type ModelInfo struct {
	ID   string
	Dims int
}

// IsZero reports whether no model is named.
func (m ModelInfo) IsZero() bool { return m.ID == "" }

// Store is one open knowledge base. It opens whatever models are (or are
// not) installed: chunks without a vector wait for the backfill.
type Store struct {
	db   *sql.DB // reads: WAL readers never wait for writers
	wdb  *sql.DB // writes: one connection, BEGIN IMMEDIATE
	path string
	dir  string

	terms termCache

	// prepared holds the statements every search runs, by their SQL: the
	// generation read and the reads of n chunks by id (n up to
	// maxPreparedIDs), where preparing the 28-column statement cost as
	// much as running it.
	prepared sync.Map // string → *sql.Stmt

	hitCache hitCache // searches' chunks, by id and revision

	index     *Index
	indexOnce sync.Once

	// failAfterInserts, when > 0, makes a commit fail after that many inserts
	// (tests use it to prove a failed commit changes nothing).
	failAfterInserts int
}

// WriteWait bounds how long a writer waits for another process's write
// transaction before giving up with a conflict error.
const WriteWait = 30 * time.Second

func dsn(path string, write bool) string {
	d := "file:" + path + "?_pragma=busy_timeout(" + strconv.Itoa(int(WriteWait.Milliseconds())) + ")" +
		"&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	if write {
		// Take the write lock when the transaction begins: a deferred
		// transaction that upgrades from read to write in WAL mode gets
		// SQLITE_BUSY at once instead of waiting its turn.
		d += "&_txlock=immediate"
	}
	return d
}

// Open opens (creating or migrating if needed) the store in dir, whose mode
// is forced to 0700 because it holds the full text of private notes. Several
// processes may open a new store at once: schema creation and migrations
// run inside one write transaction and are re-checked under the lock.
func Open(dir string) (*Store, error) {
	const op = "kb.Open"
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	path := filepath.Join(dir, DBName)
	if err := fsutil.EnsurePrivateFile(path); err != nil { // it holds private notes
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	wdb, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	wdb.SetMaxOpenConns(1) // in-process writers queue here instead of in SQLite's busy loop
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		wdb.Close()
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	s := &Store{db: db, wdb: wdb, path: path, dir: dir}
	if err := s.init(context.Background()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// rowQuerier is what reads a single row: the database or a transaction.
type rowQuerier interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// Dir is the folder holding the store.
func (s *Store) Dir() string { return s.dir }

func (s *Store) version(ctx context.Context, q rowQuerier) (int, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'`).Scan(&n); err != nil || n == 0 {
		return 0, err
	}
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

// openWait bounds how long opening waits for other processes creating the
// same new store.
const openWait = 10 * time.Second

// firstVersion is the first statement on the store. On a new file, each
// connection's first statement switches it to WAL, which needs the file to
// itself for a moment, and SQLite answers BUSY at once there instead of
// waiting out the busy timeout: several processes opening a new store
// together retry briefly.
func (s *Store) firstVersion(ctx context.Context) (int, error) {
	deadline := time.Now().Add(openWait)
	for {
		v, err := s.version(ctx, s.db)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED)
}

func (s *Store) init(ctx context.Context) error {
	const op = "kb.Open"
	v, err := s.firstVersion(ctx)
	if err != nil {
		return errs.Wrapf(errs.RAG, op, err, "cannot read %s", s.path)
	}
	if v == schemaVersion {
		return nil
	}
	if v > schemaVersion {
		return errs.WithHint(errs.New(errs.RAG, op, "%s was written by a newer Jarvis (schema %d, this one knows %d)", s.path, v, schemaVersion),
			"update Jarvis, or restore a backup made by this version")
	}
	return s.writeTx(ctx, op, func(tx *sql.Tx) error {
		v, err := s.version(ctx, tx) // another process may have done it while we waited
		if err != nil {
			return err
		}
		switch v {
		case schemaVersion:
			return nil
		case 0:
			if _, err := tx.ExecContext(ctx, schema); err != nil {
				return fmt.Errorf("cannot create schema in %s: %w", s.path, err)
			}
			for k, val := range map[string]string{"generation": "0", "schema_version": strconv.Itoa(schemaVersion)} {
				if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)`, k, val); err != nil {
					return err
				}
			}
			return setLexCurrent(ctx, tx)
		case 1:
			return s.migrateV1(ctx, tx)
		}
		return fmt.Errorf("unknown schema version %d", v)
	})
}

// writeTx runs fn in one write transaction (the write lock is taken at
// BEGIN), translating a lock held past WriteWait into a conflict error.
func (s *Store) writeTx(ctx context.Context, op string, fn func(*sql.Tx) error) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return s.txErr(op, err)
	}
	defer tx.Rollback() // no-op after Commit
	if err := fn(tx); err != nil {
		return s.txErr(op, err)
	}
	if err := tx.Commit(); err != nil {
		return s.txErr(op, err)
	}
	return nil
}

// txErr keeps domain errors as they are and names a busy database plainly.
func (s *Store) txErr(op string, err error) error {
	var de *errs.Error
	if errors.As(err, &de) {
		return err
	}
	if isBusy(err) {
		return errs.WithHint(errs.Wrapf(errs.Conflict, op, err, "another Jarvis process kept the knowledge base busy for more than %s", WriteWait),
			"try again; if it keeps happening, check `jarvis-cli sync status` for a stuck job")
	}
	return errs.Wrap(errs.RAG, op, err)
}

// Close releases the database.
func (s *Store) Close() error {
	// The index goes with the store: its snapshot mapping would otherwise
	// keep the file's space taken (a restored rag dir) until the process
	// exits.
	ix := s.Index()
	ix.mu.Lock()
	ix.reset()
	ix.mu.Unlock()
	var errList []error
	s.prepared.Range(func(_, st any) bool {
		errList = append(errList, st.(*sql.Stmt).Close())
		return true
	})
	return errors.Join(append(errList, s.db.Close(), s.wdb.Close())...)
}

const generationSQL = `SELECT value FROM meta WHERE key='generation'`

// Generation is the commit counter; it moves whenever any process commits.
// Every search reads it (twice), so its statement is kept prepared.
func (s *Store) Generation(ctx context.Context) (int64, error) {
	st, err := s.prepare(ctx, generationSQL)
	if err != nil {
		return 0, errs.Wrap(errs.RAG, "kb.Generation", err)
	}
	return scanGeneration(st.QueryRowContext(ctx))
}

// prepare returns q prepared on the read pool, preparing it on first use.
func (s *Store) prepare(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := s.prepared.Load(q); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if first, loaded := s.prepared.LoadOrStore(q, st); loaded {
		st.Close() // another caller prepared it first
		return first.(*sql.Stmt), nil
	}
	return st, nil
}

func readGeneration(ctx context.Context, q rowQuerier) (int64, error) {
	return scanGeneration(q.QueryRowContext(ctx, generationSQL))
}

func scanGeneration(row *sql.Row) (int64, error) {
	var v string
	if err := row.Scan(&v); err != nil {
		return 0, errs.Wrap(errs.RAG, "kb.Generation", err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, errs.Wrap(errs.RAG, "kb.Generation", err)
}

// bumpGeneration starts a write: it moves the counter first, so rows and
// deletion records written in this transaction carry the new generation.
func bumpGeneration(ctx context.Context, tx *sql.Tx) (int64, error) {
	var g int64
	err := tx.QueryRowContext(ctx, `UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='generation' RETURNING CAST(value AS INTEGER)`).Scan(&g)
	return g, err
}

// Commit is the only write of new chunks: in one transaction it deletes every
// chunk of replaceSource (when set) and inserts chunks, then bumps the
// generation. It is deliberately not cancellable once started — the commit is
// the point of no return — and any failure rolls everything back. Chunks
// are stored without vectors (the backfill embeds them); Ingest stores
// vectors too.
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
	return s.commit(chunks, replace, ModelInfo{})
}

// commit writes chunks whose vectors (if any) belong to vm. Vectors of a
// model that is neither the store's active model nor the one being filled
// in are not stored: those chunks wait for the backfill like any other.
func (s *Store) commit(chunks []Chunk, replace *Filter, vm ModelInfo) error {
	_, err := s.commitUnless(chunks, replace, vm, nil)
	return err
}

// commitUnless is commit that writes nothing when what replace selects
// already holds same (nil: always write); written says which happened.
func (s *Store) commitUnless(chunks []Chunk, replace *Filter, vm ModelInfo, same *Stored) (written bool, _ error) {
	const op = "kb.Commit"
	ctx := context.Background()
	for i, c := range chunks {
		if err := validateChunk(c, vm); err != nil {
			return false, errs.Wrapf(errs.Invalid, op, err, "chunk %d", i)
		}
	}
	var where string
	var args []any
	if replace != nil {
		var err error
		if where, args, err = replace.where(); err != nil {
			return false, err
		}
		if where == "1=1" {
			return false, errs.New(errs.Invalid, op, "refusing to replace with an empty filter")
		}
	}
	lex := make([][]byte, len(chunks))
	added := map[string]int64{}
	err := s.writeTx(ctx, op, func(tx *sql.Tx) error {
		written = false // a retried transaction decides afresh
		if same != nil {
			if there, err := s.holds(ctx, tx, *replace, *same); err != nil || there {
				return err
			}
		}
		written = true
		gen, err := bumpGeneration(ctx, tx)
		if err != nil {
			return err
		}
		if replace != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM chunks AS c WHERE `+where, args...); err != nil {
				return err
			}
		}
		keep := false
		if len(chunks) > 0 && !vm.IsZero() {
			if keep, err = acceptVectors(ctx, tx, vm); err != nil {
				return err
			}
		}
		if err := s.encodeLex(ctx, tx, chunks, lex, added); err != nil {
			return err
		}
		return s.insertChunks(ctx, tx, op, gen, chunks, lex, keep, vm)
	})
	if err == nil && written {
		s.terms.merge(added)
	}
	return written && err == nil, err
}

// insertChunks writes validated chunks inside tx, stamping date_added on new
// ones and storing their vectors under vm when withVectors is set.
func (s *Store) insertChunks(ctx context.Context, tx *sql.Tx, op string, gen int64, chunks []Chunk, lex [][]byte, withVectors bool, vm ModelInfo) error {
	stmt, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return err
	}
	defer stmt.Close()
	var vstmt *sql.Stmt
	if withVectors {
		if vstmt, err = tx.PrepareContext(ctx, `INSERT INTO vectors(model, chunk_id, gen, vector) VALUES (?, ?, ?, ?)`); err != nil {
			return err
		}
		defer vstmt.Close()
	}
	now := time.Now().UTC().Format(time.RFC3339)
	for i, c := range chunks {
		if s.failAfterInserts > 0 && i == s.failAfterInserts {
			return errs.New(errs.RAG, op, "injected failure after %d inserts", i)
		}
		if c.Meta.DateAdded == "" {
			c.Meta.DateAdded = now
		}
		var id int64
		if err := stmt.QueryRowContext(ctx, append(insertArgs(c), lex[i], gen)...).Scan(&id); err != nil {
			return fmt.Errorf("inserting chunk %d of %s: %w", i, c.Meta.Source, err)
		}
		if withVectors && c.Vector != nil {
			if _, err := vstmt.ExecContext(ctx, vm.ID, id, gen, encodeVector(c.Vector)); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateChunk(c Chunk, vm ModelInfo) error {
	switch {
	case c.Content == "" || c.EmbedText == "":
		return errors.New("empty content")
	case c.Meta.Source == "" || c.Meta.DocType == "":
		return errors.New("source and doc_type are required")
	case c.Meta.Visibility != Public && c.Meta.Visibility != Private:
		return fmt.Errorf("visibility %q", c.Meta.Visibility)
	case c.Meta.DocType == DocPaper && c.Meta.Visibility != Public && !strings.HasPrefix(c.Meta.Source, ZoteroScheme):
		return errors.New("papers are public (only a Zotero item in a private collection is not)")
	case c.Vector != nil && vm.IsZero():
		return errors.New("a vector needs its model")
	case c.Vector != nil && len(c.Vector) != vm.Dims:
		return fmt.Errorf("vector has %d dims, model %s has %d", len(c.Vector), vm.ID, vm.Dims)
	}
	return nil
}

// encodeVector stores float32s little-endian.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// decodeVectorInto fills dst (len = dims) from a stored vector.
func decodeVectorInto(dst []float32, b []byte) bool {
	if len(b) != 4*len(dst) {
		return false
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return true
}

// decodeExtra reads the x_ fields column; a bad row just loses its extras
// (insertArgs always writes valid JSON).
func decodeExtra(extra string) map[string]string {
	if extra == "" || extra == "{}" {
		return nil
	}
	var m map[string]string
	_ = json.Unmarshal([]byte(extra), &m)
	return m
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }
