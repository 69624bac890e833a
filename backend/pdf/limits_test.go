package pdf

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

func TestReadRefusesAnAbsurdPageCount(t *testing.T) {
	// The page tree claims ten billion pages and holds one: MuPDF would size
	// its page map by the claim (tens of GB) before failing.
	path := pdftest.PageCountBomb(t)
	start := time.Now()
	_, err := Read(context.Background(), path, Options{})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "claims 1410065407 pages") || errs.HintOf(err) == "" {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s to refuse", time.Since(start))
	}
	// The same file with an honest count reads.
	d, err := Read(context.Background(), pdftest.OnePage(t, "1", "", "BT /F1 24 Tf 72 700 Td (Hello World) Tj ET"), Options{})
	if err != nil || len(d.Pages) != 1 {
		t.Fatalf("honest count: %v", err)
	}
}

func TestReadStopsAtTheMemoryCap(t *testing.T) {
	path := pdftest.TextFlood(t, 20000, 100) // 2 million characters
	// The page time limit is not under test: on a loaded machine it must
	// not stop the page first.
	_, err := Read(context.Background(), path, Options{Limits: Limits{MaxMemory: 24 << 20, MaxChars: 10_000_000, PageTimeout: time.Minute}})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "needs more than 24 MB of memory") {
		t.Fatalf("err = %v", err)
	}
	// Under the default cap the character limit stops it instead, before
	// Go copies millions of characters.
	defaults := DefaultLimits
	defaults.PageTimeout = time.Minute
	_, err = Read(context.Background(), path, Options{Limits: defaults})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "too much text") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadStopsAPageAtItsTimeLimit(t *testing.T) {
	path := pdftest.FormBomb(t, 12)
	start := time.Now()
	_, err := Read(context.Background(), path, Options{Limits: Limits{PageTimeout: 300 * time.Millisecond}})
	took := time.Since(start)
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "time limit for one page") {
		t.Fatalf("err = %v", err)
	}
	if took > 5*time.Second {
		t.Fatalf("the page ran %s past a 300ms limit", took)
	}
	// The document limit applies across pages too.
	_, err = Read(context.Background(), path, Options{Limits: Limits{PageTimeout: time.Minute, DocTimeout: 300 * time.Millisecond}})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "time limit for one document") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadCancelledInsideAPage(t *testing.T) {
	path := pdftest.FormBomb(t, 12)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Read(ctx, path, Options{Limits: Limits{PageTimeout: time.Minute}})
	if !errs.Is(err, errs.Cancelled) {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("cancellation took %s to stop the page", took)
	}
}

func TestPagePNGIsBoundedToo(t *testing.T) {
	path := pdftest.PageCountBomb(t)
	if _, _, err := PagePNG(path, 1, 50); !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "claims") {
		t.Fatalf("err = %v", err)
	}
}

func TestDamagedFilesAreNotCalledScans(t *testing.T) {
	whole := pdftest.OnePage(t, "1", "", "BT /F1 24 Tf 72 700 Td (Hello World, this page has plenty of text) Tj ET")
	b, _ := os.ReadFile(whole)
	inStream := bytes.Index(b, []byte("stream\n")) + 20 // cut inside the page's content
	for name, path := range map[string]string{
		"cut inside the content": pdftest.Truncated(t, whole, inStream),
		"cut in the header":      pdftest.Truncated(t, whole, 40),
		"cut before the trailer": pdftest.Truncated(t, "testdata/paper.pdf", 1000),
	} {
		d, err := Read(context.Background(), path, Options{})
		if err == nil {
			_, err = d.Markdown()
		}
		if !errs.Is(err, errs.Conversion) || !strings.Contains(errs.HintOf(err), "damaged") || strings.Contains(err.Error(), "scan") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// A scan is still a scan.
	_, err := read(t, "scanned.pdf", Options{}).Markdown()
	if !strings.Contains(err.Error(), "no text layer") || !strings.Contains(errs.HintOf(err), "Tesseract") {
		t.Fatalf("scan: %v", err)
	}
}
