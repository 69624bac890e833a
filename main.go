// Command jarvis is the desktop app: it loads the configuration, builds the
// backend services, binds them for the Svelte frontend and opens the window.
package main

import (
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"

	"github.com/jarvis-kb/jarvis/app"
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

	shell := app.NewShell(cfg, loadErr)
	err = wails.Run(&options.App{
		Title:            "Jarvis",
		Width:            1200,
		Height:           800,
		MinWidth:         720,
		MinHeight:        480,
		AssetServer:      &assetserver.Options{Assets: assets},
		BackgroundColour: &options.RGBA{R: 20, G: 22, B: 26, A: 1},
		Bind:             []any{shell},
	})
	if err != nil {
		logs.L().Error("window failed", "err", err)
		fmt.Fprintln(os.Stderr, "jarvis:", err)
		os.Exit(1)
	}
}
