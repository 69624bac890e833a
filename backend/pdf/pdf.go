// Package pdf reads PDFs through MuPDF: body text as Markdown (headings
// from font sizes, paragraphs in reading order, page markers), the
// reader's annotations (highlighted text recovered from the quads, typed
// comments), embedded figures, and the metadata needed to file a paper.
package pdf

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr"
)

// Rect is a box in page space (points, origin top-left, y down).
type Rect struct{ X0, Y0, X1, Y1 float64 }

// Contains reports whether the point lies inside r.
func (r Rect) Contains(x, y float64) bool { return x >= r.X0 && x <= r.X1 && y >= r.Y0 && y <= r.Y1 }

// Char is one character with its box and font size.
type Char struct {
	Block, Line int
	R           rune
	Size        float64
	Bold        bool
	Upright     bool // on a horizontal, left-to-right line
	Box         Rect
}

// Image is an embedded raster image, encoded as PNG.
type Image struct {
	Width, Height int
	Box           Rect
	PNG           []byte
}

// Annotation is one PDF annotation as stored in the file.
type Annotation struct {
	Kind        string // PDF subtype: Highlight, Underline, Text, FreeText, Caret, Ink, ...
	Page        int
	Contents    string
	RichText    string // /RC: the comment as XHTML, sometimes the only copy
	Box         Rect
	Quads       []Rect // markup annotations: the marked areas
	Ref         int    // the annotation's object number (0: a direct object)
	InReplyTo   int    // /IRT: the object number of the annotation this one answers or groups with
	ReplyType   string // /RT: "R" (a reply, the default) or "Group"
	ReviewState bool   // a review-state record (Accepted, Unmarked ...), not a comment
}

// Page is one extracted page.
type Page struct {
	Number        int // 1-based
	Width, Height float64
	Chars         []Char
	Images        []Image
	Annotations   []Annotation
	// ImageCover is the share of the page covered by images (0-1).
	ImageCover float64
	// OCR is set when Chars were recognised off the page's image rather
	// than read from its text layer; OCRConfidence is Tesseract's mean word
	// confidence (0-100).
	OCR           bool
	OCRConfidence float64
	// OCRError is why recognising the page failed (nil: not tried, or
	// read): a Conversion error, with an *ocr.LimitError when one of the
	// limits refused or stopped it (ocr.LimitOf). The page is left unread
	// and the pages after it are read.
	OCRError error
	// imageDPI is the resolution of the page's largest image (its pixels
	// per inch of the page), 0 without images: a photo's own pixels.
	imageDPI float64
}

// Document is an extracted PDF.
type Document struct {
	Path   string
	Title  string // from the document info, may be empty or junk
	Author string
	Pages  []Page
	// Repaired is set when MuPDF had to rebuild a broken cross-reference
	// table: the file is damaged or truncated.
	Repaired bool
	// Unread counts pages whose text layer was unusable (none, or mostly
	// unmappable glyphs) and that were not recognised: no OCR engine, or
	// recognition failed (Warnings says why).
	Unread   int
	Warnings []string

	ocrOn bool // an OCR engine read the pages that needed it
	// unrecognised is why the first page OCR could not read was left
	// unread (too large, too slow): what a user can act on.
	unrecognised string
	vocab        *words // see words()
}

// Options choose what Read extracts beyond text and annotations, and the
// limits it works under.
type Options struct {
	Images    bool // extract raster images (for figure captions)
	MinPixels int  // skip images smaller than this (width*height)
	Limits    Limits
	// Password opens an encrypted file; it is used once and kept nowhere.
	Password string
	// OCR recognises pages without a usable text layer; nil leaves them
	// unread (and counted in Document.Unread).
	OCR *ocr.Engine
	// Progress hears about each page as it is done (may be nil).
	Progress func(Progress)
}

// Progress is how far Read is: page of pages, and whether that page was
// recognised (OCR is slow enough that the user should see it happen).
type Progress struct {
	Page, Pages int
	OCR         bool
}

// OCRPages counts the pages whose text was recognised.
func (d *Document) OCRPages() int {
	n := 0
	for _, p := range d.Pages {
		if p.OCR {
			n++
		}
	}
	return n
}

// Read extracts every page of the PDF at path under opts.Limits: a file
// that claims too many pages, needs too much memory or time, or cannot be
// parsed is a Conversion error naming the cause; ctx stops it even in the
// middle of a page (Cancelled).
func Read(ctx context.Context, path string, opts Options) (*Document, error) {
	const op = "pdf.Read"
	if _, err := os.Stat(path); err != nil {
		return nil, errs.Wrap(errs.NotFound, op, err)
	}
	lim := opts.Limits.withDefaults()
	clock := startClock(ctx, lim.DocTimeout)
	defer clock.stop()
	docCtx := clock.ctx
	r, n, err := openCounted(path, opts.Password, lim, op)
	if err != nil {
		return nil, err
	}
	defer r.close()
	doc := &Document{Path: path, Title: strings.TrimSpace(r.meta("info:Title")), Author: strings.TrimSpace(r.meta("info:Author"))}
	doc.ocrOn = opts.OCR != nil
	var ocrErr error
	for i := 0; i < n; i++ {
		var p Page
		err := r.bounded(ctx, docCtx, lim, op, fmt.Sprintf("page %d of %s", i+1, path), func() *mupdfError {
			var merr *mupdfError
			p, merr = r.page(i, opts.Images, opts.MinPixels, lim.MaxChars)
			return merr
		})
		if err != nil {
			return nil, err
		}
		if !p.Readable() {
			if opts.OCR != nil && ocrErr == nil {
				// One failed page (a time limit, a huge image) is skipped; a
				// broken engine is not retried on every page after it.
				if err := r.recognise(ctx, clock, lim, opts.OCR, i, &p, op); err != nil {
					if errs.Is(err, errs.Cancelled) || errors.Is(context.Cause(docCtx), errDocTimeout) {
						return nil, err
					}
					p.OCRError = err
					why := fmt.Sprintf("page %d not recognised: %v", i+1, err)
					doc.Warnings = append(doc.Warnings, why)
					doc.unrecognised = cmp.Or(doc.unrecognised, why)
					if !errs.Is(err, errs.Conversion) {
						ocrErr = err
					}
				}
			}
			if !p.OCR {
				doc.Unread++
				if p.Unmappable() {
					p.Chars = nil // glyphs without meaning are noise to the index
				}
			}
		}
		doc.Pages = append(doc.Pages, p)
		if opts.Progress != nil {
			opts.Progress(Progress{Page: i + 1, Pages: n, OCR: p.OCR})
		}
	}
	doc.Repaired = r.repaired()
	return doc, nil
}

// RepairedWarning tells the user a damaged file was read anyway.
const RepairedWarning = "the file is damaged (MuPDF repaired it to read it); some text may be missing"

// line is a run of characters on one baseline.
type line struct {
	page    int
	block   int
	text    string
	size    float64
	bold    bool
	upright bool
	box     Rect
	lineNo  int // MuPDF's line index inside the block
}

// lines groups a page's characters into lines.
func (p Page) lines() []line {
	var out []line
	var cur *line
	sizes := map[float64]int{}
	bold := 0
	flushLine := func() {
		if cur == nil {
			return
		}
		best, n := 0.0, -1
		for s, c := range sizes {
			if c > n || c == n && s > best {
				best, n = s, c
			}
		}
		cur.size = best
		cur.bold = bold*2 > len([]rune(cur.text))
		cur.text = strings.TrimSpace(cur.text)
		if cur.text != "" {
			out = append(out, *cur)
		}
		cur, sizes, bold = nil, map[float64]int{}, 0
	}
	for _, c := range p.Chars {
		if c.R == Replacement {
			continue // an unmappable glyph: nothing a reader or an index can use
		}
		if cur == nil || c.Block != cur.block || c.Line != cur.lineNo {
			flushLine()
			cur = &line{page: p.Number, block: c.Block, lineNo: c.Line, box: c.Box, upright: c.Upright}
		}
		cur.text += string(c.R)
		cur.box = union(cur.box, c.Box)
		if unicode.IsSpace(c.R) {
			continue
		}
		sizes[roundSize(c.Size)]++
		if c.Bold {
			bold++
		}
	}
	flushLine()
	return out
}

// follows reports whether b continues heading a: on the same baseline (a
// section number and its title) or the next line down, close below it.
func follows(a, b line) bool {
	if a.page != b.page {
		return false
	}
	h := min(a.box.Y1-a.box.Y0, b.box.Y1-b.box.Y0)
	if overlap := min(a.box.Y1, b.box.Y1) - max(a.box.Y0, b.box.Y0); overlap > h/2 {
		return true
	}
	gap := b.box.Y0 - a.box.Y1
	return gap > -h/2 && gap < h
}

// sectionNumber starts a numbered heading: "2.2 ", "4.3.1. ", "1. ".
var sectionNumber = regexp.MustCompile(`^\d+(\.\d+)*\.?\s`)

// continues reports whether heading line b carries on heading line a: it
// follows it closely, has words of its own, and does not open a numbered
// section itself. A bare section number is continued by its name; a page
// number or footnote mark continues nothing.
func continues(a, b line) bool {
	if !follows(a, b) || !strings.ContainsFunc(b.text, unicode.IsLetter) {
		return false
	}
	return !strings.ContainsFunc(a.text, unicode.IsLetter) || !sectionNumber.MatchString(b.text)
}

// arxivStamp is the identifier arXiv prints down the margin of page 1.
var arxivStamp = regexp.MustCompile(`^arXiv:\S+\s+\[[^\]]+\]`)

// headingWorthy reports whether text can be a heading or a title: it has a
// word of three letters or more (so not a figure label "(a)", a symbol or a
// page number) and is not arXiv's margin stamp.
func headingWorthy(text string) bool {
	run := 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			if run++; run >= 3 {
				return !arxivStamp.MatchString(text)
			}
		} else {
			run = 0
		}
	}
	return false
}

func roundSize(s float64) float64 { return float64(int(s*2+0.5)) / 2 }

func union(a, b Rect) Rect {
	return Rect{min(a.X0, b.X0), min(a.Y0, b.Y0), max(a.X1, b.X1), max(a.Y1, b.Y1)}
}

// HasText reports whether any page has text to index: a readable text
// layer or recognised words. Judged per page, so a one-line note counts.
func (d *Document) HasText() bool {
	for _, p := range d.Pages {
		if p.OCR && p.text().letters > 0 || p.Readable() {
			return true
		}
	}
	return false
}

// PageMarker starts each page's text in the Markdown, so chunks can be
// traced back to pages.
func PageMarker(n int) string { return fmt.Sprintf("<!-- page %d -->", n) }

// Markdown converts the body text: the most common font size is body text,
// larger sizes become headings (the largest three distinct sizes map to
// #, ## and ###), lines of a block join into one paragraph, and each page
// starts with a page marker. A PDF without a text layer is a Conversion
// error: its body cannot be indexed (its annotations still can).
func (d *Document) Markdown() (string, error) {
	if !d.HasText() {
		if d.Repaired {
			return "", errs.WithHint(errs.New(errs.Conversion, "pdf.Markdown", "%s is damaged: no readable text survived MuPDF's repair", d.Path), hintDamaged)
		}
		hint := ocr.InstallHint + "; its highlights and notes are still indexed"
		if d.ocrOn {
			hint = "no words could be recognised on its pages (a blank or very poor scan?); its highlights and notes are still indexed"
			if d.unrecognised != "" {
				hint = d.unrecognised + "; its highlights and notes are still indexed"
			}
		}
		return "", errs.WithHint(errs.New(errs.Conversion, "pdf.Markdown", "%s has no text layer (a scan?)", d.Path), hint)
	}
	var all []line
	vocab := d.words()
	bySize, upright := map[float64]int{}, map[float64]bool{}
	for _, p := range d.Pages {
		ls := p.lines()
		for _, l := range ls {
			bySize[l.size] += len(l.text)
			upright[l.size] = upright[l.size] || l.upright
		}
		all = append(all, ls...)
	}
	body, n := 0.0, -1
	for s, c := range bySize {
		if c > n {
			body, n = s, c
		}
	}
	var headingSizes []float64
	for s := range bySize {
		if s >= body*1.15 && upright[s] {
			headingSizes = append(headingSizes, s)
		}
	}
	slices.SortFunc(headingSizes, func(a, b float64) int { return cmp.Compare(b, a) })
	level := func(l line) int {
		if len(l.text) > 150 || !l.upright {
			return 0
		}
		for i, s := range headingSizes {
			if l.size == s {
				return min(i+1, 3)
			}
		}
		return 0
	}
	var b strings.Builder
	page, block := 0, -1
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString(vocab.joinLines(para) + "\n\n")
			para = nil
		}
	}
	for i := 0; i < len(all); i++ {
		l := all[i]
		if l.page != page {
			flush()
			page, block = l.page, -1
			b.WriteString(PageMarker(page) + "\n\n")
		}
		// A heading is the run of heading lines of one size that follow each
		// other: a title over two lines, a section number and its name.
		if lv := level(l); lv > 0 {
			j := i + 1
			for j < len(all) && level(all[j]) == lv && continues(all[j-1], all[j]) {
				j++
			}
			var texts []string
			for _, h := range all[i:j] {
				texts = append(texts, h.text)
			}
			if text := vocab.joinLines(texts); headingWorthy(text) {
				flush()
				b.WriteString(strings.Repeat("#", lv) + " " + text + "\n\n")
				block, i = -1, j-1
				continue
			}
		}
		if l.block != block {
			flush()
			block = l.block
		}
		para = append(para, l.text)
	}
	flush()
	return strings.TrimSpace(b.String()) + "\n", nil
}

// joinLines joins a paragraph's lines, mending words hyphenated across a
// line break.
func (w words) joinLines(ls []string) string {
	out := ""
	for i, l := range ls {
		if i == 0 {
			out = l
			continue
		}
		out = w.join(out, l)
	}
	return out
}
