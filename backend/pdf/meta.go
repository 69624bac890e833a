package pdf

import (
	"regexp"
	"strings"
)

// doiRE matches a DOI (Crossref's recommended pattern, case-insensitive).
var doiRE = regexp.MustCompile(`(?i)\b(10\.\d{4,9}/[-._;()/:a-z0-9]+[a-z0-9])`)

// junkTitles are placeholders PDF producers write into the info dictionary.
var junkTitles = map[string]bool{"untitled": true, "anonymous": true, "microsoft word": true, "": true}

// Guess is what the file itself says about a paper.
type Guess struct {
	Title, Authors, DOI string
	FirstPage           string // text of page 1, for an LLM to read when the guess is thin
}

// Guess reads the DOI from the first pages' text, and title and authors
// from the document info, falling back to the largest-font line of page 1
// for the title.
func (d *Document) Guess() Guess {
	var g Guess
	for i, p := range d.Pages {
		if i >= 2 {
			break
		}
		ls := p.lines()
		var text []string
		for _, l := range ls {
			text = append(text, l.text)
		}
		joined := strings.Join(text, "\n")
		if i == 0 {
			g.FirstPage = joined
		}
		if g.DOI == "" {
			if m := doiRE.FindString(joined); m != "" {
				g.DOI = strings.TrimRight(m, ".,;")
			}
		}
		if i == 0 {
			g.Title = pageTitle(ls, d.words())
		}
	}
	// The info title wins unless it is only the start of the title printed
	// on the page (producers cut long titles).
	if t := strings.TrimSpace(d.Title); !junkTitles[strings.ToLower(t)] && len(t) > 3 && !(len(g.Title) > len(t) && strings.HasPrefix(g.Title, t)) {
		g.Title = t
	}
	if a := strings.TrimSpace(d.Author); !junkTitles[strings.ToLower(a)] {
		g.Authors = a
	}
	return g
}

// pageTitle is the largest upright text on the page that can be a title,
// with the lines of the same size that continue it (a title over two
// lines); a margin stamp, a figure label or a page number never is.
func pageTitle(ls []line, vocab words) string {
	best := -1
	for i, l := range ls {
		if l.upright && headingWorthy(l.text) && (best < 0 || l.size > ls[best].size) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	texts := []string{ls[best].text}
	for j := best + 1; j < len(ls) && ls[j].size == ls[best].size && ls[j].upright && continues(ls[j-1], ls[j]); j++ {
		texts = append(texts, ls[j].text)
	}
	return vocab.joinLines(texts)
}
