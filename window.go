package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/jarvis-kb/jarvis/app"
	"github.com/jarvis-kb/jarvis/backend/autostart"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// wireWindow connects the services to the desktop: the native file,
// folder and save dialogs, the background work (vault watcher, embedding backfill)
// in this process, and a restart of the tray process after the vault
// settings change.
func wireWindow(svc *app.Services, cfg *config.Config, wailsCtx *atomic.Pointer[context.Context]) {
	window := func() (context.Context, error) {
		ctx := wailsCtx.Load()
		if ctx == nil {
			return nil, fmt.Errorf("the window is not ready yet")
		}
		return *ctx, nil
	}
	// The login entry starts this very binary (/usr/bin/jarvis when
	// installed); without a HOME there is no autostart folder, so no toggle.
	if self, err := os.Executable(); err == nil {
		if entry, err := autostart.Default(os.Getenv, self); err == nil {
			svc.Setup.Autostart = &entry
		}
	}
	svc.Library.Pick = func(title string) ([]string, error) {
		ctx, err := window()
		if err != nil {
			return nil, err
		}
		return runtime.OpenMultipleFilesDialog(ctx, runtime.OpenDialogOptions{Title: title,
			Filters: []runtime.FileFilter{{DisplayName: "PDFs, notes and images", Pattern: "*.pdf;*.md;*.markdown;*.txt;*.png;*.jpg;*.jpeg;*.tif;*.tiff;*.webp"}}})
	}
	svc.Setup.PickFolder = func(title string) (string, error) {
		ctx, err := window()
		if err != nil {
			return "", err
		}
		// It opens in the current vault when there is one, else at home.
		start := cfg.Vault.Path
		if st, err := os.Stat(start); err != nil || !st.IsDir() {
			start, _ = os.UserHomeDir()
		}
		return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{Title: title, DefaultDirectory: start, CanCreateDirectories: true})
	}
	svc.Editor.PickSave = func(title, name string) (string, error) {
		ctx, err := window()
		if err != nil {
			return "", err
		}
		home, _ := os.UserHomeDir()
		return runtime.SaveFileDialog(ctx, runtime.SaveDialogOptions{Title: title, DefaultDirectory: home, DefaultFilename: name,
			Filters: []runtime.FileFilter{{DisplayName: "PDF", Pattern: "*.pdf"}}, CanCreateDirectories: true})
	}
	svc.OnVaultChange(func() { go restartTray(cfg) })
	svc.Start()
}

// restartTray makes a running tray process pick up new vault settings: it
// runs with the configuration it read at start, and its watcher would go
// on indexing the old vault. Only a `jarvis --tray` process that holds the
// data dir's scheduler lock is stopped (a `jarvis-cli sync` is the user's
// own and is left alone).
func restartTray(cfg *config.Config) {
	holder, running := daemon.SchedulerHolder(cfg)
	if !running || holder.PID == 0 || !isTray(holder.PID) {
		return
	}
	if err := syscall.Kill(holder.PID, syscall.SIGTERM); err != nil {
		logs.L().Warn("cannot restart the tray", "err", err)
		return
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, still := daemon.SchedulerHolder(cfg); !still {
			break
		}
	}
	ensureTray(cfg)
}

// isTray reports whether pid runs this program's tray mode.
func isTray(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && slices.Contains(strings.Split(string(b), "\x00"), "--tray")
}
