package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Lock is a cross-process lock: an flock on a file that records who holds
// it. The kernel drops an flock when its process dies, so a crash never
// leaves a stale lock, and two opens in one process exclude each other too.
type Lock struct {
	f    *os.File
	path string
}

// Holder is who holds a lock, as its file records it.
type Holder struct {
	PID  int
	Name string // the holding command line, e.g. "jarvis --tray"
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "unknown process"
	}
	if h.Name == "" {
		return fmt.Sprintf("pid %d", h.PID)
	}
	return fmt.Sprintf("pid %d, %s", h.PID, h.Name)
}

// HeldError says a lock is taken and by whom. It is wrapped in an
// errs.Conflict so the CLI exits with the conflict code.
type HeldError struct {
	What   string // what the lock guards, e.g. "the scheduler"
	Holder Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is already running for this data dir (%s)", e.What, e.Holder)
}

// Acquire takes the lock at path without waiting and records this
// process (pid and command) for the next one who asks; what names the
// guarded work in the error. A held lock is an errs.Conflict wrapping
// *HeldError.
func Acquire(path, what string) (*Lock, error) {
	const op = "fsutil.Lock"
	l, free, err := TryExclusive(path)
	if err != nil {
		return nil, err
	}
	if !free {
		return nil, errs.Wrap(errs.Conflict, op, &HeldError{What: what, Holder: ReadHolder(path)})
	}
	record := strconv.Itoa(os.Getpid()) + "\n" + commandLine() + "\n"
	if err := l.f.Truncate(0); err != nil {
		l.Release()
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if _, err := l.f.WriteAt([]byte(record), 0); err != nil {
		l.Release()
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	return l, nil
}

// HoldShared takes a shared lock at path, waiting while someone holds it
// exclusively. Long-running processes hold the data dir this way so a
// restore (which needs it exclusively) knows they are there.
func HoldShared(path string) (*Lock, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "fsutil.Lock", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
		f.Close()
		return nil, errs.Wrap(errs.Internal, "fsutil.Lock", err)
	}
	return &Lock{f: f, path: path}, nil
}

// TryExclusive takes path exclusively without waiting and without
// recording a holder: free is false while anyone holds it, shared or not.
func TryExclusive(path string) (l *Lock, free bool, err error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, false, errs.Wrap(errs.Internal, "fsutil.Lock", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, errs.Wrap(errs.Internal, "fsutil.Lock", err)
	}
	return &Lock{f: f, path: path}, true, nil
}

// commandLine names this process for a lock record: the program's base
// name and its arguments, on one line and clipped.
func commandLine() string {
	s := strings.Join(append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...), " ")
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

func openLockFile(path string) (*os.File, error) {
	if err := EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}

// ReadHolder reads who last took the lock at path (zero if unknown).
func ReadHolder(path string) Holder {
	b, err := os.ReadFile(path)
	if err != nil {
		return Holder{} // no record: the caller reports "unknown process"
	}
	pid, name, _ := strings.Cut(string(b), "\n")
	n, err := strconv.Atoi(strings.TrimSpace(pid))
	if err != nil {
		return Holder{} // torn or foreign content: no usable pid
	}
	return Holder{PID: n, Name: strings.TrimSpace(name)}
}

// Held reports whether another process (or another open in this one)
// holds the lock at path, and who. It only looks: the record is not touched.
func Held(path string) (Holder, bool) {
	l, free, err := TryExclusive(path)
	if err != nil || !free {
		return ReadHolder(path), err == nil
	}
	l.Release()
	return Holder{}, false
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
