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
	"github.com/jarvis-kb/jarvis/backend/priority"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// StatusPath is where the scheduler records its state.
func StatusPath(cfg *config.Config) string { return daemon.StatusPath(cfg) }

const logName = daemon.LogName

// New builds the sync command.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "Run the sync scheduler in the foreground (live vault watch, embeddings, PDF inbox, digest, draft retention)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			// One scheduler per data dir: a tray or another `jarvis-cli
			// sync` already running it is a conflict naming its pid.
			lock, err := daemon.LockScheduler(cfg)
			if err != nil {
				return err
			}
			defer lock.Release()
			hold, err := daemon.HoldDataDir(cfg)
			if err != nil {
				return err
			}
			defer hold.Release()
			slog, err := daemon.OpenSyncLog(cfg, func(line string) { fmt.Fprint(io.Err, line) })
			if err != nil {
				return err
			}
			defer slog.Close()
			for _, w := range cfg.Warnings {
				slog.Logf("%s", w)
			}
			svc := &daemon.Services{Cfg: cfg, Getenv: getenv, Log: slog.Logf}
			defer svc.Close()
			s, err := daemon.NewScheduler(cfg, svc)
			if err != nil {
				slog.Logf("fatal: %v", err)
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			daemon.KeepHeapTight()
			if err := priority.Lower(); err != nil { // background work: the window's searches come first
				slog.Logf("cannot lower the scheduler's priority: %v", err)
			}
			bg := &daemon.Background{Svc: svc, Watch: true} // live vault watch and embedding backfill
			bg.Start()
			go bg.Run(ctx)
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
	// The scheduler lock, not the recorded pid, says whether one runs: a
	// pid can be reused by an unrelated process after a crash.
	holder, running := daemon.SchedulerHolder(cfg)
	switch {
	case running:
		fmt.Fprintf(io.Out, "scheduler: running (%s, since %s)\n", holder, st.StartedAt.Format(time.RFC3339))
	case st.PID == 0:
		fmt.Fprintln(io.Out, "scheduler: never started (run `jarvis-cli sync` or open the tray)")
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
