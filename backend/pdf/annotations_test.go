package pdf

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// The reading fixture is built at test time in Courier, whose glyphs are
// all 0.6 em wide, so every annotation's quads can be put exactly on the
// characters a reader would have marked.
const (
	courierSize = 10.0
	courierW    = 0.6 * courierSize
	leftMargin  = 72.0
	firstLine   = 700.0
	leading     = 14.0
)

// span is a run of characters on one line of the fixture: line index,
// first column, length.
type span struct{ line, col, n int }

// quadPoints is the /QuadPoints array of spans (PDF space, y up).
func quadPoints(spans ...span) string {
	var q []string
	for _, s := range spans {
		x0 := leftMargin + float64(s.col)*courierW
		x1 := x0 + float64(s.n)*courierW
		base := firstLine - float64(s.line)*leading
		y0, y1 := base-2, base+8
		q = append(q, fmt.Sprintf("%.2f %.2f %.2f %.2f %.2f %.2f %.2f %.2f", x0, y1, x1, y1, x0, y0, x1, y0))
	}
	return "[" + strings.Join(q, " ") + "]"
}

// at finds text on a line of the fixture: the span covering it.
func at(lines []string, line int, text string) span {
	col := strings.Index(lines[line], text)
	if col < 0 {
		panic(fmt.Sprintf("%q is not on line %d", text, line))
	}
	return span{line, col, len(text)}
}

// readingPDF is one page of Courier lines with the given annotations
// (dictionaries; object numbers start at 6, in order).
func readingPDF(t *testing.T, lines []string, annots ...string) string {
	t.Helper()
	var content strings.Builder
	fmt.Fprintf(&content, "BT /F1 %g Tf %g TL %g %g Td\n", courierSize, leading, leftMargin, firstLine)
	for _, l := range lines {
		fmt.Fprintf(&content, "(%s) Tj T*\n", strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l))
	}
	content.WriteString("ET")
	var refs []string
	for i := range annots {
		refs = append(refs, fmt.Sprintf("%d 0 R", 6+i))
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [" + strings.Join(refs, " ") + "] >>",
		pdftest.Stream("", content.String()),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>",
	}
	return pdftest.Build(t, append(objs, annots...)...)
}

func markupAnnot(subtype string, extra string, spans ...span) string {
	return fmt.Sprintf("<< /Type /Annot /Subtype /%s /Rect [0 0 612 792] /QuadPoints %s %s >>", subtype, quadPoints(spans...), extra)
}

var reading = []string{
	"Modern CPUs keep the segment regis-",
	"ters, and TLB tags for address spaces.",
	"A mixed-mode interpreter runs in mixed",
	"mode; the interpreter uses a mixed-",
	"mode loop. Operand widths are counted,",
	"as in Adobe Acrobat Reader today.",
	"The \x93Skylake\x94 core adds more state.",
}

func TestMarksReadExactlyWhatWasMarked(t *testing.T) {
	l := reading
	path := readingPDF(t, l,
		// 6: across a hyphenated line break (MuPDF's dehyphenation used to
		// move "ters," onto the line above and lose the word).
		markupAnnot("Highlight", "", span{0, strings.Index(l[0], "segment"), len("segment regis-")}, at(l, 1, "ters, and TLB tags")),
		// 7: a compound broken at its hyphen keeps it: the document uses
		// both halves as words.
		markupAnnot("Underline", "/Contents (where it runs)", at(l, 3, "uses a mixed"), at(l, 4, "mode loop")),
		// 8: part of a word.
		markupAnnot("StrikeOut", "", span{4, strings.Index(l[4], "are") + 2, 1}),
		// 9: only punctuation, with the reader's comment.
		markupAnnot("StrikeOut", "/Contents (Struck comma)", span{4, strings.Index(l[4], "counted,") + 7, 1}),
		// 10: typographic quotes are part of the marked text.
		markupAnnot("Squiggly", "", at(l, 6, "\x93Skylake\x94 core")),
	)
	marks := readPath(t, path).Marks()
	want := []string{
		"[HIGHLIGHT p.1] segment registers, and TLB tags",
		"[UNDERLINE p.1] uses a mixed-mode loop\nNote: where it runs",
		"[STRIKEOUT p.1] e\nContext: …loop. Operand widths are counted, as in Adobe…",
		"[STRIKEOUT p.1] ,\nContext: …Operand widths are counted, as in Adobe Acrobat…\nNote: Struck comma",
		"[SQUIGGLY p.1] “Skylake” core",
	}
	if len(marks) != len(want) {
		t.Fatalf("got %d marks: %+v", len(marks), marks)
	}
	for i, w := range want {
		if marks[i].String() != w {
			t.Errorf("mark %d:\n got %q\nwant %q", i, marks[i].String(), w)
		}
		if marks[i].Kind != KindHighlight {
			t.Errorf("mark %d kind %q", i, marks[i].Kind)
		}
	}
	if marks[3].Text != "," || marks[3].Comment != "Struck comma" {
		t.Fatalf("the comment must not stand in for the struck text: %+v", marks[3])
	}
}

// readPath reads a fixture by path.
func readPath(t *testing.T, path string) *Document {
	t.Helper()
	d, err := Read(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestMarksCaretsAndReplacements(t *testing.T) {
	l := reading
	reader := at(l, 5, "Adobe Acrobat Reader")
	// A caret box sits at the insertion point, just below the baseline.
	caretX := leftMargin + float64(strings.Index(l[2], " runs"))*courierW
	caretY := firstLine - 2*leading
	path := readingPDF(t, l,
		// 6 + 7: Acrobat's "replace text" is a StrikeOut grouped with a Caret.
		markupAnnot("StrikeOut", "/IRT 7 0 R /RT /Group", reader),
		"<< /Type /Annot /Subtype /Caret /Rect [300 600 310 610] /Contents (Google Chrome) >>",
		// 8: a plain insertion.
		fmt.Sprintf("<< /Type /Annot /Subtype /Caret /Rect [%.2f %.2f %.2f %.2f] /Contents (quickly) >>", caretX-3, caretY-4, caretX+3, caretY+2),
	)
	marks := readPath(t, path).Marks()
	if len(marks) != 2 {
		t.Fatalf("marks = %+v", marks)
	}
	if s := marks[0].String(); s != "[REPLACE p.1] Adobe Acrobat Reader → Google Chrome" {
		t.Errorf("replacement = %q", s)
	}
	if s := marks[1].String(); s != "[INSERT p.1] quickly\nContext: …spaces. A mixed-mode interpreter‸ runs in mixed mode;…" {
		t.Errorf("insertion = %q", s)
	}
	if marks[1].Kind != KindNote || marks[1].Subtype != "Caret" {
		t.Errorf("insertion kind = %+v", marks[1])
	}
}

func TestMarksNormaliseComments(t *testing.T) {
	path := readingPDF(t, reading,
		// 6: Acrobat's bare CRs and a blank line between paragraphs.
		"<< /Type /Annot /Subtype /Text /Rect [500 700 520 720] /Contents (see fo\rand: bar\r\r\rsecond paragraph  ) >>",
		// 7: the note exists only as rich text.
		"<< /Type /Annot /Subtype /Text /Rect [500 600 520 620] /RC (<?xml version=\"1.0\"?><body xmlns=\"http://www.w3.org/1999/xhtml\"><p>Rich &amp; only</p><p>two</p></body>) >>",
		// 8: a review-state record answering note 6 is not a comment.
		"<< /Type /Annot /Subtype /Text /Rect [500 700 520 720] /IRT 6 0 R /State (Unmarked) /StateModel (Marked) /Contents (Unmarked set by Jonas) >>",
		// 9: a highlight with nothing under it keeps its comment as a comment.
		"<< /Type /Annot /Subtype /Highlight /Rect [400 100 500 120] /QuadPoints [400 120 500 120 400 100 500 100] /Contents (over the figure) >>",
		// 10: a shape's typed comment is the reader's words too.
		"<< /Type /Annot /Subtype /Square /Rect [400 300 500 400] /Contents (look at this table) >>",
	)
	var got []string
	for _, m := range readPath(t, path).Marks() {
		got = append(got, m.String())
	}
	want := []string{
		"[USER NOTE p.1] see fo\nand: bar\n\nsecond paragraph",
		"[USER NOTE p.1] Rich & only\n\ntwo",
		"[HIGHLIGHT p.1]\nNote: over the figure",
		"[USER NOTE p.1] look at this table",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

// A glyph taller than its line — the braces of "{gal,bz}@mozilla.com" in
// an author block, set larger than the text — pokes out of the reader's
// highlight but is part of what was marked: kept, not dropped (nor turned
// into a space).
func TestHighlightKeepsTallGlyphs(t *testing.T) {
	content := "BT 72 700 Td /F1 17 Tf ({) Tj /F1 10 Tf (gal,bz) Tj /F1 17 Tf (}) Tj /F1 10 Tf (@mozilla.com) Tj ET"
	annot := "<< /Type /Annot /Subtype /Highlight /Rect [70 699 300 707] /QuadPoints [70 707 300 707 70 699 300 699] >>"
	path := pdftest.Build(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> /Annots [6 0 R] >>",
		pdftest.Stream("", content),
		pdftest.Helvetica,
		annot)
	d, err := Read(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	marks := d.Marks()
	if len(marks) != 1 || marks[0].Text != "{gal,bz}@mozilla.com" {
		t.Fatalf("marks %+v", marks)
	}
}

// quadOf is the box (PDF space, origin bottom-left, as Marks are given) of
// the characters of part, the n-th time it occurs on the page's text.
func quadOf(t *testing.T, p Page, part string, n int) [4]float64 {
	t.Helper()
	var rs []rune
	for _, c := range p.Chars {
		rs = append(rs, c.R)
	}
	text, at := string(rs), -1
	for range n + 1 {
		i := strings.Index(text[at+1:], part)
		if i < 0 {
			t.Fatalf("%q is not on the page: %q", part, text)
		}
		at += 1 + i
	}
	from := len([]rune(text[:at]))
	box := p.Chars[from].Box
	for _, c := range p.Chars[from : from+len([]rune(part))] {
		box = union(box, c.Box)
	}
	return [4]float64{box.X0, p.Height - box.Y1, box.X1, p.Height - box.Y0}
}

// A highlight on part of a word of a scanned page reads as on a text
// layer: the recognised letters under its quads, with the words around it
// as context; a whole word, or a run ending mid-word, likewise. The same
// quads on the typed page and on its scan give the same marks, in a sans
// and a serif font (Tesseract boxes words, not letters: where a mark's
// edge falls inside a word is read off the page image).
func TestPartialWordHighlightsOnAScanReadAsOnText(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	lines := []string{"Sparse attention keeps Transformers accurate on long inputs.", "The method was proposed by Williams and Mumford in their notes."}
	parts := []string{"Transform", "Will", "accurate", "formers accu", "ford", "ill", "Mum", "notes", "ransf", "eps", "propos", "thod", "ttent", "ccur", "Sp", "ir no"}
	for _, font := range []string{"Helvetica", "Times-Roman", "Courier", "Times-Italic", "Helvetica-Bold"} {
		t.Run(font, func(t *testing.T) {
			page := pdftest.ScanPage{Text: lines, Font: font, Width: 612, Height: 792}
			plain := pdftest.Scan(t, page)
			text, err := Read(context.Background(), plain, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				page.Marks = append(page.Marks, quadOf(t, text.Pages[0], p, 0))
			}
			born, err := Read(context.Background(), pdftest.Scan(t, page), Options{})
			if err != nil {
				t.Fatal(err)
			}
			png, _, err := PagePNG(plain, 1, 300)
			if err != nil {
				t.Fatal(err)
			}
			scan := pdftest.ScanPage{Image: pdftest.Gray(t, png), Width: 612, Height: 792, Marks: page.Marks}
			d, err := Read(context.Background(), pdftest.Scan(t, scan), Options{OCR: eng})
			if err != nil {
				t.Fatal(err)
			}
			if !d.Pages[0].OCR {
				t.Fatal("the scan was not recognised")
			}
			want, got := born.Marks(), d.Marks()
			if len(want) != len(parts) || len(got) != len(parts) {
				t.Fatalf("marks: typed %+v, scanned %+v", want, got)
			}
			for i, p := range parts {
				if want[i].Text != p {
					t.Errorf("typed page: %q reads %q", p, want[i].Text)
				}
				if got[i].Text != want[i].Text || got[i].Context != want[i].Context {
					t.Errorf("%q: scanned %q (context %q), typed %q (context %q)", p, got[i].Text, got[i].Context, want[i].Text, want[i].Context)
				}
			}
			// The partial-word rule itself: a short part of a word has the
			// words around it as context, a whole word has none.
			if got[0].Context != "…Sparse attention keeps Transformers accurate on long…" || got[2].Context != "" {
				t.Errorf("contexts %q, %q", got[0].Context, got[2].Context)
			}
		})
	}
}
