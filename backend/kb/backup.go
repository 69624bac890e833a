package kb

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// The SQLite side of backup and restore, and of `doctor`'s integrity check.
// These work on the database file directly, without loading any model: a
// backup must not need the embedder, and a broken store is exactly when the
// integrity check matters.

// StorePath is the database file of the store in dir.
func StorePath(dir string) string { return filepath.Join(dir, DBName) }

// SnapshotInfo describes a store copy.
type SnapshotInfo struct {
	EmbedModel string `json:"embed_model"`
	EmbedDims  int    `json:"embed_dims"`
	Generation int64  `json:"generation"`
	Chunks     int64  `json:"chunks"`
}

// Snapshot writes a consistent copy of the store in dir to dest with VACUUM
// INTO: one read transaction, so writers in other processes carry on and the
// copy holds exactly the commits made before it began. dest must not exist.
// A dir without a store is an errs.NotFound.
func Snapshot(ctx context.Context, dir, dest string) (SnapshotInfo, error) {
	const op = "kb.Snapshot"
	src := StorePath(dir)
	if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
		return SnapshotInfo{}, errs.New(errs.NotFound, op, "no knowledge base at %s", dir)
	}
	db, err := openFile(src, false)
	if err != nil {
		return SnapshotInfo{}, errs.Wrap(errs.RAG, op, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dest); err != nil {
		return SnapshotInfo{}, errs.Wrapf(errs.RAG, op, err, "cannot copy the store to %s", dest)
	}
	if err := os.Chmod(dest, 0o600); err != nil {
		return SnapshotInfo{}, errs.Wrap(errs.Internal, op, err)
	}
	return ReadSnapshotInfo(ctx, dest)
}

// ReadSnapshotInfo reads a store file's model, generation and size without
// touching it (the file is opened immutable, so no -wal or -shm appears
// next to a backup copy).
func ReadSnapshotInfo(ctx context.Context, path string) (SnapshotInfo, error) {
	const op = "kb.SnapshotInfo"
	db, err := openFile(path, true)
	if err != nil {
		return SnapshotInfo{}, errs.Wrap(errs.RAG, op, err)
	}
	defer db.Close()
	var info SnapshotInfo
	meta := map[string]string{}
	rows, err := db.QueryContext(ctx, `SELECT key, value FROM meta`)
	if err != nil {
		return info, errs.Wrapf(errs.RAG, op, err, "%s is not a Jarvis store", path)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return info, errs.Wrap(errs.RAG, op, err)
		}
		meta[k] = v
	}
	if err := rows.Err(); err != nil {
		return info, errs.Wrap(errs.RAG, op, err)
	}
	info.EmbedModel = meta["embed_model"]
	if info.EmbedDims, err = strconv.Atoi(meta["embed_dims"]); err != nil {
		return info, errs.Wrapf(errs.RAG, op, err, "%s has no valid embed_dims", path)
	}
	if info.Generation, err = strconv.ParseInt(meta["generation"], 10, 64); err != nil {
		return info, errs.Wrapf(errs.RAG, op, err, "%s has no valid generation", path)
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&info.Chunks); err != nil {
		return info, errs.Wrap(errs.RAG, op, err)
	}
	return info, nil
}

// CheckIntegrity runs PRAGMA integrity_check on a store file and returns
// nil when SQLite answers "ok", else an errs.RAG listing the first problems.
// immutable opens a file no process is using (a backup copy) without
// creating journal files; a live store is opened normally.
func CheckIntegrity(ctx context.Context, path string, immutable bool) error {
	const op = "kb.CheckIntegrity"
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return errs.New(errs.NotFound, op, "no store file %s", path)
	}
	db, err := openFile(path, immutable)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check(20)`)
	if err != nil {
		return errs.Wrapf(errs.RAG, op, err, "%s cannot be checked", path)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return errs.Wrapf(errs.RAG, op, err, "%s cannot be checked", path)
	}
	if len(problems) > 0 {
		return errs.New(errs.RAG, op, "%s fails the integrity check: %s", path, strings.Join(problems, "; "))
	}
	return nil
}

// openFile opens an existing database file (never creating one). An
// immutable open reads a file nobody writes without locks or journal files.
func openFile(path string, immutable bool) (*sql.DB, error) {
	dsn := "file:" + path + "?mode=rw&_pragma=busy_timeout(10000)"
	if immutable {
		dsn = "file:" + path + "?mode=ro&immutable=1"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
