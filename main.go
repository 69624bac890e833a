// Command jarvis is the desktop app: it loads the configuration, builds the
// backend services, binds them for the Svelte frontend and opens the window.
// `jarvis --tray` runs the same binary as the tray process that keeps the
// sync scheduler alive while the window is closed.
package main

import (
	"context"
	"embed"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/jarvis-kb/jarvis/app"
	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	cfg, loadErr := config.Load()
	logDir := config.HomeDir() + "/logs"
	if cfg != nil {
		logDir = cfg.LogsDir()
	}
	log, err := logs.Open(logDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jarvis: cannot open log:", err)
	} else {
		defer logs.Close()
		if loadErr != nil {
			log.Error("config load failed", "err", loadErr)
		}
	}
	if cfg != nil {
		for _, w := range cfg.Warnings {
			fmt.Fprintln(os.Stderr, w)
			logs.L().Warn(w)
		}
	}

	if len(os.Args) > 1 && os.Args[1] == trayFlag {
		if cfg == nil {
			fmt.Fprintln(os.Stderr, "jarvis:", loadErr)
			os.Exit(1)
		}
		os.Exit(runTray(cfg))
	}
	if cfg != nil {
		ensureTray(cfg)
	}

	// The window's services; with a broken config only the shell is bound,
	// so the window opens and says what is wrong.
	var wailsCtx atomic.Pointer[context.Context] // set once the window is up
	emit := func(name string, data any) {
		if ctx := wailsCtx.Load(); ctx != nil {
			runtime.EventsEmit(*ctx, name, data)
		}
	}
	bind := []any{app.NewShell(cfg, loadErr)}
	if cfg != nil {
		ag, err := agent.New(cfg, agent.Options{Getenv: os.Getenv})
		if err != nil {
			bind = []any{app.NewShell(cfg, err)}
		} else {
			svc := app.NewServices(cfg, ag, emit, os.Getenv)
			defer svc.Close()
			wireWindow(svc, cfg, &wailsCtx)
			bind = svc.Bind()
		}
	}
	err = wails.Run(&options.App{
		Title:            "Jarvis",
		Width:            1200,
		Height:           800,
		MinWidth:         720,
		MinHeight:        480,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 20, G: 22, B: 26, A: 1},
		Bind:             bind,
		// Failed calls reach the window with their stable code and hint.
		ErrorFormatter: func(err error) any { return app.ViewError(err) },
		OnStartup:      func(ctx context.Context) { wailsCtx.Store(&ctx) },
		// A second start (the tray's "Open Jarvis") raises this window.
		SingleInstanceLock: &options.SingleInstanceLock{UniqueId: "jarvis-kb-" + config.HomeDir()},
	})
	if err != nil {
		logs.L().Error("window failed", "err", err)
		fmt.Fprintln(os.Stderr, "jarvis:", err)
		os.Exit(1)
	}
}
