// Command jarvis-cli is the headless companion to the Jarvis desktop app. It
// only wires the command tree to the process: all behaviour is in backend/.
// It must build without GTK/WebKit, so nothing here imports Wails.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/root"
)

func main() {
	io := iostreams.System()
	cmd := root.New(root.Deps{IO: io, LoadConfig: config.Load, Getenv: os.Getenv})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		fmt.Fprintln(io.Err, "error:", err)
		os.Exit(errs.ExitCode(err))
	}
}
