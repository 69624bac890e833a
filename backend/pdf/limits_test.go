package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// buildPDF writes a PDF whose objects are numbered from 1 in order, with a
// correct cross-reference table, and returns its path. Hostile files are
// made here, at test time, so none is committed.
func buildPDF(t testing.TB, objects ...string) string {
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
	path := filepath.Join(t.TempDir(), "hostile.pdf")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// flateStream is a FlateDecode stream object holding content.
func flateStream(t testing.TB, dict, content string) string {
	t.Helper()
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(content))
	w.Close()
	return fmt.Sprintf("<< %s /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", dict, z.Len(), z.Bytes())
}

const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

// onePage is a catalog, a page tree claiming count pages, one page with the
// given content stream and resources, and a font.
func onePage(t testing.TB, count, resources, content string) string {
	return buildPDF(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count "+count+" >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> "+resources+" >> >>",
		flateStream(t, "", content),
		helvetica)
}

func TestReadRefusesAnAbsurdPageCount(t *testing.T) {
	// The page tree claims ten billion pages and holds one: MuPDF would size
	// its page map by the claim (tens of GB) before failing.
	path := onePage(t, "9999999999", "", "BT /F1 24 Tf 72 700 Td (Hello) Tj ET")
	start := time.Now()
	_, err := Read(context.Background(), path, Options{})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "claims 1410065407 pages") || errs.HintOf(err) == "" {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s to refuse", time.Since(start))
	}
	// The same file with an honest count reads.
	d, err := Read(context.Background(), onePage(t, "1", "", "BT /F1 24 Tf 72 700 Td (Hello World) Tj ET"), Options{})
	if err != nil || len(d.Pages) != 1 {
		t.Fatalf("honest count: %v", err)
	}
}

// textFlood draws lines*perLine characters: a small compressed stream that
// would hold tens of MB once extracted.
func textFlood(lines, perLine int) string {
	var b strings.Builder
	b.WriteString("BT /F1 1 Tf 20 780 Td\n")
	// Lines 0.03 pt apart stay inside the page, where MuPDF keeps them.
	row := "(" + strings.Repeat("A", perLine) + ") Tj 0 -0.03 Td\n"
	for range lines {
		b.WriteString(row)
	}
	b.WriteString("ET")
	return b.String()
}

func TestReadStopsAtTheMemoryCap(t *testing.T) {
	path := onePage(t, "1", "", textFlood(20000, 100)) // 2 million characters
	_, err := Read(context.Background(), path, Options{Limits: Limits{MaxMemory: 24 << 20, MaxChars: 10_000_000}})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "needs more than 24 MB of memory") {
		t.Fatalf("err = %v", err)
	}
	// Under the default cap the character limit stops it instead, before
	// Go copies millions of characters.
	_, err = Read(context.Background(), path, Options{})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "too much text") {
		t.Fatalf("err = %v", err)
	}
}

// formBomb nests form XObjects depth deep, each drawing the next ten times:
// 10^depth tiny fills, no memory to speak of, effectively endless work.
func formBomb(t testing.TB, depth int) string {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> >>",
		flateStream(t, "", "BT /F1 12 Tf 72 700 Td (Before the bomb) Tj ET /X Do"),
		helvetica,
	}
	for i := 0; i < depth; i++ {
		next := len(objs) + 2
		res, body := "", "0 0 1 1 re f"
		if i < depth-1 {
			res = fmt.Sprintf("/Resources << /XObject << /X %d 0 R >> >>", next)
			body = strings.Repeat("/X Do ", 10)
		}
		objs = append(objs, flateStream(t, "/Type /XObject /Subtype /Form /BBox [0 0 10 10] "+res, body))
	}
	return buildPDF(t, objs...)
}

func TestReadStopsAPageAtItsTimeLimit(t *testing.T) {
	path := formBomb(t, 12)
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
	path := formBomb(t, 12)
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
	path := onePage(t, "9999999999", "", "BT /F1 24 Tf 72 700 Td (Hello) Tj ET")
	if _, _, err := PagePNG(path, 1, 50); !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "claims") {
		t.Fatalf("err = %v", err)
	}
}

// truncated copies the first n bytes of a file (n < 0: all but -n bytes).
func truncated(t testing.TB, path string, n int) string {
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

func TestDamagedFilesAreNotCalledScans(t *testing.T) {
	whole := onePage(t, "1", "", "BT /F1 24 Tf 72 700 Td (Hello World, this page has plenty of text) Tj ET")
	b, _ := os.ReadFile(whole)
	inStream := bytes.Index(b, []byte("stream\n")) + 20 // cut inside the page's content
	for name, path := range map[string]string{
		"cut inside the content": truncated(t, whole, inStream),
		"cut in the header":      truncated(t, whole, 40),
		"cut before the trailer": truncated(t, "testdata/paper.pdf", 1000),
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
	if !strings.Contains(err.Error(), "no text layer") || !strings.Contains(errs.HintOf(err), "OCR") {
		t.Fatalf("scan: %v", err)
	}
}
