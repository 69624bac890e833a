// Command jarvis is the desktop app: it loads the configuration, builds the
// backend services, binds them for the Svelte frontend and opens the window.
// `jarvis --tray` runs the same binary as the tray process that keeps the
// sync scheduler alive while the window is closed.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/jarvis-kb/jarvis/app"
	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
	"github.com/jarvis-kb/jarvis/backend/version"
)

//go:embed all:frontend/dist
var assets embed.FS

const usage = `Usage: jarvis [--tray | --version | --help]

Opens the Jarvis window (and starts the tray process that runs the
background scheduler, unless one runs already or JARVIS_NO_TRAY is set).

  --tray      run as the tray process: the scheduler and its menu, no window
  --version   print the version and exit
  --help      print this help and exit

Data lives in ~/.jarvis, or $JARVIS_HOME. Without a display, use jarvis-cli.
`

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run parses the flags before anything else starts, so --help, --version
// and a mistyped flag never open a window, a log or a tray. It returns the
// process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jarvis", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // usage is printed below, once, to the right stream
	tray := fs.Bool("tray", false, "")
	showVersion := fs.Bool("version", false, "")
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "jarvis: %v\n\n%s", err, usage)
		return 2
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "jarvis: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		return 2
	case *showVersion:
		fmt.Fprintln(stdout, "jarvis", version.Version)
		return 0
	}

	cfg, loadErr := config.Load()
	if _, err := logs.Open(filepath.Join(config.HomeDir(), "logs")); err != nil {
		fmt.Fprintln(stderr, "jarvis: cannot open log:", err)
	}
	defer logs.Close()
	if loadErr != nil {
		logs.L().Error("config load failed", "err", loadErr)
	}
	if cfg != nil {
		logs.SetRedact(llm.Redactor(llm.Secrets(cfg, os.Getenv)).Redact)
		for _, w := range cfg.Warnings {
			fmt.Fprintln(stderr, w)
			logs.L().Warn(w)
		}
	}
	if *tray {
		if cfg == nil {
			fmt.Fprintln(stderr, "jarvis:", loadErr)
			return 1
		}
		return runTray(cfg)
	}
	if err := openWindow(cfg, loadErr); err != nil {
		logs.L().Error("window failed", "err", err)
		fmt.Fprintln(stderr, "jarvis:", err)
		return 1
	}
	return 0
}

// openWindow runs the window until it closes. The tray is started only
// once the window is up, so a window that cannot open leaves nothing behind.
func openWindow(cfg *config.Config, loadErr error) error {
	daemon.KeepHeapTight() // the window stays open with the index loaded
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset); " +
			"use jarvis-cli on a machine without a desktop, or run the window under xvfb-run")
	}
	home := config.HomeDir()
	if cfg != nil {
		home = cfg.Home
		hold, err := daemon.HoldDataDir(cfg) // a restore waits until the window is closed
		if err != nil {
			return err
		}
		defer hold.Release()
	}
	// WebKit keeps its caches under XDG_CACHE_HOME/<program>; point that
	// into the data dir so JARVIS_HOME holds everything the app writes.
	cache := filepath.Join(home, "cache")
	if err := fsutil.EnsurePrivateDir(cache); err != nil {
		return fmt.Errorf("cannot create the cache dir: %w", err)
	}
	if err := os.Setenv("XDG_CACHE_HOME", cache); err != nil {
		return err
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
	return runWails(&options.App{
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
		OnStartup: func(ctx context.Context) {
			wailsCtx.Store(&ctx)
			if cfg != nil {
				ensureTray(cfg)
			}
		},
		// A second start (the tray's "Open Jarvis") raises this window.
		SingleInstanceLock: &options.SingleInstanceLock{UniqueId: "jarvis-kb-" + home},
	})
}

// runWails runs the window, turning Wails's panic when GTK cannot start
// (an unreachable display) into an error.
func runWails(opts *options.App) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("cannot open the window on display %q: %v", os.Getenv("DISPLAY")+os.Getenv("WAYLAND_DISPLAY"), r)
		}
	}()
	return wails.Run(opts)
}
