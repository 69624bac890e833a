// Package logs gives every Jarvis process two rotated logs in the data dir's
// logs/ folder, so no module has a reason to swallow an error: anything
// caught is either returned or logged.
//
//   - jarvis.log: the process logger (L) and everything libraries print
//     through the standard log and slog packages.
//   - chat.log: every tool error and failed turn of the agent (Chat).
//
// Both are size-rotated with a few backups kept, and every line passes
// through the redaction installed with SetRedact before it is written.
package logs

import (
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// FileName is the process log inside the logs directory.
const FileName = "jarvis.log"

// ChatFileName is the agent's error log inside the logs directory.
const ChatFileName = "chat.log"

// Rotation: a log is rotated past maxSizeMB, keeping maxBackups old files
// (jarvis-<time>.log). Variables so tests can rotate small files.
var (
	maxSizeMB  = 10
	maxBackups = 5
)

var (
	mu      sync.Mutex
	current = discard()
	chat    = discard()
	closers []io.Closer
	redact  func(string) string
	// librariesBefore is slog's default before Open took it over; Close puts
	// it back.
	librariesBefore *slog.Logger
)

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Open points the process logger at <dir>/jarvis.log and the chat logger at
// <dir>/chat.log (dir 0700 and files 0600, created on the first line
// written, so a process that logs nothing leaves no trace), optionally
// echoing the process log to extra writers such as stderr for daemons. The
// standard log and slog defaults are pointed at jarvis.log too, so warnings
// printed by libraries are kept. Calling it again replaces the previous
// destinations.
func Open(dir string, echo ...io.Writer) (*slog.Logger, error) {
	if dir == "" {
		return nil, errors.New("logs: no directory")
	}
	ensureDir := sync.OnceValue(func() error { return fsutil.EnsurePrivateDir(dir) })
	main := rotated(filepath.Join(dir, FileName))
	chatFile := rotated(filepath.Join(dir, ChatFileName))
	l := newLogger(io.MultiWriter(append([]io.Writer{redacting{main, ensureDir}}, echo...)...))
	c := newLogger(redacting{chatFile, ensureDir})

	mu.Lock()
	old := closers
	current, chat, closers = l, c, []io.Closer{main, chatFile}
	if librariesBefore == nil {
		librariesBefore = slog.Default()
	}
	mu.Unlock()
	slog.SetDefault(l)
	closeAll(old)
	return l, nil
}

func rotated(path string) *lumberjack.Logger {
	return &lumberjack.Logger{Filename: path, MaxSize: maxSizeMB, MaxBackups: maxBackups, LocalTime: true}
}

// Rotated is an append-only file at path rotated like jarvis.log, for the
// other logs of the logs dir (the scheduler's sync.log). Its directory must
// exist; the file is created 0600 on the first write.
func Rotated(path string) io.WriteCloser { return rotated(path) }

func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// closeAll closes replaced log files; a failure is reported on the logger
// that replaced them, since the files themselves can no longer take it.
func closeAll(cs []io.Closer) error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil {
			L().Error("closing a log file failed", "err", err)
			if first == nil {
				first = err
			}
		}
	}
	return first
}

// redacting applies the installed redaction to each write. slog handlers
// and the standard logger write one whole record per call, so a secret is
// never split across two writes. The first write creates the private logs
// dir (lumberjack itself would make it world-readable).
type redacting struct {
	w         io.Writer
	ensureDir func() error
}

func (r redacting) Write(p []byte) (int, error) {
	if err := r.ensureDir(); err != nil {
		return 0, err
	}
	mu.Lock()
	fn := redact
	mu.Unlock()
	if fn == nil {
		return r.w.Write(p)
	}
	if _, err := io.WriteString(r.w, fn(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil // the caller's bytes were consumed, whatever the redacted length
}

// SetRedact installs the function every log line passes through before it
// is written (the binaries install the secret redactor of backend/llm).
func SetRedact(fn func(string) string) {
	mu.Lock()
	defer mu.Unlock()
	redact = fn
}

// L returns the process logger. Before Open it discards, so library code and
// unit tests never need to set one up.
func L() *slog.Logger {
	mu.Lock()
	defer mu.Unlock()
	return current
}

// Chat returns the agent's error logger (chat.log). Before Open it discards.
func Chat() *slog.Logger {
	mu.Lock()
	defer mu.Unlock()
	return chat
}

// Set installs a logger (tests use it to capture output).
func Set(l *slog.Logger) {
	mu.Lock()
	defer mu.Unlock()
	current = l
}

// Close flushes and closes the log files and puts the library default back.
func Close() error {
	mu.Lock()
	old := closers
	current, chat, closers = discard(), discard(), nil
	before := librariesBefore
	librariesBefore = nil
	mu.Unlock()
	if before != nil {
		slog.SetDefault(before)
	}
	return closeAll(old)
}
