package pdf

import (
	"bytes"
	"context"
	"image/png"
	"strings"
	"testing"

	fitz "github.com/gen2brain/go-fitz"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func read(t testing.TB, name string, opts Options) *Document {
	t.Helper()
	d, err := Read(context.Background(), "testdata/"+name, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestHeadersMatchTheLinkedLibrary(t *testing.T) {
	if headerVersion != fitz.FzVersion {
		t.Fatalf("third_party/mupdf headers are %s but go-fitz links %s; copy the headers of the linked version", headerVersion, fitz.FzVersion)
	}
}

func TestMarkdownHeadingsParagraphsAndPageMarkers(t *testing.T) {
	md, err := read(t, "paper.pdf", Options{}).Markdown()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		PageMarker(1),
		"# Sparse Attention for Long Documents\n",
		"## 1 Introduction\n",
		"Transformers compare every token with every other token, which is costly. We show that sparse attention keeps accuracy",
		PageMarker(2),
		"## 2 Method\n",
		"The window size is chosen per layer from a validation sweep.",
	}
	at := 0
	for _, w := range want {
		i := strings.Index(md[at:], w)
		if i < 0 {
			t.Fatalf("missing (or out of order) %q in:\n%s", w, md)
		}
		at += i + len(w)
	}
	if strings.Contains(md, "# Ada Example") {
		t.Fatal("the author line (12pt, just above body size) must not become a heading")
	}
}

func TestScannedPDFIsAConversionError(t *testing.T) {
	d := read(t, "scanned.pdf", Options{})
	if d.HasText() {
		t.Fatal("scanned page reported as text")
	}
	if _, err := d.Markdown(); !errs.Is(err, errs.Conversion) || errs.HintOf(err) == "" {
		t.Fatalf("err = %v", err)
	}
	if _, err := Read(context.Background(), "testdata/missing.pdf", Options{}); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := Read(context.Background(), "testdata/make_fixtures.py", Options{}); !errs.Is(err, errs.Conversion) {
		t.Fatalf("not a PDF: %v", err)
	}
}

func TestMarksRecoverHighlightedTextAndNotes(t *testing.T) {
	marks := read(t, "annotated.pdf", Options{}).Marks()
	if len(marks) != 4 {
		t.Fatalf("want highlight, underline, sticky note, free text (no ink); got %+v", marks)
	}
	hl := marks[0]
	if hl.Kind != KindHighlight || hl.Page != 1 || hl.Text != "sparse attention keeps accuracy" || hl.Comment != "key idea: accuracy holds" {
		t.Fatalf("highlight = %+v", hl)
	}
	if hl.String() != "[HIGHLIGHT p.1] sparse attention keeps accuracy\nNote: key idea: accuracy holds" {
		t.Fatalf("chunk text = %q", hl.String())
	}
	if ul := marks[1]; ul.Kind != KindHighlight || ul.Subtype != "Underline" || ul.Page != 2 || ul.Text != "validation sweep" {
		t.Fatalf("underline = %+v", ul)
	}
	if n := marks[2]; n.Kind != KindNote || n.Text != "check the proof of lemma 2" || n.Label() != "[USER NOTE p.2]" {
		t.Fatalf("note = %+v", n)
	}
	if ft := marks[3]; ft.Subtype != "FreeText" || ft.Text != "TODO cite the Longformer paper" {
		t.Fatalf("free text = %+v", ft)
	}
	if len(read(t, "paper.pdf", Options{}).Marks()) != 0 {
		t.Fatal("an unannotated PDF has no marks")
	}
}

func TestFiguresSkipSmallImagesAndDecode(t *testing.T) {
	d := read(t, "paper.pdf", Options{Images: true, MinPixels: 40000})
	figs := d.Figures(20)
	if len(figs) != 1 || figs[0].Page != 1 || figs[0].Width != 400 || figs[0].Height != 250 {
		t.Fatalf("figures = %+v", figs)
	}
	img, err := png.Decode(bytes.NewReader(figs[0].PNG))
	if err != nil || img.Bounds().Dx() != 400 {
		t.Fatalf("figure is not a PNG of the image: %v", err)
	}
	if n := len(read(t, "paper.pdf", Options{Images: true, MinPixels: 1000}).Figures(20)); n != 2 {
		t.Fatalf("with a lower floor both images count: %d", n)
	}
	if n := len(read(t, "paper.pdf", Options{Images: true, MinPixels: 1000}).Figures(1)); n != 1 {
		t.Fatal("limit ignored")
	}
	if len(read(t, "paper.pdf", Options{}).Pages[0].Images) != 0 {
		t.Fatal("images extracted without being asked")
	}
}

func TestGuess(t *testing.T) {
	g := read(t, "paper.pdf", Options{}).Guess()
	if g.DOI != "10.1234/jarvis.5678" || g.Title != "Sparse Attention for Long Documents" || g.Authors != "Ada Example; Ben Sample" {
		t.Fatalf("guess = %+v", g)
	}
	// annotated.pdf lost its info dictionary: the title comes from the largest line.
	g = read(t, "annotated.pdf", Options{}).Guess()
	if g.Title != "Sparse Attention for Long Documents" || g.Authors != "" {
		t.Fatalf("guess without info = %+v", g)
	}
}

func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, "testdata/paper.pdf", Options{}); !errs.Is(err, errs.Cancelled) {
		t.Fatalf("err = %v", err)
	}
}

func BenchmarkConvert(b *testing.B) {
	pages := 0
	for b.Loop() {
		d := read(b, "paper.pdf", Options{})
		if _, err := d.Markdown(); err != nil {
			b.Fatal(err)
		}
		d.Marks()
		pages += len(d.Pages)
	}
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
}

func TestPagePNG(t *testing.T) {
	b, n, err := PagePNG("testdata/paper.pdf", 2, 50)
	if err != nil || n != 2 {
		t.Fatalf("%v %d", err, n)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() < 100 {
		t.Fatalf("not a page image: %v", err)
	}
	if _, _, err := PagePNG("testdata/paper.pdf", 3, 50); !errs.Is(err, errs.Invalid) {
		t.Fatalf("page 3 of 2: %v", err)
	}
}
