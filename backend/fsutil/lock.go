package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked is returned (wrapped) by TryLock when another process holds the
// lock; HolderPID then names it.
var ErrLocked = errors.New("held by another process")

// FileLock is an flock on a file holding the owner's pid. The kernel drops
// it when the process dies, so a crash never leaves it stale.
type FileLock struct {
	f    *os.File
	path string
}

// LockedError says who holds a lock.
type LockedError struct {
	Path string
	PID  string // as written by the holder; may be empty while it starts
}

func (e *LockedError) Error() string {
	if e.PID == "" {
		return fmt.Sprintf("%s is %v", e.Path, ErrLocked)
	}
	return fmt.Sprintf("%s is %v (pid %s)", e.Path, ErrLocked, e.PID)
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// TryLock takes the lock at path without waiting, or returns a
// *LockedError naming the holder.
func TryLock(path string) (*FileLock, error) {
	if err := EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b, _ := os.ReadFile(path) // best effort: the pid only names the holder
			return nil, &LockedError{Path: path, PID: strings.TrimSpace(string(b))}
		}
		return nil, err
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // informational
	}
	return &FileLock{f: f, path: path}, nil
}

// Release gives the lock up.
func (l *FileLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing drops the flock
	l.f = nil
	return err
}
