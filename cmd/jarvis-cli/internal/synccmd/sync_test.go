package synccmd

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func TestStatusShowsLivenessFailuresAndDisabledAsSetting(t *testing.T) {
	cfg := configtest.New(t)
	io, _, out, _ := iostreams.Test()
	if err := PrintStatus(io, cfg); err != nil || !strings.Contains(out.String(), "never started") {
		t.Fatalf("%v %s", err, out)
	}
	now := time.Now()
	jsync.WriteStatus(StatusPath(cfg), jsync.Status{PID: os.Getpid(), StartedAt: now,
		Jobs: map[string]jsync.JobStatus{
			"vault_refresh": {LastSuccess: now, NextRun: now.Add(time.Hour)},
			"draft_gc":      {LastError: "disk full"},
		},
		Disabled: map[string]string{"digest": "[digest] enabled = false"}})
	lock, err := daemon.LockScheduler(cfg) // as a running tray or sync holds it
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(cfg.LogsDir(), 0o700)
	os.WriteFile(cfg.LogsDir()+"/sync.log", []byte("line one\nline two\n"), 0o600)
	out.Reset()
	PrintStatus(io, cfg)
	for _, want := range []string{"scheduler: running", "FAILED: disk full", "digest          disabled ([digest] enabled = false)", "line two"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	lock.Release()
	// A recorded pid that is alive (even this very process) is not a
	// running scheduler without the lock.
	jsync.WriteStatus(StatusPath(cfg), jsync.Status{PID: os.Getpid(), StartedAt: now})
	out.Reset()
	PrintStatus(io, cfg)
	if !strings.Contains(out.String(), "NOT running") {
		t.Fatalf("dead pid:\n%s", out)
	}
}

func TestSyncRefusesMissingWatchDir(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Sync.PDFWatchDir = "/no/such/inbox"
	io, _, _, errb := iostreams.Test()
	cmd := New(io, func() (*config.Config, error) { return cfg, nil }, func(string) string { return "" })
	cmd.SetArgs([]string{})
	err := cmd.Execute()
	if err == nil || !strings.Contains(errb.String(), "fatal") {
		t.Fatalf("missing watch dir must exit non-zero with the reason: %v %s", err, errb)
	}
}
