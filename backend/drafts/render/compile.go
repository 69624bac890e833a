// Package render turns drafts into PDFs: LaTeX through latexmk and Markdown
// through pandoc, in a locked-down temp directory. (Markdown and maths for
// the screen — chat answers, the library viewer, draft previews — are
// rendered by the frontend, frontend/src/lib/markdown.ts.)
package render

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Toolchain runs the local document tools. Compilation has no model in the
// loop, so it is allowed on private drafts; what it must never do is let a
// document the model wrote run commands, read files outside its folder, or
// run forever.
type Toolchain struct {
	LatexEngine string        // "latexmk"; empty disables compilation
	PDFEngine   string        // the engine pandoc drives, e.g. "xelatex"
	Timeout     time.Duration // hard ceiling per run
	Margin      string        // pandoc page margin, e.g. "2cm"
}

// Availability says which buttons the UI may show: a tool that can only fail
// is hidden rather than offered.
type Availability struct {
	Latex  bool `json:"latex"`
	Pandoc bool `json:"pandoc"`
}

// Available probes PATH for the configured tools.
func (t Toolchain) Available() Availability {
	has := func(name string) bool {
		if name == "" {
			return false
		}
		_, err := exec.LookPath(name)
		return err == nil
	}
	return Availability{Latex: has(t.LatexEngine), Pandoc: has("pandoc") && has(t.PDFEngine)}
}

// Result is a run's output: the PDF on success, the tool's log either way.
type Result struct {
	PDF []byte
	Log string
}

// CompileLatex compiles dir/name (a private temp copy of the draft) with
// latexmk: no shell escape, TeX file access restricted to the working
// directory, rc files ignored, a hard timeout.
func (t Toolchain) CompileLatex(ctx context.Context, dir, name string) (Result, error) {
	if t.LatexEngine == "" {
		return Result{}, errs.New(errs.Invalid, "render.CompileLatex", "LaTeX compilation is disabled (drafts.latex_engine is empty)")
	}
	if err := positionalName(name, ".tex"); err != nil {
		return Result{}, err
	}
	args := []string{"-pdf", "-norc", "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error", "./" + name}
	res, err := t.run(ctx, dir, t.LatexEngine, args)
	pdfPath := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".pdf")
	if logText, rerr := os.ReadFile(strings.TrimSuffix(pdfPath, ".pdf") + ".log"); rerr == nil {
		res.Log = string(logText)
	}
	if err != nil {
		return res, err
	}
	return t.collect(res, pdfPath)
}

// ExportMarkdown turns dir/name into a PDF with pandoc and the configured
// engine, maths included, under the same restrictions.
func (t Toolchain) ExportMarkdown(ctx context.Context, dir, name string) (Result, error) {
	if err := positionalName(name, ".md"); err != nil {
		return Result{}, err
	}
	out := filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+".pdf")
	margin := t.Margin
	if margin == "" {
		margin = "2cm"
	}
	args := []string{"-f", "markdown+tex_math_dollars", "--pdf-engine=" + t.PDFEngine, "-V", "geometry:margin=" + margin, "-o", out, "./" + name}
	res, err := t.run(ctx, dir, "pandoc", args)
	if err != nil {
		return res, err
	}
	return t.collect(res, out)
}

func (t Toolchain) collect(res Result, pdfPath string) (Result, error) {
	pdf, err := os.ReadFile(pdfPath)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) {
		return res, errs.New(errs.Conversion, "render", "the tool finished but produced no PDF")
	}
	res.PDF = pdf
	return res, nil
}

// positionalName refuses names that a tool could parse as an option. The
// drafts containment policy already refuses them; this is the second lock,
// together with passing "./name".
func positionalName(name, ext string) error {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsAny(name, "/\\\x00") || !strings.EqualFold(filepath.Ext(name), ext) {
		return errs.New(errs.Invalid, "render", "refusing to compile %q", name)
	}
	return nil
}

// run executes a tool in dir with a scrubbed environment and kills its whole
// process group on timeout or cancellation (latexmk spawns pdflatex).
func (t Toolchain) run(ctx context.Context, dir, tool string, args []string) (Result, error) {
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = 180 * time.Second
	}
	if _, err := exec.LookPath(tool); err != nil {
		// The package only suggests TeX and pandoc: say what to install.
		return Result{}, errs.WithHint(errs.Wrapf(errs.NotFound, "render", err, "%s is not installed", tool), installHint(tool))
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	emptyHome := filepath.Join(dir, ".texmf-home")
	if err := os.MkdirAll(emptyHome, 0o700); err != nil {
		return Result{}, errs.Wrap(errs.Internal, "render.run", err)
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"LANG=C.UTF-8",
		// TeX's own file-access policy: "p" (paranoid) refuses absolute
		// paths, parent directories and dotfiles for reading and writing.
		"openin_any=p",
		"openout_any=p",
		"shell_escape=f",
		"TEXMFHOME=" + emptyHome,
		"TEXMFVAR=" + filepath.Join(dir, ".texmf-var"),
		"TEXMFCONFIG=" + filepath.Join(dir, ".texmf-config"),
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = nil
	err := cmd.Run()
	res := Result{Log: out.String()}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return res, errs.New(errs.Conversion, "render", "%s timed out after %s and was stopped", tool, timeout)
	case ctx.Err() != nil:
		return res, errs.Wrap(errs.Cancelled, "render", ctx.Err())
	case err != nil:
		return res, errs.New(errs.Conversion, "render", "%s failed: %v (see the log)", tool, err)
	}
	return res, nil
}

// LogTail returns the last n lines of a log, for error panes.
func LogTail(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// installHint names the Debian/Ubuntu packages that provide tool.
func installHint(tool string) string {
	switch tool {
	case "pandoc":
		return "install pandoc and LaTeX: sudo apt install pandoc latexmk texlive-latex-recommended"
	case "latexmk", "pdflatex", "xelatex", "lualatex":
		return "install LaTeX: sudo apt install latexmk texlive-latex-recommended (texlive-xetex for xelatex)"
	}
	return "install " + tool + " and make sure it is on PATH"
}
