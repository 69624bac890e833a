// Package fsutil holds the few file-system primitives every store in Jarvis
// shares: crash-safe writes and owner-only directories.
package fsutil

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// PrivateDirMode is used for every directory that can hold private notes,
// sessions or secrets.
const PrivateDirMode os.FileMode = 0o700

// EnsurePrivateDir creates dir (and parents) with mode 0700 and tightens an
// existing dir to 0700. Only directories Jarvis owns are passed here.
func EnsurePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, PrivateDirMode); err != nil {
		return err
	}
	return os.Chmod(dir, PrivateDirMode)
}

// EnsurePrivateFile creates path (empty) with mode 0600 if it is missing and
// tightens it, and the SQLite -wal and -shm files beside it that an older
// version may have left wider, to 0600. A SQLite database is passed here
// before it is opened: SQLite gives the -wal and -shm files it creates the
// main file's mode.
func EnsurePrivateFile(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, 0o600); err != nil && (p == path || !errors.Is(err, fs.ErrNotExist)) {
			return err
		}
	}
	return nil
}

// WriteFileAtomic writes data to path so that readers (and a crash) see either
// the old content or the new, never a torn file: write a temp file in the same
// directory, fsync it, rename it over the target, then fsync the directory.
// The parent directory is created 0700 if missing; an existing one keeps its
// mode.
func WriteFileAtomic(path string, data []byte, mode os.FileMode) error {
	return WriteAtomic(path, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic is WriteFileAtomic for content that write streams out (a
// file too large to hold twice in memory).
func WriteAtomic(path string, mode os.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	if _, statErr := os.Stat(dir); os.IsNotExist(statErr) {
		if err := os.MkdirAll(dir, PrivateDirMode); err != nil {
			return err
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name()) // best effort: the original is intact either way
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // durability of the rename; not all file systems support it
		d.Close()
	}
	return nil
}

// ReadJSON decodes the JSON file at path into v. It reports found=false,
// with no error, when the file does not exist, so callers can turn absence
// into their own not-found error or default.
func ReadJSON(path string, v any) (found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("%s is corrupt: %w", path, err)
	}
	return true, nil
}

// HashFile is the hex sha256 of a file's bytes, streamed.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FindBinary finds one of Jarvis's programs: the one installed beside the
// running executable (both are in /usr/bin in the package, in bin/ of the
// tar.gz and of a source build), else the one on PATH. It returns an
// absolute path, or "" when there is none.
func FindBinary(name string) string {
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), name); isExecutable(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// CopyNew copies src to dst, which must not exist yet, as a private (0600)
// file: a copy never overwrites what is there.
func CopyNew(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
