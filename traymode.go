package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/jarvis-kb/jarvis/backend/autostart"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/logs"
	"github.com/jarvis-kb/jarvis/backend/priority"
	"github.com/jarvis-kb/jarvis/backend/tray"
)

//go:embed build/appicon.png
var trayIcon []byte

// runTray is `jarvis --tray`: the data dir's one scheduler with the real
// jobs, and the tray menu. It returns the process exit code.
func runTray(cfg *config.Config) int {
	lock, err := daemon.LockScheduler(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jarvis:", err)
		if errs.Is(err, errs.Conflict) {
			return 0 // a tray or `jarvis-cli sync` runs it already: nothing to do
		}
		return 1
	}
	defer lock.Release()
	hold, err := daemon.HoldDataDir(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jarvis:", err)
		return 1
	}
	defer hold.Release()
	slog, err := daemon.OpenSyncLog(cfg, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jarvis:", err)
		return 1
	}
	defer slog.Close()
	svc := &daemon.Services{Cfg: cfg, Getenv: os.Getenv, Log: slog.Logf}
	defer svc.Close()
	sched, err := daemon.NewScheduler(cfg, svc)
	if err != nil {
		slog.Logf("fatal: %v", err)
		fmt.Fprintln(os.Stderr, "jarvis:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// The tray is all background work: it yields the CPU to the window.
	// Only its session's group is lowered, never its threads, which the
	// window it opens would inherit.
	daemon.KeepHeapTight()
	if lowered, err := priority.LowerSession(); err != nil {
		slog.Logf("cannot lower the tray's priority: %v", err)
	} else if !lowered {
		slog.Logf("the tray shares its session with other programs (or the kernel has no session groups): it runs at normal priority")
	}
	// The live vault watcher and the embedding backfill run beside the
	// scheduler for as long as the tray lives.
	bg := &daemon.Background{Svc: svc, Watch: true}
	bg.Start()
	go bg.Run(ctx)
	c := &tray.Controller{Scheduler: sched, Disabled: sched.Disabled, Log: slog.Logf, Open: startWindow}
	// The login entry names this binary; without a HOME there is none and
	// the menu has a plain Quit.
	if self, err := os.Executable(); err == nil {
		if entry, err := autostart.Default(os.Getenv, self); err == nil {
			c.Autostart = entry
		}
	}
	if err := c.Run(ctx, trayIcon); err != nil {
		slog.Logf("tray stopped: %v", err)
		return 1
	}
	slog.Logf("tray stopped")
	return 0
}

// detached starts this binary again with args, in its own session so it
// outlives the caller.
func detached(args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// startWindow starts the window process; the window's single-instance lock
// turns a second start into raising the first.
func startWindow() error { return detached() }

// ensureTray starts the tray process unless a scheduler runs already (a
// tray, or `jarvis-cli sync`) or JARVIS_NO_TRAY is set (tests, or users who
// run `jarvis-cli sync` instead).
func ensureTray(cfg *config.Config) {
	if os.Getenv("JARVIS_NO_TRAY") != "" {
		return
	}
	if _, running := daemon.SchedulerHolder(cfg); running {
		return
	}
	if err := detached("--tray"); err != nil {
		logs.L().Error("cannot start the tray", "err", err)
		fmt.Fprintln(os.Stderr, "jarvis: cannot start the tray:", err)
	}
}
