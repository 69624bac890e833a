package drafts

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/drafts/render"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// needTools skips when TeX/pandoc are absent, unless JARVIS_REQUIRE_TOOLS is
// set (CI sets it), in which case their absence is a failure.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
				t.Fatalf("%s is required here but not installed", tool)
			}
			t.Skipf("%s not installed", tool)
		}
	}
}

var tc = render.Toolchain{LatexEngine: "latexmk", PDFEngine: "pdflatex", Timeout: 60 * time.Second, Margin: "2cm"}

func TestCompileLatexProducesPDF(t *testing.T) {
	needTools(t, "latexmk", "pdflatex")
	w := newWS(t)
	d, _ := w.Create("paper", "main.tex", "\\documentclass{article}\\begin{document}Hello \\input{body}\\end{document}\n", Public, "")
	w.AddFile(d.ID, "body.tex", "from a second file.")
	res, err := w.Render(context.Background(), tc, d.ID, "main.tex")
	if err != nil {
		t.Fatalf("%v\n%s", err, render.LogTail(res.Log, 30))
	}
	if !bytes.HasPrefix(res.PDF, []byte("%PDF")) {
		t.Fatal("no PDF")
	}
	if entries, _ := os.ReadDir(filepath.Join(w.Root, d.ID)); len(entries) != 3 { // main.tex body.tex draft.json
		t.Fatalf("compilation must not write into the draft: %v", entries)
	}
}

func TestHostileLatexIsRefusedOrKilled(t *testing.T) {
	needTools(t, "latexmk", "pdflatex")
	w := newWS(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	outside := filepath.Join(t.TempDir(), "written.txt")

	t.Run("input of an absolute path", func(t *testing.T) {
		d, _ := w.Create("exfil", "main.tex", "\\documentclass{article}\\begin{document}\\input{/etc/passwd}\\end{document}\n", Public, "")
		res, err := w.Render(context.Background(), tc, d.ID, "main.tex")
		if err == nil {
			t.Fatal("\\input{/etc/passwd} must not compile")
		}
		if bytes.Contains(res.PDF, []byte("root:")) {
			t.Fatal("passwd content reached the PDF")
		}
	})
	t.Run("draft.json is not reachable", func(t *testing.T) {
		d, _ := w.Create("meta", "main.tex", "\\documentclass{article}\\begin{document}\\input{draft.json}\\end{document}\n", Public, "")
		if _, err := w.Render(context.Background(), tc, d.ID, "main.tex"); err == nil {
			t.Fatal("the sandbox's bookkeeping must not be in the compile directory")
		}
	})
	t.Run("write18 shell escape", func(t *testing.T) {
		d, _ := w.Create("shell", "main.tex", "\\documentclass{article}\\begin{document}\\immediate\\write18{touch "+marker+"}x\\end{document}\n", Public, "")
		w.Render(context.Background(), tc, d.ID, "main.tex")
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("\\write18 executed a command")
		}
	})
	t.Run("openout outside the directory", func(t *testing.T) {
		d, _ := w.Create("write", "main.tex", "\\documentclass{article}\\begin{document}\\newwrite\\f\\immediate\\openout\\f="+outside+"\\immediate\\write\\f{x}\\immediate\\closeout\\f x\\end{document}\n", Public, "")
		w.Render(context.Background(), tc, d.ID, "main.tex")
		if _, err := os.Stat(outside); err == nil {
			t.Fatal("TeX wrote outside its working directory")
		}
	})
	t.Run("loop bomb is killed", func(t *testing.T) {
		d, _ := w.Create("bomb", "main.tex", "\\documentclass{article}\\begin{document}\\def\\x{\\x}\\x\\end{document}\n", Public, "")
		short := tc
		short.Timeout = 3 * time.Second
		start := time.Now()
		_, err := w.Render(context.Background(), short, d.ID, "main.tex")
		if !errs.Is(err, errs.Conversion) || !strings.Contains(err.Error(), "timed out") {
			t.Fatalf("err = %v", err)
		}
		if elapsed := time.Since(start); elapsed > 8*time.Second {
			t.Fatalf("bomb ran for %v", elapsed)
		}
		out, _ := exec.Command("pgrep", "-f", "pdflatex.*main.tex").Output()
		if len(bytes.TrimSpace(out)) > 0 {
			t.Fatalf("pdflatex survived the timeout: %s", out)
		}
	})
}

func TestExportMarkdownWithPandoc(t *testing.T) {
	needTools(t, "pandoc", "pdflatex")
	w := newWS(t)
	d, _ := w.Create("notes", "notes.md", "# Notes\n\nEnergy $E = mc^2$.\n", Public, "")
	res, err := w.Render(context.Background(), tc, d.ID, "notes.md")
	if err != nil {
		t.Fatalf("%v\n%s", err, render.LogTail(res.Log, 30))
	}
	if !bytes.HasPrefix(res.PDF, []byte("%PDF")) {
		t.Fatal("no PDF")
	}
}

func TestRenderRefusesOtherFilesAndMissingTools(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("x", "data.csv", "a,b\n", Public, "")
	if _, err := w.Render(context.Background(), tc, d.ID, "data.csv"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("csv: %v", err)
	}
	off := render.Toolchain{}
	d2, _ := w.Create("y", "m.tex", "x", Public, "")
	if _, err := w.Render(context.Background(), off, d2.ID, "m.tex"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("disabled engine: %v", err)
	}
	if got := (render.Toolchain{LatexEngine: "no-such-latex", PDFEngine: "no-such-engine"}).Available(); got.Latex || got.Pandoc {
		t.Fatalf("missing tools must be reported unavailable: %+v", got)
	}
}
