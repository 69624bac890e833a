// Command jarvis-cli is the headless companion to the Jarvis desktop app. It
// only wires the command tree to the process: all behaviour is in backend/.
// It must build without GTK/WebKit, so nothing here imports Wails.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/root"
)

func main() {
	io := iostreams.System()
	// jarvis.log and chat.log, shared with the desktop app; files appear on
	// the first line written, so `--help` leaves no trace.
	if _, err := logs.Open(filepath.Join(config.HomeDir(), "logs")); err != nil {
		fmt.Fprintln(io.Err, "warning: cannot open the log:", err)
	}
	// Every configuration a command loads also sets what the logs redact.
	load := func() (*config.Config, error) {
		cfg, err := config.Load()
		if cfg != nil {
			logs.SetRedact(llm.Redactor(llm.Secrets(cfg, os.Getenv)).Redact)
		}
		return cfg, err
	}
	cmd := root.New(root.Deps{IO: io, LoadConfig: load, Getenv: os.Getenv})
	ran, err := cmd.ExecuteContextC(context.Background())
	if err != nil {
		logs.L().Error("command failed", "command", ran.CommandPath(), "code", errs.CodeOf(err), "err", err)
		logs.Close()
		fmt.Fprintln(io.Err, "error:", err)
		os.Exit(errs.ExitCode(err))
	}
	logs.Close()
}
