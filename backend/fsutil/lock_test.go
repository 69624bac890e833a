package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil/locktest"
)

// The helper process: when JARVIS_LOCK_HELPER names a mode, this test binary
// takes the lock at JARVIS_LOCK_PATH, says "held" and keeps it until its
// stdin closes. The other tests run it as a real second process.
func TestLockHelperProcess(t *testing.T) {
	mode := os.Getenv("JARVIS_LOCK_HELPER")
	if mode == "" {
		return // not the helper: nothing to do in the normal run
	}
	path := os.Getenv("JARVIS_LOCK_PATH")
	var l *Lock
	var err error
	if mode == "shared" {
		l, err = HoldShared(path)
	} else {
		l, err = Acquire(path, "the helper's work")
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin) // hold until the parent closes stdin
	l.Release()
	os.Exit(0)
}

// startHolder runs the helper process and returns once it holds the lock.
func startHolder(t *testing.T, mode, path string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	return locktest.Hold(t, "TestLockHelperProcess", "JARVIS_LOCK_HELPER="+mode, "JARVIS_LOCK_PATH="+path)
}

func TestLockExcludesAnotherProcessAndNamesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "scheduler.lock")
	holder, stdin := startHolder(t, "exclusive", path)

	_, err := Acquire(path, "the scheduler")
	var held *HeldError
	if !errs.Is(err, errs.Conflict) || !errors.As(err, &held) {
		t.Fatalf("a held lock must be a conflict naming the holder: %v", err)
	}
	if held.Holder.PID != holder.Process.Pid || !strings.Contains(held.Holder.Name, filepath.Base(os.Args[0])) {
		t.Fatalf("holder %+v, want pid %d running %s", held.Holder, holder.Process.Pid, os.Args[0])
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("pid %d", holder.Process.Pid)) || !strings.Contains(err.Error(), "the scheduler is already running") {
		t.Fatalf("message must say what runs and who: %v", err)
	}
	if h, ok := Held(path); !ok || h.PID != holder.Process.Pid {
		t.Fatalf("Held = %+v %v", h, ok)
	}

	stdin.Close() // the helper releases and exits
	holder.Wait()
	l, err := Acquire(path, "the scheduler")
	if err != nil {
		t.Fatalf("a released lock must be free: %v", err)
	}
	if h := ReadHolder(path); h.PID != os.Getpid() {
		t.Fatalf("the new holder is not recorded: %+v", h)
	}
	l.Release()
	if st, err := os.Stat(filepath.Dir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("state dir: %v %v", st.Mode().Perm(), err)
	}
}

func TestKilledHolderLeavesNoStaleLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "digest.lock")
	holder, _ := startHolder(t, "exclusive", path)
	if _, err := Acquire(path, "a digest run"); !errs.Is(err, errs.Conflict) {
		t.Fatalf("want conflict while held: %v", err)
	}
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	l, err := Acquire(path, "a digest run")
	if err != nil {
		t.Fatalf("a killed holder's lock must be free: %v", err)
	}
	l.Release()
}

func TestLockExcludesWithinOneProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "digest.lock")
	l, err := Acquire(path, "a digest run")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if _, err := Acquire(path, "a digest run"); !errs.Is(err, errs.Conflict) {
		t.Fatalf("a second take in the same process must be refused: %v", err)
	}
}

func TestSharedHoldersBlockExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in-use.lock")
	holder, stdin := startHolder(t, "shared", path)
	if _, ok, err := TryExclusive(path); ok || err != nil {
		t.Fatalf("exclusive while another process holds it shared: ok=%v err=%v", ok, err)
	}
	mine, err := HoldShared(path) // shared holders coexist
	if err != nil {
		t.Fatal(err)
	}
	mine.Release()
	stdin.Close()
	holder.Wait()
	l, ok, err := TryExclusive(path)
	if !ok || err != nil {
		t.Fatalf("exclusive after the shared holder left: ok=%v err=%v", ok, err)
	}
	l.Release()
}
