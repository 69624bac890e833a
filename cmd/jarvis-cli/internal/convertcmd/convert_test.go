package convertcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func run(args ...string) (string, string, error) {
	io, _, out, errb := iostreams.Test()
	cmd := New(io)
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
	if _, _, err := run("../../../../backend/pdf/testdata/scanned.pdf"); !errs.Is(err, errs.Conversion) {
		t.Fatalf("scan: %v", err)
	}
}

func TestMultiLineMarksStayReadable(t *testing.T) {
	// A note with a paragraph break used to print as "dual —  — para note".
	got := listItem("[USER NOTE p.1] dual\n\npara note\nNote: x")
	if want := "- [USER NOTE p.1] dual\n\n  para note\n  Note: x\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
