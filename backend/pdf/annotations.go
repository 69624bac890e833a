package pdf

import (
	"strconv"
	"strings"
)

// Annotation kinds as Jarvis stores them (kb annotation_kind).
const (
	KindHighlight = "highlight" // Highlight, Underline, Squiggly, StrikeOut: marked text
	KindNote      = "note"      // Text (sticky note) and FreeText: the reader's own words
)

// markup lists the PDF subtypes whose quads mark text.
var markup = map[string]bool{"Highlight": true, "Underline": true, "Squiggly": true, "StrikeOut": true}

// Marked is one reader annotation turned into text.
type Marked struct {
	Kind    string // KindHighlight or KindNote
	Subtype string // the PDF subtype it came from
	Page    int
	Text    string // the covered text (highlights) or the comment (notes)
	Comment string // a highlight's typed popup comment
}

// Label is the chunk prefix: [HIGHLIGHT p.3] or [USER NOTE p.3].
func (m Marked) Label() string {
	if m.Kind == KindHighlight {
		return "[HIGHLIGHT p." + strconv.Itoa(m.Page) + "]"
	}
	return "[USER NOTE p." + strconv.Itoa(m.Page) + "]"
}

// Chunk text for indexing: label, the text, and the comment if any.
func (m Marked) String() string {
	s := m.Label() + " " + m.Text
	if m.Comment != "" {
		s += "\nNote: " + m.Comment
	}
	return s
}

// Marks turns the document's annotations into text, page by page. Markup
// annotations recover the words whose box centre lies inside one of their
// quads, in reading order; sticky notes and free-text boxes become notes;
// ink, shapes, links and popups are ignored. Works on scanned PDFs too:
// a highlight on a page with no text layer keeps its comment.
func (d *Document) Marks() []Marked {
	var out []Marked
	for _, p := range d.Pages {
		var lines []line
		for _, a := range p.Annotations {
			switch {
			case markup[a.Kind]:
				if lines == nil {
					lines = p.lines()
				}
				text := coveredText(lines, a.Quads)
				comment := strings.TrimSpace(a.Contents)
				if text == "" && comment == "" {
					continue
				}
				if text == "" { // a highlight over an image or a scan
					text, comment = comment, ""
				}
				out = append(out, Marked{Kind: KindHighlight, Subtype: a.Kind, Page: p.Number, Text: text, Comment: comment})
			case a.Kind == "Text" || a.Kind == "FreeText":
				if c := strings.TrimSpace(a.Contents); c != "" {
					out = append(out, Marked{Kind: KindNote, Subtype: a.Kind, Page: p.Number, Text: c})
				}
			}
		}
	}
	return out
}

// coveredText joins, in reading order, the words whose centre lies in a
// quad. Quads hug the glyphs loosely, so the test uses centres, not
// overlap: a neighbouring word that a quad grazes is not picked up.
func coveredText(lines []line, quads []Rect) string {
	var words []string
	for _, l := range lines {
		for i, w := range l.wordBoxes {
			cx, cy := (w.X0+w.X1)/2, (w.Y0+w.Y1)/2
			for _, q := range quads {
				if q.Contains(cx, cy) {
					words = append(words, l.wordTexts[i])
					break
				}
			}
		}
	}
	// Word granularity can pull in the punctuation a quad stopped short of.
	return strings.TrimRight(strings.TrimSpace(strings.Join(words, " ")), ".,;:")
}
