package pdf

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// BenchmarkScanRecall measures OCR on scans made from real PDFs: each
// document's first JARVIS_SCAN_PAGES pages (default 3) are rendered as a
// scanner would (clean at 300 dpi; "noisy" at 200 dpi, 1.5° skew, 1%
// salt-and-pepper), wrapped into an image-only PDF and read back, and the
// recognised words are compared with the original text layer. The paths
// are absolute (go test runs in the package's directory):
//
//	JARVIS_SCAN_PDFS="$(ls "$PWD"/../shared/fixtures/real-world/pdf/pdfannots/*.pdf)" \
//	  go test ./backend/pdf -run '^$' -bench ScanRecall -benchtime 1x -v
//
// Each document is a sub-benchmark reporting its word recall per scan,
// seconds per page (the whole read: rendering, cleaning, recognition) and
// tesseract's own seconds per page and peak resident memory, through the
// engine's Observe hook (VmHWM: the kernel's rusage would give this
// process's peak instead). The last line sums up all documents.
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
	var cost struct {
		sync.Mutex
		peak int64
		wall time.Duration
		runs int
	}
	eng.Observe = func(r ocr.Run) {
		cost.Lock()
		defer cost.Unlock()
		cost.peak, cost.wall, cost.runs = max(cost.peak, r.PeakRSS), cost.wall+r.Wall, cost.runs+1
	}
	var allSecs, allTess float64
	var allPages int
	var allPeak int64
	for _, path := range list {
		name := strings.TrimSuffix(filepath.Base(path), ".pdf")
		b.Run(name, func(b *testing.B) {
			orig, err := Read(context.Background(), path, Options{Limits: Limits{MaxPages: 10000}})
			if err != nil {
				b.Fatal(err)
			}
			if !orig.HasText() {
				b.Skip("no text layer to compare with")
			}
			orig.Pages = orig.Pages[:min(pages, len(orig.Pages))]
			want, err := orig.Markdown()
			if err != nil {
				b.Skip(err)
			}
			words := 0 // those recall counts
			for _, w := range wordsOf(want) {
				if len([]rune(w)) >= 2 {
					words++
				}
			}
			for range b.N {
				for _, c := range []struct {
					name             string
					dpi, skew, noise float64
				}{{"clean", 300, 0, 0}, {"noisy", 200, 1.5, 0.01}} {
					scan := scanPages(b, path, len(orig.Pages), c.dpi, c.skew, c.noise, nil)
					cost.Lock()
					cost.peak, cost.wall, cost.runs = 0, 0, 0
					cost.Unlock()
					start := time.Now()
					d, err := Read(context.Background(), scan, Options{OCR: eng})
					if err != nil {
						b.Fatalf("%s: %v", c.name, err)
					}
					secs := time.Since(start).Seconds()
					got, _ := d.Markdown()
					n := float64(len(d.Pages))
					cost.Lock()
					tess, peak, runs := cost.wall.Seconds(), cost.peak, cost.runs
					cost.Unlock()
					b.ReportMetric(recall(want, got), "recall-"+c.name)
					b.ReportMetric(secs/n, "s/page-"+c.name)
					if c.name == "clean" {
						b.ReportMetric(tess/n, "s/page-tesseract")
						b.ReportMetric(float64(peak)/(1<<20), "MB-peak-tesseract")
						allSecs, allTess, allPages = allSecs+secs, allTess+tess, allPages+len(d.Pages)
					}
					allPeak = max(allPeak, peak)
					b.Logf("%-28s %-5s pages %d (%d recognised), %d words  recall %.3f  %.2f s/page  tesseract %.2f s/page, peak %.0f MB",
						name, c.name, len(d.Pages), runs, words, recall(want, got), secs/n, tess/n, float64(peak)/(1<<20))
				}
			}
		})
	}
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	if allPages > 0 {
		b.Logf("all documents, clean scans: %d pages, %.2f s/page (tesseract %.2f s/page); tesseract peak %.0f MB; this process's peak %.0f MB",
			allPages, allSecs/float64(allPages), allTess/float64(allPages), float64(allPeak)/(1<<20), float64(self.Maxrss)/1024)
	}
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
