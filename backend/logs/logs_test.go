package logs

import (
	"bytes"
	"errors"
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

func TestRecordsAreRedacted(t *testing.T) {
	const key = "sk-ant-0123456789abcdef"
	dir := filepath.Join(t.TempDir(), "logs")
	var echo bytes.Buffer
	SetRedactor(strings.NewReplacer(key, "[REDACTED]").Replace)
	defer SetRedactor(nil)
	l, err := Open(dir, &echo)
	if err != nil {
		t.Fatal(err)
	}
	defer Close()
	l.With("auth", "x-api-key "+key).Error("request failed: 403 Forbidden key "+key,
		"err", errors.New("upstream said "+key), "body", []byte(key), slog.Group("req", "header", key), "status", 403)
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	for _, out := range []string{string(data), echo.String()} {
		if strings.Contains(out, key) || strings.Count(out, "[REDACTED]") != 5 || !strings.Contains(out, "status=403") {
			t.Fatalf("log line:\n%s", out)
		}
	}
}
