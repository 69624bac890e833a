package logs

import (
	"bytes"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenWritesFileAndEcho(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	var echo bytes.Buffer
	l, err := Open(dir, &echo)
	if err != nil {
		t.Fatal(err)
	}
	defer Close()
	l.Warn("store open failed", "path", "/x")
	L().Error("second line", "code", "rag")
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"store open failed", "path=/x", "second line", "code=rag"} {
		if !strings.Contains(string(data), want) || !strings.Contains(echo.String(), want) {
			t.Fatalf("%q missing from log file or echo:\n%s", want, data)
		}
	}
	st, _ := os.Stat(filepath.Join(dir, FileName))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("log mode = %v", st.Mode().Perm())
	}
	dst, _ := os.Stat(dir)
	if dst.Mode().Perm() != 0o700 {
		t.Fatalf("logs dir mode = %v", dst.Mode().Perm())
	}
}

func TestLBeforeOpenDiscards(t *testing.T) {
	Close()
	L().Error("nobody listens") // must not panic
}

func TestLibraryWarningsLandInJarvisLog(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	log.Printf("a library complains about %s", "its cache")
	slog.Warn("a library warns through slog", "k", "v")
	if err := Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a library complains about its cache", "a library warns through slog", "k=v"} {
		if !strings.Contains(string(data), want) {
			t.Fatalf("%q missing from jarvis.log:\n%s", want, data)
		}
	}
}

func TestChatLogIsSeparateRedactedAndPrivate(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	SetRedact(func(s string) string { return strings.ReplaceAll(s, "sk-secret-123456", "[REDACTED]") })
	defer SetRedact(nil)
	Chat().Error("turn failed", "err", "401 for key sk-secret-123456")
	L().Warn("process line with sk-secret-123456")
	Close()
	chatLog, err := os.ReadFile(filepath.Join(dir, ChatFileName))
	if err != nil {
		t.Fatal(err)
	}
	main, _ := os.ReadFile(filepath.Join(dir, FileName))
	if !strings.Contains(string(chatLog), "turn failed") || strings.Contains(string(main), "turn failed") {
		t.Fatalf("chat lines belong in chat.log only:\nchat: %s\nmain: %s", chatLog, main)
	}
	if strings.Contains(string(chatLog)+string(main), "sk-secret") || !strings.Contains(string(chatLog), "[REDACTED]") {
		t.Fatalf("secret reached a log:\nchat: %s\nmain: %s", chatLog, main)
	}
	if st, _ := os.Stat(filepath.Join(dir, ChatFileName)); st.Mode().Perm() != 0o600 {
		t.Fatalf("chat.log mode %v", st.Mode().Perm())
	}
}

func TestLogsRotateBySize(t *testing.T) {
	defer func(size, keep int) { maxSizeMB, maxBackups = size, keep }(maxSizeMB, maxBackups)
	maxSizeMB, maxBackups = 1, 2
	dir := t.TempDir()
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 1000)
	for i := 0; i < 3500; i++ { // ~3.5 MB: three rotations
		L().Info(line, "i", i)
		Chat().Info(line, "i", i)
	}
	Close()
	for _, base := range []string{"jarvis", "chat"} {
		backups, err := filepath.Glob(filepath.Join(dir, base+"-*.log"))
		if err != nil {
			t.Fatal(err)
		}
		// lumberjack prunes old backups in the background; at least one
		// rotation must have happened and the live file must be small.
		if len(backups) == 0 {
			t.Fatalf("%s.log never rotated", base)
		}
		st, err := os.Stat(filepath.Join(dir, base+".log"))
		if err != nil || st.Size() > 1<<20 {
			t.Fatalf("%s.log size %v %v", base, st.Size(), err)
		}
	}
}

func TestNothingWrittenLeavesNoTrace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	if _, err := Open(dir); err != nil {
		t.Fatal(err)
	}
	Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a process that logged nothing created %s: %v", dir, err)
	}
}
