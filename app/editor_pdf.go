package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/drafts/render"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/pdf"
)

// maxLogBytes bounds the log sent to the window (its end is kept: TeX
// writes the outcome last).
const maxLogBytes = 256 << 10

// compiledPDF is a PDF the editor made, kept until the window closes so it
// can be paged through and saved.
type compiledPDF struct {
	path   string
	name   string // what it is saved as by default: the source's name, .pdf
	source string // draft/file it was made from: a new compile replaces it
}

// RenderResult is a compile or export. A tool that failed is a result, not
// an error: the window shows its first error with the context and the full
// log. OK results carry a reference for PDFPage and SavePDF.
type RenderResult struct {
	OK    bool             `json:"ok"`
	PDF   string           `json:"pdf,omitempty"`
	Pages int              `json:"pages,omitempty"`
	Error string           `json:"error,omitempty"`
	First *render.LogError `json:"first,omitempty"`
	Log   string           `json:"log"`
}

// Render compiles a .tex file or exports a .md file to PDF, from the saved
// text (the window saves first).
func (e *Editor) Render(id, file string) (RenderResult, error) {
	r, err := e.ws.Render(context.Background(), e.toolchain(), id, file)
	res := RenderResult{Log: r.Log}
	if len(res.Log) > maxLogBytes {
		res.Log = "…\n" + res.Log[len(res.Log)-maxLogBytes:]
	}
	if err != nil {
		if !errs.Is(err, errs.Conversion) {
			return RenderResult{}, err // refused before any tool ran
		}
		res.Error = err.Error()
		if first, ok := render.FirstError(r.Log); ok {
			res.First = &first
		}
		return res, nil
	}
	ref, pages, err := e.keepPDF(r.PDF, id+"/"+file, strings.TrimSuffix(file, filepath.Ext(file))+".pdf")
	if err != nil {
		return RenderResult{}, err
	}
	res.OK, res.PDF, res.Pages = true, ref, pages
	return res, nil
}

// keepPDF stores a compiled PDF in the editor's private folder, in place of
// the one compiled before from the same source, and returns its reference
// and page count.
func (e *Editor) keepPDF(data []byte, source, name string) (string, int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pdfDir == "" {
		dir, err := os.MkdirTemp("", "jarvis-pdf-")
		if err != nil {
			return "", 0, errs.Wrap(errs.Internal, "editor.Render", err)
		}
		e.pdfDir, e.pdfs = dir, map[string]compiledPDF{}
	}
	ref := strings.ToLower(rand.Text()) // unguessable, and a plain file name
	path := filepath.Join(e.pdfDir, ref+".pdf")
	if err := fsutil.WriteFileAtomic(path, data, 0o600); err != nil {
		return "", 0, errs.Wrap(errs.Internal, "editor.Render", err)
	}
	_, pages, err := pdf.PagePNG(path, 1, 10) // a thumbnail's work: it counts the pages and proves the PDF opens
	if err != nil {
		os.Remove(path)
		return "", 0, err
	}
	for old, p := range e.pdfs {
		if p.source == source {
			os.Remove(p.path)
			delete(e.pdfs, old)
		}
	}
	e.pdfs[ref] = compiledPDF{path: path, name: name, source: source}
	return ref, pages, nil
}

func (e *Editor) compiled(ref string) (compiledPDF, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p, ok := e.pdfs[ref]
	if !ok {
		return p, errs.New(errs.NotFound, "editor", "that PDF is no longer here; compile again")
	}
	return p, nil
}

// PDFPage shows a compiled PDF's page in the window's page viewer (the one
// citations open in).
func (e *Editor) PDFPage(ref string, page int) (SourceView, error) {
	p, err := e.compiled(ref)
	if err != nil {
		return SourceView{}, err
	}
	page = max(page, 1)
	png, n, err := pdf.PagePNG(p.path, page, 110)
	if err != nil {
		return SourceView{}, err
	}
	return SourceView{Title: p.name, Page: page, Pages: n, Image: base64.StdEncoding.EncodeToString(png)}, nil
}

// SavePDF asks where to save a compiled PDF and writes it there; it returns
// the path, or "" when the human cancelled.
func (e *Editor) SavePDF(ref string) (string, error) {
	p, err := e.compiled(ref)
	if err != nil {
		return "", err
	}
	if e.PickSave == nil {
		return "", errs.New(errs.Invalid, "editor.SavePDF", "there is no save dialog here")
	}
	dest, err := e.PickSave("Save the PDF", p.name)
	if err != nil || dest == "" {
		return "", err
	}
	if !filepath.IsAbs(dest) {
		return "", errs.New(errs.Invalid, "editor.SavePDF", "%q is not a full path", dest)
	}
	data, err := os.ReadFile(p.path)
	if err != nil {
		return "", errs.Wrap(errs.Internal, "editor.SavePDF", err)
	}
	if err := fsutil.WriteFileAtomic(dest, data, 0o600); err != nil {
		return "", errs.Wrapf(errs.Internal, "editor.SavePDF", err, "cannot write %s", dest)
	}
	return dest, nil
}

// closePDFs removes the compiled PDFs (the window is closing).
func (e *Editor) closePDFs() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pdfDir != "" {
		os.RemoveAll(e.pdfDir)
		e.pdfDir, e.pdfs = "", nil
	}
}
