package pdf

import (
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// stampedPaper is page 1 of an arXiv preprint: the identifier stamped
// down the left margin, a title over two lines, a numbered section whose
// number and name are placed apart, a figure with panel labels and a
// symbol, and a page number.
func stampedPaper(t *testing.T) string {
	body := strings.Repeat("(Attention over long inputs costs memory that grows with the square of the length.) Tj T*\n", 12)
	content := "BT /F1 20 Tf 0 1 -1 0 36 250 Tm (arXiv:2401.00001v2  [cs.CL]  3 Jan 2024) Tj ET\n" +
		"BT /F1 17 Tf 72 720 Td (Sparse Attention for Very Long) Tj 0 -20 Td (Scientific Documents) Tj ET\n" +
		"BT /F1 12 Tf 72 640 Td (1) Tj ET BT /F1 12 Tf 90 640 Td (Introduction) Tj ET\n" +
		"BT /F1 10 Tf 12 TL 72 620 Td\n" + body + "ET\n" +
		"BT /F1 12 Tf 100 300 Td ((a)) Tj 200 0 Td ((b)) Tj ET BT /F2 12 Tf 300 280 Td (\\326) Tj ET\n" +
		"BT /F1 12 Tf 300 40 Td (3) Tj ET"
	return pdftest.Build(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>",
		pdftest.Stream("", content),
		pdftest.Helvetica,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>")
}

func TestTitleAndHeadingsSkipStampsLabelsAndPageNumbers(t *testing.T) {
	d := readPath(t, stampedPaper(t))
	if g := d.Guess(); g.Title != "Sparse Attention for Very Long Scientific Documents" {
		t.Fatalf("title = %q", g.Title)
	}
	md, err := d.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "#") {
			headings = append(headings, l)
		}
	}
	want := []string{"# Sparse Attention for Very Long Scientific Documents", "## 1 Introduction"}
	if strings.Join(headings, "|") != strings.Join(want, "|") {
		t.Fatalf("headings = %q\n%s", headings, md)
	}
}

func TestInfoTitleCutShortGivesWayToThePage(t *testing.T) {
	d := readPath(t, stampedPaper(t))
	d.Title = "Sparse Attention for Very Long" // a producer cut it at the line break
	if g := d.Guess(); g.Title != "Sparse Attention for Very Long Scientific Documents" {
		t.Fatalf("title = %q", g.Title)
	}
	d.Title = "A Different Title Someone Set"
	if g := d.Guess(); g.Title != d.Title {
		t.Fatalf("an unrelated info title still wins: %q", g.Title)
	}
}
