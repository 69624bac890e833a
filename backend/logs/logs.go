// Package logs gives every Jarvis component one structured logger writing to
// ~/.jarvis/logs/jarvis.log, so no module has a reason to swallow an error:
// anything caught is either returned or logged here.
package logs

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// FileName is the shared library log inside the logs directory.
const FileName = "jarvis.log"

var (
	mu      sync.Mutex
	current = slog.New(slog.NewTextHandler(io.Discard, nil))
	file    *os.File
)

// Open points the process logger at <dir>/jarvis.log (dir created 0700, file
// 0600), optionally echoing to extra writers such as stderr for daemons.
// Calling it again replaces the previous destination.
func Open(dir string, echo ...io.Writer) (*slog.Logger, error) {
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	writers := append([]io.Writer{f}, echo...)
	l := slog.New(redacting{slog.NewTextHandler(io.MultiWriter(writers...), &slog.HandlerOptions{Level: slog.LevelDebug})})
	mu.Lock()
	defer mu.Unlock()
	if file != nil {
		_ = file.Close() // the old destination is being replaced; nothing left to flush
	}
	file, current = f, l
	return l, nil
}

// L returns the process logger. Before Open it discards, so library code and
// unit tests never need to set one up.
func L() *slog.Logger {
	mu.Lock()
	defer mu.Unlock()
	return current
}

// Set installs a logger (tests use it to capture output).
func Set(l *slog.Logger) {
	mu.Lock()
	defer mu.Unlock()
	current = l
}

// Close flushes and closes the log file.
func Close() error {
	mu.Lock()
	defer mu.Unlock()
	if file == nil {
		return nil
	}
	err := file.Close()
	file = nil
	current = slog.New(slog.NewTextHandler(io.Discard, nil))
	return err
}
