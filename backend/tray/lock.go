// Package tray is the system-tray process: it keeps the sync scheduler alive
// while the window is closed and offers its status and actions in a menu.
// The tray runs as its own process of the desktop binary (`jarvis --tray`):
// Wails owns the GTK main loop of the window process, and the window may
// come and go while the tray stays. The two coordinate through the files
// they share — one instance lock for the tray, the status file, and the
// SQLite store (WAL; every process re-syncs its vector index from the
// store's generation counter before searching).
package tray

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// Lock is the single-instance lock: an flock on a file holding the pid. The
// kernel drops it when the process dies, so a crash never leaves it stale.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock or reports the pid that holds it.
func Acquire(path string) (*Lock, error) {
	const op = "tray.Lock"
	if err := fsutil.EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errs.New(errs.Conflict, op, "the tray is already running (pid %s)", strings.TrimSpace(string(b)))
		}
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f, path: path}, nil
}

// Running reports whether another process holds the lock at path.
func Running(path string) bool {
	l, err := Acquire(path)
	if err != nil {
		return errs.Is(err, errs.Conflict)
	}
	l.Release()
	return false
}

// Release gives the lock up.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing drops the flock
	l.f = nil
	return err
}

// String names the lock file.
func (l *Lock) String() string { return fmt.Sprintf("tray lock %s", l.path) }
