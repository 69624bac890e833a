package render

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// With TeX absent from PATH (the package only suggests it), a compile says
// what to install instead of a bare exec error.
func TestCompileWithoutLatexSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tex"), []byte("\\documentclass{article}\\begin{document}x\\end{document}"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Toolchain{LatexEngine: "latexmk", PDFEngine: "pdflatex"}.CompileLatex(context.Background(), dir, "main.tex")
	if errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("code %v, want NotFound: %v", errs.CodeOf(err), err)
	}
	if h := errs.HintOf(err); !strings.Contains(h, "apt install latexmk texlive-latex-recommended") {
		t.Fatalf("hint %q", h)
	}
}
