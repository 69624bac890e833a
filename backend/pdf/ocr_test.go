package pdf

import (
	"context"
	"encoding/json"
	"image"
	"math"
	"os"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr"
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
	// Two pages of 2 s each in (fake) Tesseract against a 3 s document
	// limit: the rest of reading two blank pages takes a small part of a
	// second, so a machine under load does not decide the outcome.
	fake := ocrtest.NewFake(t, "sleep 2\n"+ocrtest.Answer("slow", "scan"))
	scan := pdftest.Scan(t, blankPages(2)...)
	start := time.Now()
	d, err := Read(context.Background(), scan, Options{OCR: fake.Engine, Limits: Limits{DocTimeout: 3 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); d.OCRPages() != 2 || took < 3*time.Second {
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

// blankPages are n scanned pages of empty paper, a small image each over
// an A4 page (what the words on them are is the fake tesseract's to say).
func blankPages(n int) []pdftest.ScanPage { return pdftest.BlankPages(n, 100, 140, 595, 842) }

// A page whose recognition outlasts the per-page time limit fails alone:
// it is left unread with a typed error saying which limit stopped it,
// and the pages after it are recognised.
func TestAPageOverTheOCRTimeLimitFailsAloneAndTheRestIsRead(t *testing.T) {
	// The first page stalls; the others answer at once.
	fake := ocrtest.NewFake(t, `if [ "$(grep -c run "$FAKE_DIR/runs")" -eq 1 ]; then `+ocrtest.Stall+"; fi\n"+ocrtest.Answer("recognised", "afterwards"))
	fake.Limits.Timeout = 2 * time.Second
	scan := pdftest.Scan(t, blankPages(3)...)
	var done []Progress
	d, err := Read(context.Background(), scan, Options{OCR: fake.Engine, Progress: func(p Progress) { done = append(done, p) }})
	if err != nil {
		t.Fatal(err)
	}
	first := d.Pages[0]
	if first.OCR || ocr.LimitOf(first.OCRError) != ocr.TimeLimit || !errs.Is(first.OCRError, errs.Conversion) || errs.Is(first.OCRError, errs.Cancelled) {
		t.Fatalf("page 1: ocr %v, error %v", first.OCR, first.OCRError)
	}
	for _, p := range d.Pages[1:] {
		if !p.OCR || p.OCRError != nil {
			t.Errorf("page %d: ocr %v, error %v", p.Number, p.OCR, p.OCRError)
		}
	}
	if d.Unread != 1 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "page 1 not recognised") || !strings.Contains(d.Warnings[0], "time limit") {
		t.Fatalf("unread %d, warnings %q", d.Unread, d.Warnings)
	}
	if fake.Runs() != 3 || len(done) != 3 {
		t.Fatalf("%d recognitions, progress %+v", fake.Runs(), done)
	}
	if md := markdown(t, d); strings.Count(md, "recognised afterwards") != 2 || strings.Contains(md, "<!-- page 1 -->") {
		t.Fatalf("markdown:\n%s", md)
	}
}

// A page too large to recognise (a 200×200-inch poster page: 900 Mpx
// even at the lowest resolution OCR accepts) is refused by its pixel
// count before MuPDF renders it — rendered, it would fail the document's
// 512 MB memory cap instead, or reach tesseract — and the next page is read.
func TestAHugePageIsRefusedByItsPixelCountBeforeRendering(t *testing.T) {
	fake := ocrtest.NewFake(t, ocrtest.Answer("ordinary", "page"))
	pages := blankPages(2)
	pages[0].Width, pages[0].Height = 14400, 14400
	d, err := Read(context.Background(), pdftest.Scan(t, pages...), Options{OCR: fake.Engine})
	if err != nil {
		t.Fatal(err)
	}
	huge := d.Pages[0]
	if huge.OCR || ocr.LimitOf(huge.OCRError) != ocr.PixelLimit || !strings.Contains(huge.OCRError.Error(), "14400×14400 points, too large to recognise within 40 Mpx") {
		t.Fatalf("huge page: ocr %v, error %v", huge.OCR, huge.OCRError)
	}
	if !d.Pages[1].OCR || fake.Runs() != 1 || d.Unread != 1 {
		t.Fatalf("next page ocr %v, %d recognitions, unread %d", d.Pages[1].OCR, fake.Runs(), d.Unread)
	}
	// Through Locate (the viewer) the same page is refused the same way.
	if _, err := LocateContext(context.Background(), d.Path, 1, "ordinary page", fake.Engine); ocr.LimitOf(err) != ocr.PixelLimit || fake.Runs() != 1 {
		t.Fatalf("locate: %v, %d recognitions", err, fake.Runs())
	}
}

// scannedText is a page showing lines as a 300 dpi scan shows them: drawn
// by MuPDF into a grey image, with no text layer left.
func scannedText(t testing.TB, lines ...string) pdftest.ScanPage {
	t.Helper()
	data, _, err := PagePNG(pdftest.Text(t, lines...), 1, 300)
	if err != nil {
		t.Fatal(err)
	}
	return pdftest.ScanPage{Image: pdftest.Gray(t, data), Width: 612, Height: 792}
}

// A document of born-digital pages with one scanned page among them: only
// the scanned page goes to Tesseract, its words are found beside the text
// layer's, and only it is marked as recognised.
func TestAMixedDocumentRecognisesOnlyItsScannedPage(t *testing.T) {
	fake := ocrtest.Counting(t) // the real tesseract, its runs counted
	first := []string{"The introduction is typed, with a text layer of its own."}
	scanned := []string{"Quarterly inventory ledger photocopied from the archive", "Warehouse totals reconciled by hand in March"}
	last := []string{"The conclusion is typed as well, and needs no recognition."}
	path := pdftest.Scan(t,
		pdftest.ScanPage{Text: first, Width: 612, Height: 792},
		scannedText(t, scanned...),
		pdftest.ScanPage{Text: last, Width: 612, Height: 792})
	var progress []Progress
	d, err := Read(context.Background(), path, Options{OCR: fake.Engine, Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if fake.Runs() != 1 || d.OCRPages() != 1 || !d.Pages[1].OCR || d.Pages[0].OCR || d.Pages[2].OCR || d.Unread != 0 {
		t.Fatalf("%d recognitions, ocr pages %v %v %v, unread %d", fake.Runs(), d.Pages[0].OCR, d.Pages[1].OCR, d.Pages[2].OCR, d.Unread)
	}
	if len(progress) != 3 || progress[0].OCR || !progress[1].OCR || progress[2].OCR {
		t.Fatalf("progress %+v", progress)
	}
	md := markdown(t, d)
	for _, want := range []string{first[0], last[0]} {
		if !strings.Contains(md, want) {
			t.Errorf("the text layer's %q is missing:\n%s", want, md)
		}
	}
	page2 := md[strings.Index(md, PageMarker(2)):strings.Index(md, PageMarker(3))]
	if r := recall(strings.Join(scanned, " "), page2); r < 0.95 {
		t.Fatalf("the scanned page's words: recall %.2f in %q", r, page2)
	}
}

// Letters are placed within a recognised word by the blank columns
// between its glyphs: each gap is an edge, letters that touch share their
// run by typical widths, and the blank margin of a loose word box parts
// nothing.
func TestLetterEdgesFollowTheGapsBetweenGlyphs(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 200, 40))
	for i := range g.Pix {
		g.Pix[i] = 0xff
	}
	ink := func(x0, x1 int) {
		for y := 10; y < 30; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*g.Stride+x] = 0
			}
		}
	}
	// "mill": a wide m, then i and l apart, then the two l's touching.
	ink(20, 60)                                                // m
	ink(64, 70)                                                // i
	ink(74, 80)                                                // l
	ink(80, 86)                                                // l, touching the first
	w := ocr.Word{Text: "mill", X0: 12, Y0: 8, X1: 90, Y1: 32} // 8 px of blank margin on the left
	got := letterEdges(g, w, []rune(w.Text))
	want := []float64{12, 62, 72, 81, 90} // m|i and i|l at their gaps; l|l halfway through the run of equal letters
	for k := range want {
		if math.Abs(got[k]-want[k]) > 0.01 {
			t.Fatalf("edges %v, want %v", got, want)
		}
	}
	// Without the page image the typical widths alone place them.
	if est := letterEdges(nil, w, []rune(w.Text)); est[1] <= est[0] || est[4] != 90 || math.Abs(est[1]-est[0]-(78*833/1499)) > 0.5 {
		t.Fatalf("estimates %v", est)
	}
}
