package daemon

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	gosync "sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// LogName is the scheduler's log inside the logs dir.
const LogName = "sync.log"

// StatusPath is the scheduler's status file.
func StatusPath(cfg *config.Config) string { return filepath.Join(cfg.StateDir(), "sync_status.json") }

// SyncLog appends timestamped lines to logs/sync.log (0600) and mirrors them
// to echo when it is set.
type SyncLog struct {
	mu     gosync.Mutex
	f      io.WriteCloser
	echo   func(string)
	redact func(string) string
}

// OpenSyncLog opens the log for appending; it is size-rotated like the
// other logs, and every line is scrubbed of the credentials Jarvis knows
// (config and environment) before it is written.
func OpenSyncLog(cfg *config.Config, echo func(string)) (*SyncLog, error) {
	if err := fsutil.EnsurePrivateDir(cfg.LogsDir()); err != nil {
		return nil, err
	}
	return &SyncLog{f: logs.Rotated(filepath.Join(cfg.LogsDir(), LogName)), echo: echo, redact: llm.Redactor(llm.Secrets(cfg, os.Getenv)).Redact}, nil
}

// Logf writes one line.
func (l *SyncLog) Logf(format string, args ...any) {
	line := time.Now().Format(time.RFC3339) + " " + l.redact(fmt.Sprintf(format, args...)) + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := io.WriteString(l.f, line); err != nil {
		logs.L().Error("sync log write failed", "err", err)
	}
	if l.echo != nil {
		l.echo(line)
	}
}

// Close closes the log.
func (l *SyncLog) Close() error { return l.f.Close() }

// NewScheduler assembles the scheduler with the real jobs. A fatal
// configuration problem (a missing PDF watch dir, a bad digest day) is an
// error naming the setting.
func NewScheduler(cfg *config.Config, svc *Services) (*jsync.Scheduler, error) {
	// Inbox PDFs become public papers; an inbox inside a private vault
	// folder would publish what the user keeps private.
	if in := cfg.Sync.PDFWatchDir; in != "" && vault.InPrivateFolder(cfg.Vault.Path, in, cfg.Vault.PrivateDirs) {
		return nil, errs.WithHint(errs.New(errs.Invalid, "sync", "sync.pdf_watch_dir %s is inside a private vault folder", in),
			"inbox PDFs are indexed as public papers; choose a folder outside the private ones")
	}
	jobs, disabled, err := jsync.BuildJobs(cfg, svc.Work(), time.Now)
	if err != nil {
		return nil, err
	}
	logs.L().Info("sync starting", "provider", cfg.Chat.Provider, "model", cfg.DefaultModel(), "embed_model", cfg.RAG.EmbedModel)
	svc.logf("sync starting: provider %s (%s), embeddings %s", cfg.Chat.Provider, cfg.DefaultModel(), cfg.RAG.EmbedModel)
	return &jsync.Scheduler{Jobs: jobs, StatusPath: StatusPath(cfg), Disabled: disabled, Log: svc.Log,
		Redact: llm.Redactor(llm.Secrets(cfg, svc.Getenv)).Redact}, nil
}
