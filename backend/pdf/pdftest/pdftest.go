// Package pdftest writes small PDFs at test time — well-formed, damaged and
// hostile — so tests across packages drive the real MuPDF reader without
// committing such files.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Build writes a PDF whose objects are numbered from 1 in the order given,
// with a correct cross-reference table, into a fresh temporary directory,
// and returns its path. Object 1 must be the catalog.
func Build(t testing.TB, objects ...string) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	path := filepath.Join(t.TempDir(), "fixture.pdf")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Stream is a FlateDecode stream object holding content, with extra
// dictionary entries.
func Stream(dict, content string) string {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(content))
	w.Close()
	return fmt.Sprintf("<< %s /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", dict, z.Len(), z.Bytes())
}

// Helvetica is a standard-14 font dictionary.
const Helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

// OnePage is a catalog, a page tree claiming count pages, one page drawing
// content with Helvetica as /F1 (plus extra resources), and the font.
func OnePage(t testing.TB, count, resources, content string) string {
	t.Helper()
	return Build(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count "+count+" >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> "+resources+" >> >>",
		Stream("", content),
		Helvetica)
}

// Text is a one-page PDF showing lines of text.
func Text(t testing.TB, lines ...string) string {
	t.Helper()
	var c strings.Builder
	c.WriteString("BT /F1 12 Tf 14 TL 72 720 Td\n")
	for _, l := range lines {
		fmt.Fprintf(&c, "(%s) Tj T*\n", strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l))
	}
	c.WriteString("ET")
	return OnePage(t, "1", "", c.String())
}

// PageCountBomb claims ten billion pages and holds one; a reader that
// sizes its page map by the claim asks for tens of gigabytes.
func PageCountBomb(t testing.TB) string {
	t.Helper()
	return OnePage(t, "9999999999", "", "BT /F1 24 Tf 72 700 Td (Hello) Tj ET")
}

// TextFlood draws lines*perLine characters on one page: a small compressed
// stream that holds tens of megabytes once extracted.
func TextFlood(t testing.TB, lines, perLine int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("BT /F1 1 Tf 20 780 Td\n")
	// Lines 0.03 pt apart stay inside the page, where MuPDF keeps them.
	row := "(" + strings.Repeat("A", perLine) + ") Tj 0 -0.03 Td\n"
	for range lines {
		b.WriteString(row)
	}
	b.WriteString("ET")
	return OnePage(t, "1", "", b.String())
}

// FormBomb nests form XObjects depth deep, each drawing the next ten times:
// 10^depth tiny fills after a line of text, no memory to speak of and
// effectively endless work.
func FormBomb(t testing.TB, depth int) string {
	t.Helper()
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> >>",
		Stream("", "BT /F1 12 Tf 72 700 Td (Before the bomb) Tj ET /X Do"),
		Helvetica,
	}
	for i := 0; i < depth; i++ {
		res, body := "", "0 0 1 1 re f"
		if i < depth-1 {
			res = fmt.Sprintf("/Resources << /XObject << /X %d 0 R >> >>", len(objs)+2)
			body = strings.Repeat("/X Do ", 10)
		}
		objs = append(objs, Stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10] "+res, body))
	}
	return Build(t, objs...)
}

// Truncated copies the first n bytes of the file at path (n < 0: all but
// the last -n bytes) to a new temporary file.
func Truncated(t testing.TB, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n < 0 {
		n += len(b)
	}
	out := filepath.Join(t.TempDir(), "truncated.pdf")
	if err := os.WriteFile(out, b[:n], 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// ScanPage is one page of a scan: a grey image stretched over a page of
// Width×Height points, with highlights over Marks (page space, points,
// origin bottom-left as PDF stores them). A page with Text instead of an
// Image is born digital: those lines on a text layer (Helvetica 12 from
// the top-left margin, as Text draws them; Font names another standard
// font for them, such as Times-Roman), for documents that mix both.
type ScanPage struct {
	Image         *image.Gray
	Text          []string
	Font          string
	Width, Height float64
	Marks         [][4]float64
}

// Scan writes a PDF whose pages are only images, as a scanner makes them:
// no text layer, each page one Flate-compressed grey image, optionally
// with Highlight annotations drawn by a reader on top. Pages given Text
// are text pages among the scanned ones.
func Scan(t testing.TB, pages ...ScanPage) string {
	t.Helper()
	n := len(pages)
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", Helvetica}
	var kids []string
	for _, p := range pages {
		page := len(objs) + 1
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		var annots []string
		for k := range p.Marks {
			annots = append(annots, fmt.Sprintf("%d 0 R", page+3+k))
		}
		var content, xobject, res string
		font := "3 0 R"
		if p.Font != "" {
			font = "<< /Type /Font /Subtype /Type1 /BaseFont /" + p.Font + " >>"
		}
		if p.Image != nil {
			res = fmt.Sprintf("/XObject << /Im0 %d 0 R >>", page+2)
			content = fmt.Sprintf("q %g 0 0 %g 0 0 cm /Im0 Do Q", p.Width, p.Height)
			xobject = Stream(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8",
				p.Image.Rect.Dx(), p.Image.Rect.Dy()), string(p.Image.Pix))
		} else {
			var c strings.Builder
			fmt.Fprintf(&c, "BT /F1 12 Tf 14 TL 72 %g Td\n", p.Height-72)
			for _, l := range p.Text {
				fmt.Fprintf(&c, "(%s) Tj T*\n", strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l))
			}
			c.WriteString("ET")
			content = c.String()
			xobject = "<< >>" // unused: keeps every page three objects long
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents %d 0 R /Resources << /Font << /F1 %s >> %s >> /Annots [%s] >>",
				p.Width, p.Height, page+1, font, res, strings.Join(annots, " ")),
			Stream("", content),
			xobject)
		for _, m := range p.Marks {
			x0, y0, x1, y1 := m[0], m[1], m[2], m[3]
			objs = append(objs, fmt.Sprintf("<< /Type /Annot /Subtype /Highlight /Rect [%g %g %g %g] /QuadPoints [%g %g %g %g %g %g %g %g] /C [1 1 0] /P %d 0 R >>",
				x0, y0, x1, y1, x0, y1, x1, y1, x0, y0, x1, y0, page))
		}
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return Build(t, objs...)
}

// Degrade makes a clean rendering look scanned: rotated by skew degrees
// about its centre (white where the rotation uncovers the border) and
// salt-and-pepper noise flipping share of the pixels, from seed.
func Degrade(src *image.Gray, skew, share float64, seed int64) *image.Gray {
	b := src.Bounds()
	out := image.NewGray(b)
	sin, cos := math.Sincos(skew * math.Pi / 180)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := int(cos*dx+sin*dy+cx), int(-sin*dx+cos*dy+cy)
			v := uint8(255)
			if sx >= 0 && sy >= 0 && sx < b.Dx() && sy < b.Dy() {
				v = src.Pix[sy*src.Stride+sx]
			}
			out.Pix[y*out.Stride+x] = v
		}
	}
	rng := rand.New(rand.NewSource(seed))
	for range int(float64(len(out.Pix)) * share) {
		p := rng.Intn(len(out.Pix))
		out.Pix[p] = 255 - out.Pix[p]
	}
	return out
}

// BlankScan is a one-page scan of an empty sheet: an image and no text,
// nothing for OCR to find either.
func BlankScan(t testing.TB) string {
	t.Helper()
	return Scan(t, BlankPages(1, 200, 260, 612, 792)...)
}

// BlankPages are n scanned pages of empty paper, each a white w×h-pixel
// image over a page of width×height points: nothing for a real engine to
// find, so OCR tests across packages have a fake engine say what is on
// them.
func BlankPages(n, w, h int, width, height float64) []ScanPage {
	var out []ScanPage
	for range n {
		img := image.NewGray(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = 0xff
		}
		out = append(out, ScanPage{Image: img, Width: width, Height: height})
	}
	return out
}

// Unmappable is a one-page PDF whose text shows on the page but has no
// Unicode meaning, as in PDFs whose embedded fonts lost their maps: a
// CID font with Identity-H encoding and no ToUnicode, so MuPDF's text
// layer is U+FFFD throughout while its substitute font draws lines, glyph
// by glyph (the glyph ids are those of the standard Latin order, where
// 'A' is glyph 36 and the space glyph 3).
func Unmappable(t testing.TB, lines ...string) string {
	t.Helper()
	var c strings.Builder
	c.WriteString("BT /F1 14 Tf 18 TL 72 720 Td\n")
	for _, l := range lines {
		c.WriteString("<")
		for _, r := range l {
			gid := 3
			if r > ' ' && r < 127 {
				gid = int(r) - 29
			}
			fmt.Fprintf(&c, "%04X", gid)
		}
		c.WriteString("> Tj T*\n")
	}
	c.WriteString("ET")
	return Build(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		Stream("", c.String()),
		"<< /Type /Font /Subtype /Type0 /BaseFont /Lost /Encoding /Identity-H /DescendantFonts [6 0 R] >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Lost /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R /DW 600 >>",
		"<< /Type /FontDescriptor /FontName /Lost /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>")
}

// Gray decodes a rendered page (PNG) into the grey image a scanner makes.
func Gray(t testing.TB, pngData []byte) *image.Gray {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatal(err)
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Bounds(), img, img.Bounds().Min, draw.Src)
	return g
}
