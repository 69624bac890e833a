package kbcmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// blankScanPages are n scanned pages with nothing a real engine could
// read (the fake says what is on them); small, so cheap to render.
func blankScanPages(n int) []pdftest.ScanPage { return pdftest.BlankPages(n, 60, 60, 144, 144) }

// `kb add SCAN.pdf` shows each page as it is recognised on stderr ("name:
// page k/n recognised", rewritten in place and ended with a newline at
// the last page); a mixed document starts showing at its first scanned
// page and says the typed pages after it were read; a PDF with a text
// layer throughout shows no page progress at all.
func TestKBAddShowsOCRProgressPerPage(t *testing.T) {
	cfg, _ := e2e(t)
	fake := ocrtest.NewFake(t, ocrtest.Answer("microfiche", "ledger"))

	scan := pdftest.Scan(t, blankScanPages(3)...)
	out, stderr, err := runAll(t, cfg, "", "add", "--full-text", scan)
	if err != nil || !strings.Contains(out, "3 scanned page(s) read by OCR") {
		t.Fatalf("add scan: %v\n%s\n%s", err, out, stderr)
	}
	name := "fixture.pdf" // pdftest names every file so
	var want strings.Builder
	for k := 1; k <= 3; k++ {
		fmt.Fprintf(&want, "\r%s: page %d/3 %-10s", name, k, "recognised")
	}
	want.WriteString("\n")
	if !strings.Contains(stderr, want.String()) {
		t.Fatalf("stderr lacks per-page progress %q:\n%q", want.String(), stderr)
	}
	if fake.Runs() != 3 {
		t.Fatalf("%d recognitions", fake.Runs())
	}
	if out, err := run(t, cfg, "", "search", "microfiche ledger"); err != nil || !strings.Contains(out, "fixture") {
		t.Fatalf("the scan's words are not found: %v\n%s", err, out)
	}

	// Typed, scanned, typed: nothing for the first page (a text layer reads
	// in a blink), then every page from the scanned one on.
	typed := pdftest.ScanPage{Text: []string{"A typed page with a text layer of its own, long enough to be read as it is."}, Width: 144, Height: 144}
	mixed := pdftest.Scan(t, typed, blankScanPages(1)[0], typed)
	out, stderr, err = runAll(t, cfg, "", "add", "--full-text", "--yes", mixed)
	if err != nil || !strings.Contains(out, "1 scanned page(s) read by OCR") {
		t.Fatalf("add mixed: %v\n%s\n%s", err, out, stderr)
	}
	if strings.Contains(stderr, "page 1/3") {
		t.Fatalf("a typed page before any scan was shown:\n%q", stderr)
	}
	if w := fmt.Sprintf("\r%s: page 2/3 %-10s\r%s: page 3/3 %-10s\n", name, "recognised", name, "read"); !strings.Contains(stderr, w) {
		t.Fatalf("stderr lacks %q:\n%q", w, stderr)
	}

	// A text PDF: no page progress.
	_, stderr, err = runAll(t, cfg, "", "add", "--full-text", "--yes", pdftest.Text(t, "A readable note of one page, with its own text layer."))
	if err != nil || strings.Contains(stderr, "page 1/1") {
		t.Fatalf("a text PDF showed page progress: %v\n%q", err, stderr)
	}
}
