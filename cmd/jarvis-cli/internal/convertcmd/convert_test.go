package convertcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/digest/digesttest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func run(args ...string) (string, string, error) {
	io, _, out, errb := iostreams.Test()
	cmd := New(io, config.Load)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), errb.String(), err
}

func TestConvertPDF(t *testing.T) {
	out, _, err := run("../../../../backend/pdf/testdata/annotated.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Sparse Attention for Long Documents", "<!-- page 2 -->", "## Annotations",
		"- [HIGHLIGHT p.1] sparse attention keeps accuracy\n  Note: key idea: accuracy holds\n", "- [USER NOTE p.2] check the proof"} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q:\n%s", want, out)
		}
	}
	dst := filepath.Join(t.TempDir(), "out.md")
	if _, stderr, err := run("../../../../backend/pdf/testdata/paper.pdf", "-o", dst); err != nil || !strings.Contains(stderr, "2 pages, 0 annotations") {
		t.Fatalf("%v %s", err, stderr)
	}
	if b, _ := os.ReadFile(dst); !strings.Contains(string(b), "## 2 Method") {
		t.Fatalf("file:\n%s", b)
	}
	// A scan of a blank sheet has nothing to convert, with OCR or without.
	if _, _, err := run(pdftest.BlankScan(t)); !errs.Is(err, errs.Conversion) {
		t.Fatalf("blank scan: %v", err)
	}
}

// A scan is converted by OCR, its frontmatter saying which pages were
// recognised; without OCR ([pdf] ocr = false) it is refused with the way
// to turn it on; an encrypted PDF takes --password.
func TestConvertScanAndEncrypted(t *testing.T) {
	ocrtest.Engine(t, "eng")
	home := t.TempDir()
	t.Setenv("JARVIS_HOME", home)
	out, stderr, err := run("../../../../backend/pdf/testdata/scanned.pdf")
	if err != nil || !strings.HasPrefix(out, "---\nx_ocr: tesseract\nx_ocr_confidence: ") || !strings.Contains(out, "x_ocr_pages: [1]") ||
		!strings.Contains(out, "text") || !strings.Contains(stderr, "page 1/1 recognised") {
		t.Fatalf("%v\n%s\n%s", err, out, stderr)
	}
	os.WriteFile(config.FilePath(home), []byte("[pdf]\nocr = false\n"), 0o600)
	if _, _, err := run("../../../../backend/pdf/testdata/scanned.pdf"); !errs.Is(err, errs.Conversion) {
		t.Fatalf("scan without OCR: %v", err)
	}
	if _, _, err := run("../../../../backend/pdf/testdata/encrypted.pdf"); !errs.Is(err, errs.Locked) {
		t.Fatalf("encrypted: %v", err)
	}
	out, _, err = run("../../../../backend/pdf/testdata/encrypted.pdf", "--password", "s3cret-Pw")
	if err != nil || !strings.Contains(out, "# Sparse Attention for Long Documents") || strings.HasPrefix(out, "---") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestMultiLineMarksStayReadable(t *testing.T) {
	// A note with a paragraph break used to print as "dual —  — para note".
	got := listItem("[USER NOTE p.1] dual\n\npara note\nNote: x")
	if want := "- [USER NOTE p.1] dual\n\n  para note\n  Note: x\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// convert-pdf takes an arXiv link or id, or arXiv's DOI, like kb add.
func TestConvertArxivURL(t *testing.T) {
	srv := digesttest.ServeArxiv(t, "../../../../backend/pdf/testdata/paper.pdf")
	cfg := configtest.New(t)
	cfg.Digest.ArxivURL = srv.URL + "/api/query"
	for _, arg := range []string{"https://arxiv.org/pdf/2611.01234v2", "https://doi.org/10.48550/arXiv.2611.01234", "2611.01234"} {
		streams, _, out, errb := iostreams.Test()
		cmd := New(streams, func() (*config.Config, error) { return cfg, nil })
		cmd.SetArgs([]string{arg})
		if err := cmd.Execute(); err != nil || !strings.Contains(out.String(), "## 2 Method") || !strings.Contains(errb.String(), "fetched") {
			t.Fatalf("%s: %v\n%s\n%s", arg, err, errb, out)
		}
	}
	streams, _, _, _ := iostreams.Test()
	cmd := New(streams, func() (*config.Config, error) { return cfg, nil })
	cmd.SetArgs([]string{"https://doi.org/10.1038/s41586-020-0000-0"})
	if err := cmd.Execute(); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a DOI Jarvis cannot fetch: %v", err)
	}
}
