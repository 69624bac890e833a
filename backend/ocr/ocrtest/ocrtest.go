// Package ocrtest gives tests the real Tesseract, or skips them where it
// is not installed — except where CI promises it (JARVIS_REQUIRE_TOOLS),
// where its absence fails.
package ocrtest

import (
	"os"
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
