// Package ledger records every request Jarvis sends to a model service:
// when, from which process, for what, to whom, which documents' text it
// carried, how big it was and how it ended. A record is written before the
// request leaves and completed after; a request whose record cannot be
// written is not sent. The window, the Library and `jarvis-cli ledger` read
// the same records.
//
// The ledger is its own SQLite file beside the knowledge base: a rebuilt
// index must not forget what was sent.
package ledger

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// FileName is the ledger's file inside its folder.
const FileName = "ledger.db"

// Outcome is how a request ended.
type Outcome string

// Outcomes. Sending is a record whose process is still running; Incomplete
// one whose process ended (killed, crashed) before completing it: the
// request may or may not have reached the service.
const (
	Sending    Outcome = "sending"
	OK         Outcome = "ok"
	CutOff     Outcome = "cut off"   // the answer stopped at the token limit
	Refused    Outcome = "refused"   // the model declined, or the user did before sending
	Failed     Outcome = "error"     // the service or the network failed
	Cancelled  Outcome = "cancelled" // stopped by the user
	Incomplete Outcome = "incomplete"
)

// Source is one document whose text a request carried.
type Source struct {
	Key   string `json:"key"`
	Title string `json:"title,omitempty"`
}

// Record is one request.
type Record struct {
	ID       int64     `json:"id"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	PID      int       `json:"pid"`
	Process  string    `json:"process"` // the program that sent it: jarvis, jarvis-cli, …
	Purpose  string    `json:"purpose"` // chat turn, compaction, digest scoring, figure caption, …
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	// Local marks a service Jarvis runs on this machine (Ollama): recorded
	// too, but nothing left the machine.
	Local         bool     `json:"local"`
	Session       string   `json:"session,omitempty"`
	Sources       []Source `json:"sources,omitempty"`
	RequestBytes  int64    `json:"request_bytes"`
	ResponseBytes int64    `json:"response_bytes"`
	InputTokens   int      `json:"input_tokens,omitempty"`
	OutputTokens  int      `json:"output_tokens,omitempty"`
	CostUSD       float64  `json:"cost_usd,omitempty"`
	Outcome       Outcome  `json:"outcome"`
	Error         string   `json:"error,omitempty"`
	// Body is the request as sent, secrets redacted; kept for keep_days
	// and then dropped, the record staying.
	Body string `json:"body,omitempty"`
}

// Result is what is known once a request has ended.
type Result struct {
	ResponseBytes int64
	InputTokens   int
	OutputTokens  int
	CostUSD       float64
	Outcome       Outcome
	Error         string
}

// Ledger is an open ledger file. Several processes may write one at once.
type Ledger struct {
	db *sql.DB
	// keepBody says whether request bodies are stored at all
	// (keep_days > 0); settings may change it while the process runs.
	keepBody atomic.Bool
	now      func() time.Time
}

// SetKeepDays applies a changed [ledger] keep_days to later requests.
func (l *Ledger) SetKeepDays(days int) { l.keepBody.Store(days > 0) }

var (
	sharedMu sync.Mutex
	shared   = map[string]*Ledger{}
)

// Shared returns the process's one open ledger in dir, opening it on first
// use: every provider a process builds writes through the same handle.
func Shared(dir string, keepDays int) (*Ledger, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if l := shared[dir]; l != nil {
		l.SetKeepDays(keepDays)
		return l, nil
	}
	l, err := Open(dir, keepDays)
	if err != nil {
		return nil, err
	}
	shared[dir] = l
	return l, nil
}

const schema = `
CREATE TABLE IF NOT EXISTS sends (
	id INTEGER PRIMARY KEY,
	started INTEGER NOT NULL,   -- unix ms
	finished INTEGER NOT NULL DEFAULT 0,
	pid INTEGER NOT NULL,
	process TEXT NOT NULL,
	purpose TEXT NOT NULL,
	provider TEXT NOT NULL,
	model TEXT NOT NULL,
	local INTEGER NOT NULL,
	session TEXT NOT NULL,
	request_bytes INTEGER NOT NULL,
	response_bytes INTEGER NOT NULL DEFAULT 0,
	input_tokens INTEGER NOT NULL DEFAULT 0,
	output_tokens INTEGER NOT NULL DEFAULT 0,
	cost_usd REAL NOT NULL DEFAULT 0,
	outcome TEXT NOT NULL,
	error TEXT NOT NULL DEFAULT '',
	body TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS send_sources (
	send INTEGER NOT NULL REFERENCES sends(id) ON DELETE CASCADE,
	key TEXT NOT NULL,
	title TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sends_session ON sends(session, started);
CREATE INDEX IF NOT EXISTS sends_started ON sends(started);
CREATE INDEX IF NOT EXISTS send_sources_key ON send_sources(key, send);
CREATE INDEX IF NOT EXISTS send_sources_send ON send_sources(send);
`

// Open opens (creating if needed) the ledger in dir, forcing the folder to
// 0700 and the file to 0600: bodies hold the text of the notes that were
// sent.
func Open(dir string, keepDays int) (*Ledger, error) {
	const op = "ledger.open"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	path := filepath.Join(dir, FileName)
	// SQLite gives its -wal and -shm files the main file's mode.
	if err := fsutil.EnsurePrivateFile(path); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=secure_delete(1)&_txlock=immediate")
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, errs.Wrapf(errs.Internal, op, err, "create %s", path)
	}
	l := &Ledger{db: db, now: time.Now}
	l.SetKeepDays(keepDays)
	return l, nil
}

// Close closes the file.
func (l *Ledger) Close() error { return l.db.Close() }

// Begin writes a request's record before it is sent and returns its id.
// An error means the request must not go out.
func (l *Ledger) Begin(ctx context.Context, r Record) (int64, error) {
	const op = "ledger.begin"
	if r.Started.IsZero() {
		r.Started = l.now()
	}
	if r.PID == 0 {
		r.PID = os.Getpid()
	}
	if r.Process == "" {
		r.Process = filepath.Base(os.Args[0])
	}
	if !l.keepBody.Load() {
		r.Body = ""
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, errs.Wrap(errs.Internal, op, err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	res, err := tx.ExecContext(ctx, `INSERT INTO sends(started, pid, process, purpose, provider, model, local, session, request_bytes, outcome, body)
		VALUES(?,?,?,?,?,?,?,?,?,?,?)`, r.Started.UnixMilli(), r.PID, r.Process, r.Purpose, r.Provider, r.Model, r.Local, r.Session, r.RequestBytes, string(Sending), r.Body)
	if err != nil {
		return 0, errs.Wrap(errs.Internal, op, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, errs.Wrap(errs.Internal, op, err)
	}
	for _, s := range dedupe(r.Sources) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO send_sources(send, key, title) VALUES(?,?,?)`, id, s.Key, s.Title); err != nil {
			return 0, errs.Wrap(errs.Internal, op, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, errs.Wrap(errs.Internal, op, err)
	}
	return id, nil
}

func dedupe(ss []Source) []Source {
	seen := map[string]bool{}
	out := ss[:0:0]
	for _, s := range ss {
		if s.Key != "" && !seen[s.Key] {
			seen[s.Key] = true
			out = append(out, s)
		}
	}
	return out
}

// Finish completes a record. It runs even when the request's context was
// cancelled: a stopped request is recorded as such.
func (l *Ledger) Finish(id int64, r Result) error {
	if r.Outcome == "" {
		r.Outcome = OK
	}
	_, err := l.db.Exec(`UPDATE sends SET finished=?, response_bytes=?, input_tokens=?, output_tokens=?, cost_usd=?, outcome=?, error=? WHERE id=?`,
		l.now().UnixMilli(), r.ResponseBytes, r.InputTokens, r.OutputTokens, r.CostUSD, string(r.Outcome), r.Error, id)
	return errs.Wrap(errs.Internal, "ledger.finish", err)
}

// Filter narrows a listing; zero fields match everything.
type Filter struct {
	Session  string
	Source   string // a document key
	Provider string
	Purpose  string
	Since    time.Time
	// CloudOnly leaves out requests to local services.
	CloudOnly bool
	// Limit caps the records returned, newest first (0: all).
	Limit int
}

// List returns the records matching f, newest first, with their sources
// and bodies.
func (l *Ledger) List(ctx context.Context, f Filter) ([]Record, error) {
	const op = "ledger.list"
	var where []string
	var args []any
	if f.Session != "" {
		where, args = append(where, "session = ?"), append(args, f.Session)
	}
	if f.Source != "" {
		where, args = append(where, "id IN (SELECT send FROM send_sources WHERE key = ?)"), append(args, f.Source)
	}
	if f.Provider != "" {
		where, args = append(where, "provider = ?"), append(args, f.Provider)
	}
	if f.Purpose != "" {
		where, args = append(where, "purpose = ?"), append(args, f.Purpose)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "started >= ?"), append(args, f.Since.UnixMilli())
	}
	if f.CloudOnly {
		where = append(where, "local = 0")
	}
	q := `SELECT id, started, finished, pid, process, purpose, provider, model, local, session, request_bytes, response_bytes,
		input_tokens, output_tokens, cost_usd, outcome, error, body FROM sends`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY started DESC, id DESC"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	defer rows.Close()
	var out []Record
	byID := map[int64]int{}
	for rows.Next() {
		var r Record
		var started, finished int64
		var outcome string
		if err := rows.Scan(&r.ID, &started, &finished, &r.PID, &r.Process, &r.Purpose, &r.Provider, &r.Model, &r.Local, &r.Session,
			&r.RequestBytes, &r.ResponseBytes, &r.InputTokens, &r.OutputTokens, &r.CostUSD, &outcome, &r.Error, &r.Body); err != nil {
			return nil, errs.Wrap(errs.Internal, op, err)
		}
		r.Started = time.UnixMilli(started)
		if finished > 0 {
			r.Finished = time.UnixMilli(finished)
		}
		r.Outcome = Outcome(outcome)
		if r.Outcome == Sending && !alive(r.PID) {
			r.Outcome = Incomplete
		}
		byID[r.ID] = len(out)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if len(out) == 0 {
		return out, nil
	}
	ids := make([]string, 0, len(out))
	for _, r := range out {
		ids = append(ids, strconv.FormatInt(r.ID, 10))
	}
	srows, err := l.db.QueryContext(ctx, `SELECT send, key, title FROM send_sources WHERE send IN (`+strings.Join(ids, ",")+`) ORDER BY rowid`)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	defer srows.Close()
	for srows.Next() {
		var id int64
		var s Source
		if err := srows.Scan(&id, &s.Key, &s.Title); err != nil {
			return nil, errs.Wrap(errs.Internal, op, err)
		}
		i := byID[id]
		out[i].Sources = append(out[i].Sources, s)
	}
	return out, errs.Wrap(errs.Internal, op, srows.Err())
}

// alive reports whether a process with this id is running. Signal 0
// checks without disturbing it; EPERM means it runs under another user.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Sent is how often a document's text went to a cloud service.
type Sent struct {
	Times int       `json:"times"`
	Last  time.Time `json:"last"`
}

// SentByDocument counts, for each document key, the cloud requests that
// carried its text.
func (l *Ledger) SentByDocument(ctx context.Context) (map[string]Sent, error) {
	const op = "ledger.sent"
	rows, err := l.db.QueryContext(ctx, `SELECT ss.key, COUNT(*), MAX(s.started) FROM send_sources ss JOIN sends s ON s.id = ss.send
		WHERE s.local = 0 GROUP BY ss.key`)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	defer rows.Close()
	out := map[string]Sent{}
	for rows.Next() {
		var key string
		var n int
		var last int64
		if err := rows.Scan(&key, &n, &last); err != nil {
			return nil, errs.Wrap(errs.Internal, op, err)
		}
		out[key] = Sent{Times: n, Last: time.UnixMilli(last)}
	}
	return out, errs.Wrap(errs.Internal, op, rows.Err())
}

// Prune drops the bodies of records older than keepDays (all of them when
// keepDays is 0); the records themselves stay. It returns how many bodies
// went. Dropped text is overwritten (secure_delete) and the file shrinks
// (VACUUM): a body past its days is gone from the disk, not only from view.
func (l *Ledger) Prune(ctx context.Context, keepDays int) (int64, error) {
	cut := l.now().AddDate(0, 0, -keepDays).UnixMilli()
	if keepDays <= 0 {
		cut = l.now().UnixMilli() + 1
	}
	res, err := l.db.ExecContext(ctx, `UPDATE sends SET body = '' WHERE body != '' AND started < ?`, cut)
	if err != nil {
		return 0, errs.Wrap(errs.Internal, "ledger.prune", err)
	}
	n, _ := res.RowsAffected() // the driver always reports it
	if n > 0 {
		if _, err := l.db.ExecContext(ctx, `VACUUM`); err != nil {
			return n, errs.Wrap(errs.Internal, "ledger.prune", err)
		}
	}
	return n, nil
}

// Snapshot copies the ledger in dir to dest (a new file) while other
// processes keep writing, as a backup does. A dir without a ledger is
// errs.NotFound.
func Snapshot(ctx context.Context, dir, dest string) error {
	const op = "ledger.snapshot"
	src := filepath.Join(dir, FileName)
	if _, err := os.Stat(src); errors.Is(err, os.ErrNotExist) {
		return errs.New(errs.NotFound, op, "no ledger at %s", dir)
	}
	db, err := sql.Open("sqlite", "file:"+src+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return errs.Wrapf(errs.Internal, op, err, "cannot copy the ledger to %s", dest)
	}
	return errs.Wrap(errs.Internal, op, os.Chmod(dest, 0o600))
}
