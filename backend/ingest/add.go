package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// Adder adds local files the same way from every front end: PDFs as public
// papers, Markdown and text as notes (a file inside the vault through the
// vault's own rules).
type Adder struct {
	Store *kb.Store
	Embed kb.Embedder
	Vault *vault.Refresher // nil: no vault configured
	Opts  Options
	// Remote fetches papers named by arXiv id or URL or DOI (nil: only
	// local files can be added).
	Remote *Remote
}

// AddRequest is one file to add.
type AddRequest struct {
	Path string
	// Private marks a note private explicitly (Markdown or text from
	// outside the vault; a vault note's folder decides, and a note in a
	// public folder asked to be private is refused rather than published).
	// Papers are always public, so a PDF asked to be private is refused.
	Private bool
	Paper   Paper // PDFs: mode, overrides, figures (Path is ignored)
	// Duplicate decides whether a PDF that is already stored (same source
	// or title) is added anyway; nil adds it. A same-source entry is then
	// replaced in the same commit.
	Duplicate func(dups []kb.Duplicate) bool
	Report    func(stage string) // progress, may be nil
}

// AddResult says what happened.
type AddResult struct {
	Message  string
	Skipped  bool
	Chunks   int
	Warnings []string
}

func (r AddRequest) report(stage string) {
	if r.Report != nil {
		r.Report(stage)
	}
}

// Add adds one file. What the path names is classified, not how it is
// spelled: symlinks and ".." are resolved first, so a link anywhere that
// points into a private vault folder adds that private note as private.
func (a *Adder) Add(ctx context.Context, req AddRequest) (AddResult, error) {
	const op = "ingest.Add"
	abs, err := filepath.Abs(req.Path)
	if err != nil {
		return AddResult{}, errs.Wrap(errs.Invalid, op, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return AddResult{}, errs.Wrapf(errs.NotFound, op, err, "cannot read %s", req.Path)
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return AddResult{}, errs.New(errs.Invalid, op, "%s is not a regular file", req.Path)
	}
	switch strings.ToLower(filepath.Ext(real)) {
	case ".pdf":
		return a.addPDF(ctx, real, req)
	case ".md", ".markdown", ".txt":
		return a.addNote(ctx, real, req)
	}
	if IsImage(real) {
		return a.addImage(ctx, real, req)
	}
	return AddResult{}, errs.New(errs.Invalid, op, "unsupported file type %q (add .pdf, .md, .txt or an image: .png, .jpg, .tiff, .webp)", filepath.Ext(real))
}

// addNote adds a resolved Markdown or text file: through the vault's own
// rules when it lies in the vault, else as a standalone note.
func (a *Adder) addNote(ctx context.Context, real string, req AddRequest) (AddResult, error) {
	const op = "ingest.Add"
	if a.Vault != nil {
		if rel, inside := vault.Locate(a.Vault.Root, real); inside {
			if req.Private && vault.Visibility(a.Vault.Root, real, a.Vault.PrivateDirs) != kb.Private {
				return AddResult{}, errs.WithHint(errs.New(errs.Invalid, op, "%s is a vault note in a public folder; its folder decides its visibility", rel),
					"move it into one of vault.private_dirs ("+strings.Join(a.Vault.PrivateDirs, ", ")+") to keep it private")
			}
			req.report("indexing vault note")
			res, err := a.Vault.RefreshFile(ctx, rel)
			if err != nil {
				return AddResult{}, err
			}
			switch {
			case res.Added > 0:
				return AddResult{Message: "added as vault note " + rel}, nil
			case res.Updated > 0:
				return AddResult{Message: "updated vault note " + rel}, nil
			}
			return AddResult{Message: "unchanged vault note " + rel}, nil
		}
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return AddResult{}, errs.Wrap(errs.NotFound, op, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return AddResult{}, errs.Wrap(errs.NotFound, op, err)
	}
	hash, err := fsutil.HashFile(real)
	if err != nil {
		return AddResult{}, errs.Wrap(errs.NotFound, op, err)
	}
	vis := kb.Public
	if req.Private {
		vis = kb.Private
	}
	source, _ := SourceFor(real) // real is absolute: cannot fail
	chunks, warnings := vault.BuildNote(vault.Note{FilePath: real, Source: source, Text: string(data), Hash: hash,
		ModifiedAt: st.ModTime().UTC().Format(time.RFC3339Nano), Visibility: vis}, a.Opts.ChunkSize, a.Opts.ChunkOverlap)
	if len(chunks) == 0 {
		return AddResult{}, errs.New(errs.Invalid, op, "the file has no text to index")
	}
	existing, err := a.Store.List(ctx, kb.Filter{Source: source}, 1)
	if err != nil {
		return AddResult{}, err
	}
	req.report("embedding")
	if err := a.Store.Ingest(ctx, a.Embed, chunks, &kb.Filter{Source: source}); err != nil {
		return AddResult{}, err
	}
	verb := "added"
	if len(existing) > 0 {
		verb = "replaced"
	}
	return AddResult{Message: fmt.Sprintf("%s %d chunks (%s note)", verb, len(chunks), vis), Chunks: len(chunks), Warnings: warnings}, nil
}

// refusePrivate refuses a file kept in a private vault folder or attached
// to a private Zotero item: documents are public by rule, so such a file
// is refused rather than published.
func (a *Adder) refusePrivate(ctx context.Context, real string) error {
	var root string
	var dirs []string
	if a.Vault != nil {
		root, dirs = a.Vault.Root, a.Vault.PrivateDirs
	}
	private, err := PrivateFile(ctx, a.Store, root, dirs, real)
	if err != nil {
		return err
	}
	if private {
		return errs.WithHint(errs.New(errs.Privacy, "ingest.Add", "%s is in a private vault folder or is the file of a private Zotero item; papers are public", filepath.Base(real)),
			"move the file out of the private folder (or the Zotero item out of its private collection) if it may be shared with cloud models")
	}
	return nil
}

// addImage adds a screenshot, photo or scanned page: read by OCR, stored
// in full like a public document, with the image kept for the viewer
// (a WebP, which MuPDF does not read, as a PNG copy in the data dir).
func (a *Adder) addImage(ctx context.Context, real string, req AddRequest) (AddResult, error) {
	const op = "ingest.Add"
	if a.Opts.OCR == nil {
		return AddResult{}, errs.WithHint(errs.New(errs.Invalid, op, "%s is an image, and reading images needs OCR: %v", filepath.Base(real), a.Opts.NoOCR), ocr.InstallHint)
	}
	if req.Private {
		return AddResult{}, errs.WithHint(errs.New(errs.Invalid, op, "%s is an image, and documents are always public", filepath.Base(real)),
			"--private applies to notes; images are stored as public documents, so keep a private one out of Jarvis")
	}
	if err := a.refusePrivate(ctx, real); err != nil { // the original, not the PNG copy
		return AddResult{}, err
	}
	view := real
	if strings.EqualFold(filepath.Ext(real), ".webp") {
		var err error
		if view, err = PNGCopy(real, a.Opts.ImagesDir); err != nil {
			return AddResult{}, err
		}
	}
	source, _ := SourceFor(real)
	p := req.Paper
	p.Image, p.Source = true, source
	if p.Mode == "" {
		p.Mode = FullText // an image's words are few: keep them, no summary
	}
	req.Paper = p
	return a.addPDF(ctx, view, req)
}

func (a *Adder) addPDF(ctx context.Context, abs string, req AddRequest) (AddResult, error) {
	if req.Private {
		return AddResult{}, errs.WithHint(errs.New(errs.Invalid, "ingest.Add", "%s is a PDF, and papers are always public", filepath.Base(abs)),
			"--private applies to notes; keep a private PDF out of Jarvis or convert it to a note first (jarvis-cli convert-pdf)")
	}
	if err := a.refusePrivate(ctx, abs); err != nil {
		return AddResult{}, err
	}
	p := req.Paper
	p.Path = abs
	if p.Image {
		req.report("reading the image (OCR)")
	} else {
		req.report("reading the PDF")
	}
	res, err := BuildPaper(ctx, p, a.Opts)
	if err != nil {
		return AddResult{}, err
	}
	replace, skip, err := a.checkDuplicates(ctx, req, res.Source, res.Title)
	if err != nil {
		return AddResult{}, err
	}
	if skip {
		return AddResult{Message: "skipped (duplicate)", Skipped: true, Warnings: res.Warnings}, nil
	}
	req.report("embedding")
	if err := a.Store.Ingest(ctx, a.Embed, res.Chunks, replace); err != nil {
		return AddResult{}, err
	}
	return paperAdded(replace != nil, p.Mode, res), nil
}

// checkDuplicates looks up what a paper of source and title would
// duplicate. replace is the same-source entry to replace (nil when there is
// none); skip is set when there are duplicates and req.Duplicate declines
// to add the paper anyway.
func (a *Adder) checkDuplicates(ctx context.Context, req AddRequest, source, title string) (replace *kb.Filter, skip bool, err error) {
	dups, err := a.Store.FindDuplicates(ctx, source, title)
	if err != nil {
		return nil, false, err
	}
	for _, d := range dups {
		if d.Reason == "source" {
			replace = &kb.Filter{Source: source}
		}
	}
	return replace, len(dups) > 0 && req.Duplicate != nil && !req.Duplicate(dups), nil
}

// paperAdded says what adding a paper did.
func paperAdded(replaced bool, mode string, res Result) AddResult {
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	if mode == "" {
		mode = Summary
	}
	msg := fmt.Sprintf("%s paper %q: %d chunks (%s, %d annotations, %d figures)", verb, res.Title, len(res.Chunks), mode, res.Marks, res.Figures)
	if res.Image {
		msg = fmt.Sprintf("%s image %q: %d chunks, read by OCR", verb, res.Title, len(res.Chunks))
	} else if res.OCRPages > 0 {
		msg += fmt.Sprintf("; %d scanned page(s) read by OCR", res.OCRPages)
	}
	return AddResult{Message: msg, Chunks: len(res.Chunks), Warnings: res.Warnings}
}
