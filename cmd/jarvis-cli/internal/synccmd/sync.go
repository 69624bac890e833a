// Package synccmd implements `jarvis-cli sync` (the scheduler, headless, in
// the foreground) and `jarvis-cli sync status`.
package synccmd

import (
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/logs"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// StatusPath is where the scheduler records its state.
func StatusPath(cfg *config.Config) string { return filepath.Join(cfg.StateDir(), "sync_status.json") }

const logName = "sync.log"

// New builds the sync command.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Run the sync scheduler in the foreground (vault, PDF inbox, digest, draft retention)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			if err := fsutil.EnsurePrivateDir(cfg.LogsDir()); err != nil {
				return err
			}
			logFile, err := os.OpenFile(filepath.Join(cfg.LogsDir(), logName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				return err
			}
			defer logFile.Close()
			logf := func(format string, args ...any) {
				line := time.Now().Format(time.RFC3339) + " " + fmt.Sprintf(format, args...) + "\n"
				_, _ = logFile.WriteString(line) // stderr below still shows it
				fmt.Fprint(io.Err, line)
			}
			for _, w := range cfg.Warnings {
				logf("%s", w)
			}
			svc := &daemon.Services{Cfg: cfg, Getenv: getenv, Log: logf}
			defer svc.Close()
			jobs, disabled, err := jsync.BuildJobs(cfg, svc.Work(), time.Now)
			if err != nil {
				logf("fatal: %v", err)
				return err
			}
			logs.L().Info("sync starting", "provider", cfg.Chat.Provider, "model", cfg.DefaultModel(), "embed_model", cfg.RAG.EmbedModel)
			logf("sync starting: provider %s (%s), embeddings %s", cfg.Chat.Provider, cfg.DefaultModel(), cfg.RAG.EmbedModel)
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			s := &jsync.Scheduler{Jobs: jobs, StatusPath: StatusPath(cfg), Disabled: disabled, Log: logf}
			return s.Loop(ctx)
		},
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show whether the scheduler is running and how each job last went",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			return PrintStatus(io, cfg)
		},
	})
	return cmd
}

// PrintStatus renders the status file, pid liveness and the log tail.
func PrintStatus(io *iostreams.IO, cfg *config.Config) error {
	st, err := jsync.ReadStatus(StatusPath(cfg))
	if err != nil {
		return err
	}
	switch {
	case st.PID == 0:
		fmt.Fprintln(io.Out, "scheduler: never started (run `jarvis-cli sync` or open the tray)")
	case jsync.Alive(st.PID):
		fmt.Fprintf(io.Out, "scheduler: running (pid %d, since %s)\n", st.PID, st.StartedAt.Format(time.RFC3339))
	default:
		fmt.Fprintf(io.Out, "scheduler: NOT running (last pid %d, started %s)\n", st.PID, st.StartedAt.Format(time.RFC3339))
	}
	ids := slices.Sorted(maps.Keys(st.Jobs))
	for _, id := range ids {
		if _, off := st.Disabled[id]; off {
			continue
		}
		j := st.Jobs[id]
		state := "never run"
		switch {
		case j.LastError != "":
			state = "FAILED: " + j.LastError
		case !j.LastSuccess.IsZero():
			state = "ok at " + j.LastSuccess.Format("2006-01-02 15:04")
		}
		fmt.Fprintf(io.Out, "  %-15s %-40s next %s\n", id, state, j.NextRun.Format("2006-01-02 15:04"))
	}
	// Jobs off by configuration are settings, not faults.
	offIDs := slices.Sorted(maps.Keys(st.Disabled))
	for _, id := range offIDs {
		fmt.Fprintf(io.Out, "  %-15s disabled (%s)\n", id, st.Disabled[id])
	}
	if b, err := os.ReadFile(filepath.Join(cfg.LogsDir(), logName)); err == nil {
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		if len(lines) > 10 {
			lines = lines[len(lines)-10:]
		}
		fmt.Fprintln(io.Out, "recent log:")
		for _, l := range lines {
			fmt.Fprintln(io.Out, "  "+l)
		}
	}
	return nil
}
