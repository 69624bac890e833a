package pdf

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// BenchmarkScanRecall measures OCR on scans made from real PDFs: each
// document's first JARVIS_SCAN_PAGES pages (default 3) are rendered as a
// scanner would (clean at 300 dpi; "noisy" at 200 dpi, 1.5° skew, 1%
// salt-and-pepper), wrapped into an image-only PDF and read back, and the
// recognised words are compared with the original text layer.
//
//	JARVIS_SCAN_PDFS="$(ls ../shared/fixtures/real-world/pdf/pdfannots/*.pdf)" \
//	  go test ./backend/pdf -run '^$' -bench ScanRecall -benchtime 1x -v
//
// It reports recall per document and scan, seconds per page, and the peak
// resident memory of this process and of the largest tesseract child.
func BenchmarkScanRecall(b *testing.B) {
	list := strings.Fields(os.Getenv("JARVIS_SCAN_PDFS"))
	if len(list) == 0 {
		b.Skip("set JARVIS_SCAN_PDFS to the PDFs to scan")
	}
	pages := 3
	if n, err := strconv.Atoi(os.Getenv("JARVIS_SCAN_PAGES")); err == nil && n > 0 {
		pages = n
	}
	eng := ocrtest.Engine(b, "eng")
	for range b.N {
		var secs float64
		var total int
		for _, path := range list {
			orig, err := Read(context.Background(), path, Options{Limits: Limits{MaxPages: 10000}})
			if err != nil || !orig.HasText() {
				b.Logf("%s: skipped (%v)", filepath.Base(path), err)
				continue
			}
			orig.Pages = orig.Pages[:min(pages, len(orig.Pages))]
			want, err := orig.Markdown()
			if err != nil {
				continue
			}
			for _, c := range []struct {
				name             string
				dpi, skew, noise float64
			}{{"clean", 300, 0, 0}, {"noisy", 200, 1.5, 0.01}} {
				scan := scanPages(b, path, len(orig.Pages), c.dpi, c.skew, c.noise, nil)
				start := time.Now()
				d, err := Read(context.Background(), scan, Options{OCR: eng})
				if err != nil {
					b.Logf("%s %s: %v", filepath.Base(path), c.name, err)
					continue
				}
				el := time.Since(start).Seconds()
				if c.name == "clean" {
					secs += el
					total += len(d.Pages)
				}
				got, _ := d.Markdown()
				b.Logf("%-28s %-5s pages %d  recall %.3f  %.2f s/page", filepath.Base(path), c.name, len(d.Pages), recall(want, got), el/float64(len(d.Pages)))
			}
		}
		if total > 0 {
			b.ReportMetric(secs/float64(total), "s/page")
		}
	}
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	b.ReportMetric(float64(self.Maxrss)/1024, "MB-peak-self")
	b.ReportMetric(float64(kids.Maxrss)/1024, "MB-peak-tesseract")
}

// scanPages is scanOf for the first n pages (0: all) of any PDF.
func scanPages(tb testing.TB, src string, n int, dpi, skew, noise float64, marks map[int][][4]float64) string {
	tb.Helper()
	var out []pdftest.ScanPage
	d, err := Read(context.Background(), src, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if n <= 0 || n > len(d.Pages) {
		n = len(d.Pages)
	}
	for _, p := range d.Pages[:n] {
		data, _, err := PagePNG(src, p.Number, dpi)
		if err != nil {
			tb.Fatal(err)
		}
		g := pdftest.Gray(tb, data)
		if skew != 0 || noise != 0 {
			g = pdftest.Degrade(g, skew, noise, int64(p.Number))
		}
		out = append(out, pdftest.ScanPage{Image: g, Width: p.Width, Height: p.Height, Marks: marks[p.Number]})
	}
	return pdftest.Scan(tb, out...)
}
