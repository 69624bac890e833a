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
		if i == 0 && len(ls) > 0 {
			best := ls[0]
			for _, l := range ls {
				if l.size > best.size && len(l.text) > 3 {
					best = l
				}
			}
			g.Title = best.text
		}
	}
	if t := strings.TrimSpace(d.Title); !junkTitles[strings.ToLower(t)] && len(t) > 3 {
		g.Title = t
	}
	if a := strings.TrimSpace(d.Author); !junkTitles[strings.ToLower(a)] {
		g.Authors = a
	}
	return g
}
