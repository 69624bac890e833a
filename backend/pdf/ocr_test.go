package pdf

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// scanOf renders every page of the PDF at src as a scanner would see it
// (grey, at dpi, then degraded by skew degrees and a share of noise) and
// wraps the images into a PDF with no text layer; marks (page → boxes,
// PDF space) become highlights on the scanned pages.
func scanOf(t testing.TB, src string, dpi, skew, noise float64, marks map[int][][4]float64) string {
	t.Helper()
	return scanPages(t, src, 0, dpi, skew, noise, marks)
}

// wordsOf lowercases text into its words of two or more letters or digits.
func wordsOf(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// recall is the share of the original's words (as a multiset) that the
// recognised text holds.
func recall(original, recognised string) float64 {
	have := map[string]int{}
	for _, w := range wordsOf(recognised) {
		have[w]++
	}
	want, found := 0, 0
	for _, w := range wordsOf(original) {
		if len([]rune(w)) < 2 {
			continue
		}
		want++
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	if want == 0 {
		return 0
	}
	return float64(found) / float64(want)
}

func markdown(t testing.TB, d *Document) string {
	t.Helper()
	md, err := d.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// placedWords are the fixture's phrases and where make_fixtures.py drew them.
func placedWords(t testing.TB) map[string][5]float64 {
	t.Helper()
	b, err := os.ReadFile("testdata/words.json")
	if err != nil {
		t.Fatal(err)
	}
	var placed map[string][5]float64
	if err := json.Unmarshal(b, &placed); err != nil {
		t.Fatal(err)
	}
	return placed
}

func TestScannedPaperIsReadByOCR(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	placed := placedWords(t)
	marks := map[int][][4]float64{}
	for _, box := range placed {
		marks[int(box[0])] = append(marks[int(box[0])], [4]float64{box[1], box[2], box[3], box[4]})
	}
	original := markdown(t, read(t, "paper.pdf", Options{}))
	var pages []Progress
	d, err := Read(context.Background(), scanOf(t, "testdata/paper.pdf", 300, 0, 0, marks), Options{OCR: eng, Progress: func(p Progress) { pages = append(pages, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if d.OCRPages() != len(d.Pages) || d.Unread != 0 || len(pages) != len(d.Pages) || !pages[0].OCR || pages[len(pages)-1].Page != len(d.Pages) {
		t.Fatalf("ocr pages %d of %d, unread %d, progress %+v", d.OCRPages(), len(d.Pages), d.Unread, pages)
	}
	for _, p := range d.Pages {
		if p.OCRConfidence < 50 {
			t.Errorf("page %d: confidence %.0f", p.Number, p.OCRConfidence)
		}
	}
	got := markdown(t, d)
	r := recall(original, got)
	t.Logf("clean scan at 300 dpi: word recall %.3f", r)
	if r < 0.95 {
		t.Fatalf("recall %.3f < 0.95\n%s", r, got)
	}
	if !strings.Contains(got, "# Sparse Attention for Long Documents") {
		t.Errorf("the title is not a heading:\n%s", got)
	}
	// The reader's highlights on the scanned pages read the recognised words.
	var marked []string
	for _, m := range d.Marks() {
		marked = append(marked, strings.ToLower(m.Text))
	}
	for phrase := range placed {
		if !strings.Contains(strings.Join(marked, "|"), phrase) {
			t.Errorf("highlight %q reads %q", phrase, marked)
		}
	}
}

func TestDegradedScanRecall(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	original := markdown(t, read(t, "paper.pdf", Options{}))
	for _, c := range []struct {
		name             string
		dpi, skew, noise float64
		min              float64
	}{
		{"200 dpi, 1.5° skew, 1% noise", 200, 1.5, 0.01, 0.85},
		{"150 dpi, 3° skew", 150, 3, 0, 0.75},
	} {
		d, err := Read(context.Background(), scanOf(t, "testdata/paper.pdf", c.dpi, c.skew, c.noise, nil), Options{OCR: eng})
		if err != nil {
			t.Fatal(err)
		}
		r := recall(original, markdown(t, d))
		t.Logf("%s: word recall %.3f", c.name, r)
		if r < c.min {
			t.Errorf("%s: recall %.3f < %.2f", c.name, r, c.min)
		}
	}
}

func TestOnlyPagesWithoutTextAreRecognised(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	d := read(t, "paper.pdf", Options{OCR: eng})
	if d.OCRPages() != 0 || d.Unread != 0 {
		t.Fatalf("a born-digital paper was recognised: %d pages, %d unread", d.OCRPages(), d.Unread)
	}
	// A one-line page is readable as it is: judged per page, not by a count.
	hello := pdftest.Text(t, "Hello, world!")
	h, err := Read(context.Background(), hello, Options{OCR: eng})
	if err != nil {
		t.Fatal(err)
	}
	if md := markdown(t, h); !strings.Contains(md, "Hello, world!") || h.OCRPages() != 0 {
		t.Fatalf("one-line page: %q, ocr %d", md, h.OCRPages())
	}
}

func TestWithoutOCRAScanSaysWhatIsMissing(t *testing.T) {
	d, err := Read(context.Background(), scanOf(t, "testdata/paper.pdf", 100, 0, 0, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Markdown()
	if d.Unread != 2 || !errs.Is(err, errs.Conversion) || !strings.Contains(errs.HintOf(err), "tesseract-ocr") {
		t.Fatalf("unread %d, err %v (hint %q)", d.Unread, err, errs.HintOf(err))
	}
}

func TestHugePageIsNotRenderedForOCR(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	eng.Limits.MaxPixels = 1_000_000 // an A4 page needs ~8.7 Mpx at 300 dpi, 2.2 at 150
	d, err := Read(context.Background(), scanOf(t, "testdata/paper.pdf", 100, 0, 0, nil), Options{OCR: eng})
	if err != nil {
		t.Fatal(err)
	}
	if d.OCRPages() != 0 || d.Unread != 2 || len(d.Warnings) != 2 || !strings.Contains(d.Warnings[1], "too large") {
		t.Fatalf("ocr %d, unread %d, warnings %q", d.OCRPages(), d.Unread, d.Warnings)
	}
	// The refusal says why, not "a blank or very poor scan".
	if _, err := d.Markdown(); !strings.Contains(errs.HintOf(err), "too large to recognise") {
		t.Fatalf("the reason is lost: %v (hint %q)", err, errs.HintOf(err))
	}
}

func TestCancelStopsOCR(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	ctx, cancel := context.WithCancel(context.Background())
	scan := scanOf(t, "testdata/paper.pdf", 200, 0, 0, nil)
	_, err := Read(ctx, scan, Options{OCR: eng, Progress: func(Progress) { cancel() }})
	if !errs.Is(err, errs.Cancelled) {
		t.Fatalf("err = %v", err)
	}
}

func TestEncryptedFileAsksForItsPassword(t *testing.T) {
	_, err := Read(context.Background(), "testdata/encrypted.pdf", Options{})
	if !errs.Is(err, errs.Locked) || !strings.Contains(err.Error(), "encrypted") || !strings.Contains(errs.HintOf(err), "--password") {
		t.Fatalf("no password: %v", err)
	}
	_, err = Read(context.Background(), "testdata/encrypted.pdf", Options{Password: "guess"})
	if !errs.Is(err, errs.Locked) || !strings.Contains(err.Error(), "wrong") || strings.Contains(err.Error(), "guess") {
		t.Fatalf("wrong password: %v", err)
	}
	d, err := Read(context.Background(), "testdata/encrypted.pdf", Options{Password: "s3cret-Pw"})
	if err != nil {
		t.Fatal(err)
	}
	if md := markdown(t, d); !strings.Contains(md, "sparse attention keeps accuracy") {
		t.Fatalf("decrypted text: %s", md)
	}
}

// A text layer of unmappable glyphs (U+FFFD) is treated as no text layer:
// left out of the index without OCR, recognised with it.
func TestUnmappableTextIsRecognisedNotIndexed(t *testing.T) {
	lines := []string{"Unmappable glyphs become searchable words", "after the page is recognised"}
	path := pdftest.Unmappable(t, lines...)
	d, err := Read(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Unread != 1 || d.HasText() {
		t.Fatalf("without OCR: unread %d, has text %v", d.Unread, d.HasText())
	}
	if _, err := d.Markdown(); !errs.Is(err, errs.Conversion) {
		t.Fatalf("garbage was converted: %v", err)
	}
	eng := ocrtest.Engine(t, "eng")
	d, err = Read(context.Background(), path, Options{OCR: eng})
	if err != nil {
		t.Fatal(err)
	}
	md := markdown(t, d)
	if d.OCRPages() != 1 || strings.ContainsRune(md, Replacement) || recall(strings.Join(lines, " "), md) < 0.95 {
		t.Fatalf("ocr %d: %q", d.OCRPages(), md)
	}
}

// The document's time limit stops hostile files, not long scans: time in
// Tesseract is bounded per page and does not count against it.
func TestOCRTimeDoesNotCountAgainstTheDocumentLimit(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	scan := scanOf(t, "testdata/paper.pdf", 200, 0, 0, nil)
	start := time.Now()
	d, err := Read(context.Background(), scan, Options{OCR: eng, Limits: Limits{DocTimeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); d.OCRPages() != 2 || took < time.Second {
		t.Fatalf("ocr %d pages in %s: the test needs recognition slower than the limit", d.OCRPages(), took)
	}
}

// stampedPage is a full-page scan whose text layer is only a library's
// download stamp along the bottom edge (at y from the top, in points).
func stampedPage(y float64) Page {
	p := Page{Width: 612, Height: 792, ImageCover: 1}
	stamp := "This content downloaded from 128.32.10.230 on Mon, 02 Mar 2020 17:05:11 UTC. All use subject to https://about.jstor.org/terms"
	for i, r := range stamp {
		x := 40 + float64(i)*4
		p.Chars = append(p.Chars, Char{R: r, Size: 7, Box: Rect{x, y, x + 4, y + 7}})
	}
	return p
}

// A scan that only carries a download stamp is a scan: its body is read by
// OCR. The same letters across the middle of an image page are text.
func TestAStampedScanIsNotReadable(t *testing.T) {
	if stampedPage(770).Readable() {
		t.Fatal("a stamped scan was taken as readable: its body would never be recognised")
	}
	if !stampedPage(400).Readable() {
		t.Fatal("text across the middle of an image page is text")
	}
	if p := stampedPage(770); func() bool { p.ImageCover = 0.1; return !p.Readable() }() {
		t.Fatal("a born-digital page with a footer is readable")
	}
}
