package pdf

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr"
)

// Passage is where a passage sits on one page: one box per line it covers,
// in page space, with the page size so a viewer can scale the boxes onto a
// rendered image of the page.
type Passage struct {
	Width, Height float64
	Boxes         []Rect
}

// locateRun is how many consecutive words must match for a word on the
// page to count as part of the passage: long enough that common phrases
// elsewhere on the page do not light up, short enough to survive the
// differences between the stored text and the page (Markdown headings,
// hyphenation, ligatures).
const locateRun = 4

// Locate finds passage (typically a stored chunk of the document) on page
// (1-based) of the PDF at path. Words are compared case- and
// punctuation-blind; a page word is marked when it lies in a run of
// locateRun words that also occurs in the passage. It returns no boxes when
// the passage is not on that page. A scanned page (or an image) is read by
// eng when it is given, so passages recognised at indexing are found again.
//
// Locate cannot be stopped; callers that can (a viewer the user may leave)
// use LocateContext.
func Locate(path string, page int, passage string, eng *ocr.Engine) (Passage, error) {
	return LocateContext(context.Background(), path, page, passage, eng)
}

// LocateContext is Locate that ctx stops, even in the middle of MuPDF's
// work on the page or of its recognition (Cancelled, wrapping ctx's error).
func LocateContext(ctx context.Context, path string, page int, passage string, eng *ocr.Engine) (Passage, error) {
	const op = "pdf.Locate"
	lim := DefaultLimits // a cited page is read under the same bounds as any other
	r, n, err := openCounted(path, "", lim, op)
	if err != nil {
		return Passage{}, err
	}
	defer r.close()
	if page < 1 || page > n {
		return Passage{}, errs.New(errs.Invalid, op, "page %d is outside 1..%d", page, n)
	}
	clock := startClock(ctx, lim.DocTimeout)
	defer clock.stop()
	docCtx := clock.ctx
	var p Page
	err = r.bounded(ctx, docCtx, lim, op, fmt.Sprintf("page %d of %s", page, path), func() *mupdfError {
		var merr *mupdfError
		p, merr = r.page(page-1, false, 0, lim.MaxChars)
		return merr
	})
	if err != nil {
		return Passage{}, err
	}
	if eng != nil && !p.Readable() {
		if err := r.recognise(ctx, clock, lim, eng, page-1, &p, op); err != nil {
			return Passage{}, err
		}
	}
	return Passage{Width: p.Width, Height: p.Height, Boxes: p.locate(passage)}, nil
}

// pageWord is one word on the page: its text, its line and its box.
type pageWord struct {
	text string
	line int
	box  Rect
}

// pageWords splits the page's characters into words (runs without spaces
// inside one MuPDF line), in reading order.
func (p Page) pageWords() []pageWord {
	var out []pageWord
	var cur strings.Builder
	var box Rect
	lineNo, block, line := -1, -1, -1
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, pageWord{text: cur.String(), line: lineNo, box: box})
		}
		cur.Reset()
	}
	for _, c := range p.Chars {
		if c.Block != block || c.Line != line {
			flush()
			block, line = c.Block, c.Line
			lineNo++
		}
		if unicode.IsSpace(c.R) {
			flush()
			continue
		}
		if cur.Len() == 0 {
			box = c.Box
		} else {
			box = union(box, c.Box)
		}
		cur.WriteRune(c.R)
	}
	flush()
	return out
}

// locate returns one box per page line that holds matched words.
func (p Page) locate(passage string) []Rect {
	want := compact(normalWords(strings.Fields(passage)))
	var words []pageWord
	for _, w := range p.pageWords() {
		if norm := normalWords([]string{w.text})[0]; norm != "" {
			w.text = norm
			words = append(words, w)
		}
	}
	run := min(locateRun, len(want))
	if run == 0 {
		return nil
	}
	grams := map[string]bool{}
	for i := 0; i+run <= len(want); i++ {
		grams[strings.Join(want[i:i+run], " ")] = true
	}
	marked := make([]bool, len(words))
	for i := 0; i+run <= len(words); i++ {
		key := make([]string, run)
		for k := range key {
			key[k] = words[i+k].text
		}
		if grams[strings.Join(key, " ")] {
			for k := i; k < i+run; k++ {
				marked[k] = true
			}
		}
	}
	var out []Rect
	last := -1
	for i, w := range words {
		if !marked[i] {
			continue
		}
		if w.line == last {
			out[len(out)-1] = union(out[len(out)-1], w.box)
		} else {
			out = append(out, w.box)
			last = w.line
		}
	}
	return out
}

// normalWords lowercases words and strips everything but letters and
// digits; a word of punctuation alone becomes "".
func normalWords(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, w)
	}
	return out
}

func compact(words []string) []string {
	var out []string
	for _, w := range words {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
