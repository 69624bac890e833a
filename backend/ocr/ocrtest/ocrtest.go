// Package ocrtest gives tests the real Tesseract, or skips them where it
// is not installed — except where CI promises it (JARVIS_REQUIRE_TOOLS),
// where its absence fails — and fakes of it that count, stall or answer
// as told.
package ocrtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/ocr"
)

// Engine is the installed Tesseract reading langs (empty: all installed).
func Engine(t testing.TB, langs ...string) *ocr.Engine {
	t.Helper()
	e, err := ocr.Lookup(langs)
	if err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatalf("Tesseract is required here: %v", err)
		}
		t.Skipf("no OCR: %v", err)
	}
	return e
}

// Fake is an engine whose tesseract is a shell script first on PATH: it
// lists English as installed and, for each page, records the run, tells
// Started, then runs the script's body with tesseract's arguments ($@;
// the page image on stdin) and $FAKE_DIR naming a directory it may write
// in. The engine is found by ocr.Lookup, so it runs under prlimit and the
// limits as the real one does. Tests using it set PATH: not parallel.
type Fake struct {
	*ocr.Engine
	// Started receives a value as each page's run starts (buffered; runs
	// beyond the buffer are counted but not told).
	Started <-chan struct{}
	dir     string
}

// NewFake installs a fake tesseract running body for each page.
func NewFake(t testing.TB, body string) *Fake {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Opened for reading and writing, the FIFO never blocks the script's
	// write (there is always a reader) and never reports end of file.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 64)
	go func() {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			select {
			case started <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { f.Close() })
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = --list-langs ]; then printf 'List of available languages in \"fake\" (1):\\neng\\n'; exit 0; fi\n" +
		"FAKE_DIR='" + dir + "'; export FAKE_DIR\n" +
		"echo run >> \"$FAKE_DIR/runs\"\n" +
		"echo started > \"$FAKE_DIR/started\"\n" +
		body + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tesseract"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	eng, err := ocr.Lookup(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Fake{Engine: eng, Started: started, dir: dir}
}

// Counting is a Fake that hands every page to the real Tesseract: real
// recognition, with the runs counted. It skips (or fails, under
// JARVIS_REQUIRE_TOOLS) like Engine where Tesseract is missing.
func Counting(t testing.TB) *Fake {
	t.Helper()
	Engine(t, "eng") // skips or fails without the real one
	real, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatal(err)
	}
	return NewFake(t, `exec '`+real+`' "$@"`)
}

// Runs is how many pages the fake was asked to read.
func (f *Fake) Runs() int {
	b, err := os.ReadFile(filepath.Join(f.dir, "runs"))
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// Dir is the directory the script's $FAKE_DIR names.
func (f *Fake) Dir() string { return f.dir }

// Stall is a body that never answers: the page runs until its time limit
// or a cancellation kills it (exec, so the kill reaches the sleeper).
const Stall = "exec sleep 3600"

// TSVHeader is the first line of tesseract's TSV output.
const TSVHeader = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"

// Answer is a body that prints words (one line of them, in TSV) as
// tesseract would read them off the page, without reading the image.
func Answer(words ...string) string {
	var b strings.Builder
	b.WriteString("cat <<'EOF'\n" + TSVHeader + "\n")
	b.WriteString("4\t1\t1\t1\t1\t0\t100\t100\t" + strconv.Itoa(len(words)*300) + "\t60\t-1\t\n")
	for i, w := range words {
		b.WriteString("5\t1\t1\t1\t1\t" + strconv.Itoa(i+1) + "\t" + strconv.Itoa(100+i*300) + "\t100\t260\t60\t95\t" + w + "\n")
	}
	b.WriteString("EOF")
	return b.String()
}
