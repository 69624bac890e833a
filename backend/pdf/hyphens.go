package pdf

import (
	"strings"
	"unicode"
)

// words is what a document itself says about hyphens: the hyphenated words
// it prints inside a line ("mixed-mode") and every plain word, lower-cased.
// MuPDF's own dehyphenation drops every line-end hyphen, so "mixed-/mode"
// became "mixedmode"; Jarvis reads the raw lines and mends a word broken
// across lines with this evidence instead (see glue).
type words struct{ compound, plain map[string]bool }

// words is computed once per document: Marks, Markdown and Guess all need
// it, and it takes a pass over every line.
func (d *Document) words() words {
	if d.vocab == nil {
		w := d.collectWords()
		d.vocab = &w
	}
	return *d.vocab
}

func (d *Document) collectWords() words {
	w := words{compound: map[string]bool{}, plain: map[string]bool{}}
	for _, p := range d.Pages {
		afterBreak := false // the line before ended in a hyphen
		for _, l := range p.lines() {
			fields := strings.Fields(l.text)
			// The halves of a word broken across lines are not words.
			if afterBreak && len(fields) > 0 {
				fields = fields[1:]
			}
			afterBreak = len(fields) > 0 && strings.HasSuffix(fields[len(fields)-1], "-")
			if afterBreak {
				fields = fields[:len(fields)-1]
			}
			for _, f := range fields {
				f = strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !isWordRune(r) }))
				if i := strings.IndexByte(f, '-'); i > 0 && i < len(f)-1 {
					w.compound[f] = true
					for _, part := range strings.Split(f, "-") {
						w.plain[part] = true
					}
				} else if f != "" {
					w.plain[f] = true
				}
			}
		}
	}
	return w
}

// broken reports whether left ends a line with a hyphen after a letter and
// right continues in lower case: a word split by the line break.
func broken(left, right string) bool {
	l := []rune(left)
	r, _ := firstRune(right)
	return len(l) >= 2 && l[len(l)-1] == '-' && unicode.IsLetter(l[len(l)-2]) && unicode.IsLower(r)
}

// glue is left made ready for right to follow it on the next line. A
// broken word keeps its hyphen when the document prints the compound
// elsewhere, or when it does not print the joined word but uses both halves
// as words ("mixed-/mode"); otherwise the hyphen only broke the word
// ("regis-/ters"). Anything else gets a space.
func (w words) glue(left, right string) string {
	if !broken(left, right) {
		return left + " "
	}
	stem := strings.ToLower(lastWord(strings.TrimSuffix(left, "-")))
	next := strings.ToLower(firstWord(right))
	switch {
	case w.compound[stem+"-"+next]:
		return left
	case w.plain[stem+next]:
		return strings.TrimSuffix(left, "-")
	case w.plain[stem] && w.plain[next]:
		return left
	}
	return strings.TrimSuffix(left, "-")
}

// join glues two lines of one paragraph.
func (w words) join(left, right string) string { return w.glue(left, right) + right }

func firstRune(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
	return s[i+1:]
}

func firstWord(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); i >= 0 {
		return s[:i]
	}
	return s
}
