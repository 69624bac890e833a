package pdf

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Annotation kinds as Jarvis stores them (kb annotation_kind).
const (
	KindHighlight = "highlight" // marks on the document's own text: Highlight, Underline, Squiggly, StrikeOut
	KindNote      = "note"      // the reader's own words: sticky notes, text boxes, insertions, comments on shapes
)

// markup lists the PDF subtypes whose quads mark text.
var markup = map[string]bool{"Highlight": true, "Underline": true, "Squiggly": true, "StrikeOut": true}

// commented lists the subtypes whose only text is the reader's comment.
// Links, widgets, popups (a view of their parent) and file attachments
// (their contents is a file name) carry none.
var commented = map[string]bool{"Text": true, "FreeText": true, "Square": true, "Circle": true, "Polygon": true,
	"PolyLine": true, "Line": true, "Ink": true, "Stamp": true}

// Marked is one reader annotation turned into text.
type Marked struct {
	Kind    string // KindHighlight or KindNote
	Subtype string // the PDF subtype it came from
	Page    int
	// Text is the marked text (markup), the inserted text (Caret) or the
	// comment (notes). A mark over an image or a scan has none.
	Text string
	// Replacement is what struck text should become (Acrobat's "replace
	// text": a StrikeOut grouped with a Caret).
	Replacement string
	// Context is the text around a mark that is too small to read alone
	// (part of a word, punctuation) and around an insertion point (‸).
	Context string
	Comment string // the reader's comment on a mark
}

// Label is the chunk prefix, naming what the reader did: [HIGHLIGHT p.3],
// [STRIKEOUT p.3], [REPLACE p.3], [INSERT p.3], [USER NOTE p.3] ...
func (m Marked) Label() string {
	var what string
	switch {
	case m.Replacement != "":
		what = "REPLACE"
	case m.Subtype == "Caret":
		what = "INSERT"
	case m.Kind == KindHighlight:
		what = strings.ToUpper(m.Subtype)
	default:
		what = "USER NOTE"
	}
	return "[" + what + " p." + strconv.Itoa(m.Page) + "]"
}

// String is the chunk text for indexing: the label, the text, then the
// context and the comment on their own lines.
func (m Marked) String() string {
	s := m.Label()
	if m.Text != "" {
		s += " " + m.Text
	}
	if m.Replacement != "" {
		s += " → " + m.Replacement
	}
	if m.Context != "" {
		s += "\nContext: " + m.Context
	}
	if m.Comment != "" {
		s += "\nNote: " + m.Comment
	}
	return s
}

// Marks turns the document's annotations into text, page by page in the
// file's order. Markup recovers the characters at least half inside one of
// its quads, so a mark on part of a word, on punctuation or across a
// hyphenated line break reads exactly as marked; a StrikeOut grouped with
// a Caret becomes one replacement; typed comments (from /Contents, else the
// rich-text /RC) are normalised; review-state records (Accepted, Unmarked
// ...) are not comments and are skipped, as are marks with neither text
// nor comment. Works on scanned PDFs too: a highlight on a page with no
// text layer keeps its comment.
func (d *Document) Marks() []Marked {
	var out []Marked
	vocab := d.words()
	for _, p := range d.Pages {
		byRef := map[int]Annotation{}
		grouped := map[int]int{} // caret ref -> the StrikeOut grouped with it
		for _, a := range p.Annotations {
			if a.Ref > 0 {
				byRef[a.Ref] = a
			}
			if a.Kind == "StrikeOut" && a.InReplyTo > 0 && a.ReplyType == "Group" {
				grouped[a.InReplyTo] = a.Ref
			}
		}
		for _, a := range p.Annotations {
			if a.ReviewState {
				continue
			}
			comment := commentOf(a)
			switch {
			case markup[a.Kind]:
				text, context := p.markedText(a.Quads, vocab)
				m := Marked{Kind: KindHighlight, Subtype: a.Kind, Page: p.Number, Text: text, Context: context, Comment: comment}
				if caret, ok := byRef[a.InReplyTo]; ok && a.ReplyType == "Group" && caret.Kind == "Caret" {
					m.Replacement, m.Comment = commentOf(caret), ""
				}
				if m.Text != "" || m.Comment != "" || m.Replacement != "" {
					out = append(out, m)
				}
			case a.Kind == "Caret":
				if _, ok := grouped[a.Ref]; ok && a.Ref > 0 {
					continue // told with its StrikeOut
				}
				if comment != "" {
					out = append(out, Marked{Kind: KindNote, Subtype: a.Kind, Page: p.Number, Text: comment, Context: p.insertionContext(a.Box)})
				}
			case commented[a.Kind]:
				if comment != "" {
					out = append(out, Marked{Kind: KindNote, Subtype: a.Kind, Page: p.Number, Text: comment})
				}
			}
		}
	}
	return out
}

// commentOf is an annotation's typed comment: /Contents, or the rich text
// when that is the only copy, with line breaks normalised.
func commentOf(a Annotation) string {
	if c := cleanComment(a.Contents); c != "" {
		return c
	}
	return cleanComment(richText(a.RichText))
}

// cleanComment normalises line breaks (Acrobat writes bare CRs), trims
// each line and keeps at most one blank line between paragraphs.
func cleanComment(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	blank := false
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(l)
	}
	return b.String()
}

// inside reports whether at least half of the character's box lies in one
// quad. Quads hug glyphs loosely and neighbouring lines' boxes overlap a
// little, so "mostly inside" separates marked from grazed characters. A box
// with no area (the second letter of a split ligature) counts by its centre.
func inside(c Rect, quads []Rect) bool {
	area := (c.X1 - c.X0) * (c.Y1 - c.Y0)
	for _, q := range quads {
		if area <= 0 {
			if q.Contains((c.X0+c.X1)/2, (c.Y0+c.Y1)/2) {
				return true
			}
			continue
		}
		w := min(c.X1, q.X1) - max(c.X0, q.X0)
		h := min(c.Y1, q.Y1) - max(c.Y0, q.Y0)
		if w > 0 && h > 0 && w*h >= area/2 {
			return true
		}
		// A glyph taller than its line (a brace, a bracket, an integral) is
		// marked when the quad covers most of its width and half of the
		// shorter of the two heights: its box pokes out of the line's quad,
		// but the reader marked it.
		if tall := c.Y1 - c.Y0; tall > q.Y1-q.Y0 && w >= (c.X1-c.X0)/2 && h >= min(tall, q.Y1-q.Y0)/2 {
			return true
		}
	}
	return false
}

// markedText joins, in reading order, the characters inside the quads. A
// skipped stretch becomes one space, a line break is glued as in the body
// text (a broken word is mended). Context is added when the mark is part of
// a word or holds no letter or digit.
func (p Page) markedText(quads []Rect, vocab words) (text, context string) {
	if len(quads) == 0 {
		return "", ""
	}
	var s strings.Builder
	first, last, prev := -1, -1, -1
	for i, c := range p.Chars {
		if !inside(c.Box, quads) {
			continue
		}
		if prev >= 0 {
			switch {
			case !sameLine(p.Chars[prev], c):
				left := s.String()
				// A mark that stops just short of a line-end hyphen still
				// ends in a broken word.
				if prev+1 < len(p.Chars) && strings.TrimSpace(p.lineText(prev+1)) == "-" && sameLine(p.Chars[prev], p.Chars[prev+1]) {
					left += "-"
				}
				s.Reset()
				s.WriteString(vocab.glue(left, p.lineText(i)))
			case i > prev+1:
				s.WriteByte(' ')
			}
		}
		s.WriteRune(c.R)
		if first < 0 {
			first = i
		}
		last, prev = i, i
	}
	text = strings.Join(strings.Fields(s.String()), " ")
	if text == "" {
		return "", ""
	}
	partial := first > 0 && sameLine(p.Chars[first-1], p.Chars[first]) && isWordRune(p.Chars[first-1].R) && isWordRune(p.Chars[first].R) ||
		last+1 < len(p.Chars) && sameLine(p.Chars[last], p.Chars[last+1]) && isWordRune(p.Chars[last+1].R) && isWordRune(p.Chars[last].R)
	// A long mark reads well without the rest of its edge words.
	if (partial && utf8.RuneCountInString(text) < contextRunes) || !strings.ContainsFunc(text, isWordRune) {
		context = p.around(first, last+1, "")
	}
	return text, context
}

// TextUnder is the text that quads (in the page's coordinates, origin at
// the top left) mark on page (1-based), read as a highlight in the file is
// read: the characters mostly inside, in reading order, broken words
// mended. It is "" for a page out of range or quads over no text.
func (d *Document) TextUnder(page int, quads []Rect) string {
	if page < 1 || page > len(d.Pages) {
		return ""
	}
	text, _ := d.Pages[page-1].markedText(quads, d.words())
	return text
}

// lineText is the text from char i to the end of its line.
func (p Page) lineText(i int) string {
	var b strings.Builder
	for j := i; j < len(p.Chars) && sameLine(p.Chars[j], p.Chars[i]); j++ {
		b.WriteRune(p.Chars[j].R)
	}
	return b.String()
}

func sameLine(a, b Char) bool { return a.Block == b.Block && a.Line == b.Line }

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// contextWords is how many words around a mark make it readable.
const (
	contextWords = 4
	contextRunes = 60
)

// wordsFrom collects up to contextWords words (and at most contextRunes
// runes) of the page's characters starting at i and walking by step (-1:
// backwards, returned in reading order). A line break counts as a space.
func (p Page) wordsFrom(i, step int) string {
	var out []rune
	seen, inWord := 0, false
	space := func() bool { // ends a word; true when enough words are in
		if inWord {
			if seen++; seen == contextWords {
				return true
			}
		}
		inWord = false
		out = append(out, ' ')
		return false
	}
	for ; i >= 0 && i < len(p.Chars) && len(out) < contextRunes; i += step {
		if j := i - step; j >= 0 && j < len(p.Chars) && !sameLine(p.Chars[i], p.Chars[j]) && space() {
			break
		}
		if r := p.Chars[i].R; unicode.IsSpace(r) {
			if space() {
				break
			}
		} else {
			inWord = true
			out = append(out, r)
		}
	}
	if step < 0 {
		slices.Reverse(out)
	}
	return string(out)
}

// around is chars [from, to) with a few words either side, with mid (if not
// empty) in place of chars [from, to): one line, elided at both ends.
func (p Page) around(from, to int, mid string) string {
	if mid == "" {
		for _, c := range p.Chars[from:to] {
			mid += string(c.R)
		}
	}
	s := strings.Join(strings.Fields(p.wordsFrom(from-1, -1)+mid+p.wordsFrom(to, 1)), " ")
	return "…" + s + "…"
}

// insertionContext is the text around the point a Caret marks, with ‸ at
// the insertion point: beside the character nearest the caret box's centre
// among the lines the box overlaps. "" when no text is near.
func (p Page) insertionContext(box Rect) string {
	cx, cy := (box.X0+box.X1)/2, (box.Y0+box.Y1)/2
	best, bestD := -1, 0.0
	for i, c := range p.Chars {
		if c.Box.Y1 < box.Y0 || c.Box.Y0 > box.Y1 || unicode.IsSpace(c.R) {
			continue
		}
		dx := max(c.Box.X0-cx, cx-c.Box.X1, 0)
		dy := max(c.Box.Y0-cy, cy-c.Box.Y1, 0)
		if d := dx*dx + dy*dy; best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return ""
	}
	at := best
	if c := p.Chars[best]; cx > (c.Box.X0+c.Box.X1)/2 {
		at++
	}
	return p.around(at, at, "‸")
}
