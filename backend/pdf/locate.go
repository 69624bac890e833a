package pdf

import (
	"strings"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
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
// the passage is not on that page.
func Locate(path string, page int, passage string) (Passage, error) {
	const op = "pdf.Locate"
	r, msg := openRaw(path)
	if r == nil {
		return Passage{}, errs.New(errs.Conversion, op, "cannot open %s: %s", path, msg)
	}
	defer r.close()
	n, msg := r.pages()
	if msg != "" {
		return Passage{}, errs.New(errs.Conversion, op, "cannot count pages of %s: %s", path, msg)
	}
	if page < 1 || page > n {
		return Passage{}, errs.New(errs.Invalid, op, "page %d is outside 1..%d", page, n)
	}
	p, msg := r.page(page-1, false, 0)
	if msg != "" {
		return Passage{}, errs.New(errs.Conversion, op, "page %d of %s: %s", page, path, msg)
	}
	return Passage{Width: p.Width, Height: p.Height, Boxes: p.locate(passage)}, nil
}

// locate returns one box per page line that holds matched words.
func (p Page) locate(passage string) []Rect {
	want := compact(normalWords(strings.Fields(passage)))
	type word struct {
		text string
		line int
		box  Rect
	}
	var words []word
	lines := p.lines()
	for i, l := range lines {
		norm := normalWords(l.wordTexts)
		for j, w := range l.wordTexts {
			if norm[j] != "" && w != "" {
				words = append(words, word{norm[j], i, l.wordBoxes[j]})
			}
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
