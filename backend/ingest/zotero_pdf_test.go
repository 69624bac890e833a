package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// pdfLine is one line of a PDF page: its text as the page's characters
// spell it, and its box in Zotero's coordinates (PDF points, origin at the
// bottom left), as Zotero's reader stores a highlight of it.
type pdfLine struct {
	page int // 0-based, as Zotero counts
	text string
	rect [4]float64
}

// pdfLines lists the lines of at least three words on the PDF's pages.
func pdfLines(t *testing.T, path string) []pdfLine {
	t.Helper()
	doc, err := pdf.Read(context.Background(), path, pdf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []pdfLine
	for pi, p := range doc.Pages {
		for i := 0; i < len(p.Chars); {
			j, box := i, p.Chars[i].Box
			var b strings.Builder
			for ; j < len(p.Chars) && p.Chars[j].Block == p.Chars[i].Block && p.Chars[j].Line == p.Chars[i].Line; j++ {
				c := p.Chars[j]
				b.WriteRune(c.R)
				box = pdf.Rect{X0: min(box.X0, c.Box.X0), Y0: min(box.Y0, c.Box.Y0), X1: max(box.X1, c.Box.X1), Y1: max(box.Y1, c.Box.Y1)}
			}
			text := strings.Join(strings.Fields(b.String()), " ")
			if len(strings.Fields(text)) >= 3 && p.Chars[i].Upright && !strings.HasSuffix(text, "-") {
				out = append(out, pdfLine{page: pi, text: text, rect: [4]float64{box.X0, p.Height - box.Y1, box.X1, p.Height - box.Y0}})
			}
			i = j
		}
	}
	return out
}

// annotationTexts maps each stored Zotero annotation's key to its chunk.
func annotationTexts(t *testing.T, s *kb.Store) map[string]kb.Chunk {
	t.Helper()
	chunks, err := s.Document(context.Background(), kb.Filter{DocTypes: []string{kb.DocPaper}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kb.Chunk{}
	for _, c := range chunks {
		if k := c.Meta.Extra[ZoteroAnnotationField]; k != "" {
			out[k] = c
		}
	}
	return out
}

// A highlight Zotero stored without its text takes the words under its
// rects from the PDF; one with text keeps Zotero's. The rects are Zotero's
// (bottom-left origin), so this also holds the two coordinate systems to
// each other.
func TestZoteroHighlightWithoutTextTakesTheWordsUnderItsRects(t *testing.T) {
	paper, _ := filepath.Abs("../pdf/testdata/paper.pdf")
	lines := pdfLines(t, paper)
	if len(lines) < 2 {
		t.Fatal("paper.pdf has no lines to mark")
	}
	first, second := lines[0], lines[len(lines)/2]
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	t.Cleanup(db.Close)
	db.AddItem(zotero.Item{Key: "RECTS234", Type: "journalArticle", Title: "Rects", Fields: map[string]string{"title": "Rects"},
		Attachments: []zotero.Attachment{{Key: "RECTSPDF", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: paper,
			Annotations: []zotero.Annotation{
				{Key: "EMPTYTXT", Type: zotero.Highlight, PageIndex: first.page, Rects: [][4]float64{first.rect}, Comment: "filled from the page"},
				{Key: "HASTEXT2", Type: zotero.Underline, Text: "as Zotero saved it", PageIndex: second.page, Rects: [][4]float64{second.rect}},
			}}}})
	s := zoteroStore(t)
	if _, err := (&ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}}).Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := annotationTexts(t, s)
	if c := got["EMPTYTXT"].Content; !strings.Contains(c, first.text) || !strings.Contains(c, "filled from the page") {
		t.Fatalf("the empty highlight: %q, want the line %q", c, first.text)
	}
	if c := got["HASTEXT2"].Content; !strings.Contains(c, "as Zotero saved it") {
		t.Fatalf("a highlight with text: %q", c)
	}
}

// A library built with Zotero's own schema from Zotero's own test PDFs:
// 200 items, each with a highlight of a real line (every seventh saved
// without text, as Zotero does for a page it could not read), notes, tags,
// nested collections, a trashed item and a linked file. Every highlight is
// stored with the words the PDF has under its rects.
func TestZoteroRealSchemaLibraryOf200Items(t *testing.T) {
	dir := t.TempDir()
	db := zoterotest.NewReal(t, dir) // skips without ../shared/fixtures/zotero
	t.Cleanup(db.Close)
	var pdfs []string
	var lines [][]pdfLine
	for _, name := range []string{"duplicatesMerge_annotated_1.pdf", "recognizePDF_test_DOI.pdf", "recognizePDF_test_arXiv.pdf", "wonderland_short.pdf"} {
		p := filepath.Join(zoterotest.FixtureDir(), name)
		if ls := pdfLines(t, p); len(ls) > 0 { // one of them is a scan: nothing to highlight
			pdfs, lines = append(pdfs, p), append(lines, ls)
		}
	}
	if len(pdfs) < 2 {
		t.Fatalf("only %d of Zotero's test PDFs have text", len(pdfs))
	}
	linked := filepath.Join(t.TempDir(), "linked.pdf")
	data, err := os.ReadFile(pdfs[17%len(pdfs)])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(linked, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // annotation key → text it must be stored with
	for i := range 200 {
		f := i % len(pdfs)
		ln := lines[f][(i/len(pdfs))%len(lines[f])]
		key := fmt.Sprintf("ITEM%04d", i)
		ann := zotero.Annotation{Key: fmt.Sprintf("ANNO%04d", i), Type: []string{zotero.Highlight, zotero.Underline}[i%2], Text: ln.text,
			Comment: fmt.Sprintf("comment %d", i), Color: "#ffd400", PageIndex: ln.page, PageLabel: fmt.Sprint(ln.page + 1), Rects: [][4]float64{ln.rect},
			SortIndex: fmt.Sprintf("%05d|000100|00080", ln.page)}
		if i%7 == 0 {
			ann.Text = ""
		}
		want[ann.Key] = ln.text
		att := zotero.Attachment{Key: fmt.Sprintf("ATTA%04d", i), ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: pdfs[f], Annotations: []zotero.Annotation{ann}}
		if i == 17 {
			att.LinkMode, att.Path = zotero.LinkedFile, linked
		}
		db.AddItem(zotero.Item{Key: key, Type: "journalArticle", Title: fmt.Sprintf("Item %d", i),
			Fields:      map[string]string{"title": fmt.Sprintf("Item %d", i), "date": fmt.Sprint(1990 + i%30)},
			Creators:    []zotero.Creator{{First: "Ada", Last: fmt.Sprintf("Author%d", i), Type: "author"}},
			Tags:        []string{fmt.Sprintf("tag%d", i%10)},
			Collections: []string{fmt.Sprintf("Thesis/Chapter %d/Part %d", i%5, i%3)},
			Attachments: []zotero.Attachment{att},
			Notes:       []zotero.ChildNote{{Key: fmt.Sprintf("NOTE%04d", i), HTML: fmt.Sprintf("<p>Reading note %d</p>", i)}}})
	}
	db.Trash("ITEM0013")
	s := zoteroStore(t)
	res, err := (&ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}}).Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 199 || res.Added != 199 || res.Annotations != 199 {
		t.Fatalf("sync: %+v", res)
	}
	got := annotationTexts(t, s)
	for key, text := range want {
		c, ok := got[key]
		switch {
		case key == "ANNO0013":
			if ok {
				t.Errorf("the trashed item's highlight is stored")
			}
		case !ok:
			t.Errorf("%s is not stored", key)
		case !strings.Contains(c.Content, text):
			t.Errorf("%s: %q lacks the words under its rects %q", key, c.Content, text)
		}
	}
	if c := got["ANNO0017"]; c.Meta.FilePath != linked {
		t.Errorf("the linked file: %q", c.Meta.FilePath)
	}
	under, err := s.List(context.Background(), kb.Filter{Collection: "Thesis/Chapter 2"}, 0)
	if err != nil || len(under) != 40 {
		t.Fatalf("items under Thesis/Chapter 2: %d %v", len(under), err)
	}
}
