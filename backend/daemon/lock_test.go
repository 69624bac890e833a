package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/fsutil/locktest"
)

// The helper process: with JARVIS_DAEMON_LOCK set this test binary, as a
// second real process on the same data dir (JARVIS_HOME), takes the named
// lock, says "held" and keeps it until its stdin closes.
func TestDaemonLockHelperProcess(t *testing.T) {
	which := os.Getenv("JARVIS_DAEMON_LOCK")
	if which == "" {
		return // not the helper
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	var l *fsutil.Lock
	switch which {
	case "digest":
		l, err = LockDigest(cfg)
	case "scheduler":
		l, err = LockScheduler(cfg)
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	l.Release()
	os.Exit(0)
}

// holdInOtherProcess starts the helper on home and returns its pid once it
// holds the lock; the helper is stopped (by its pid) when the test ends.
func holdInOtherProcess(t *testing.T, home, which string) int {
	t.Helper()
	cmd, _ := locktest.Hold(t, "TestDaemonLockHelperProcess", "JARVIS_HOME="+home, "JARVIS_DAEMON_LOCK="+which)
	return cmd.Process.Pid
}

// heldElsewhere is the configuration of a fresh data directory whose
// which lock ("digest", "scheduler") another process holds, and that
// process's pid.
func heldElsewhere(t *testing.T, which string) (*config.Config, int) {
	t.Helper()
	cfg := configtest.New(t)
	pid := holdInOtherProcess(t, cfg.Home, which)
	return cfg, pid
}

func TestDigestRunsOncePerDataDirAcrossProcesses(t *testing.T) {
	cfg, pid := heldElsewhere(t, "digest")
	svc := &Services{Cfg: cfg, Getenv: func(string) string { return "" }}
	defer svc.Close()
	_, err := svc.RunDigest(context.Background(), DigestOptions{})
	var held *fsutil.HeldError
	if !errs.Is(err, errs.Conflict) || !errors.As(err, &held) || held.Holder.PID != pid {
		t.Fatalf("a digest while another process runs one must be a conflict naming pid %d: %v", pid, err)
	}
	if entries, _ := os.ReadDir(cfg.Digest.OutputDir); len(entries) > 0 {
		t.Fatal("the refused run must not write anything")
	}
}

func TestSecondSchedulerIsRefusedNamingTheFirst(t *testing.T) {
	cfg, pid := heldElsewhere(t, "scheduler")
	if h, running := SchedulerHolder(cfg); !running || h.PID != pid {
		t.Fatalf("SchedulerHolder = %+v %v, want pid %d", h, running, pid)
	}
	_, err := LockScheduler(cfg)
	if !errs.Is(err, errs.Conflict) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", pid)) {
		t.Fatalf("want a conflict naming pid %d: %v", pid, err)
	}
	if errs.ExitCode(err) == 0 {
		t.Fatal("a refused scheduler must exit non-zero")
	}
}

func TestForcedDigestStillChecksItsSettings(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Digest.Day = "someday" // a stale setting of a disabled digest
	svc := &Services{Cfg: cfg}
	if _, err := svc.RunDigest(context.Background(), DigestOptions{}); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "digest.day") {
		t.Fatalf("want invalid naming digest.day: %v", err)
	}
}
