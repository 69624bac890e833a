package logs

import (
	"bytes"
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
