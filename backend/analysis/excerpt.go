package analysis

import (
	"strings"

	"github.com/rivo/uniseg"
	"golang.org/x/text/unicode/norm"
)

// Segment is a piece of an excerpt; Match marks text the query matched.
type Segment struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// Excerpt is the part of text, about width characters (grapheme clusters)
// long, where the query's terms match most densely, in segments that mark
// the matched words. It is cut only between grapheme clusters — never
// inside a UTF-8 sequence, a combining sequence or an emoji — and, in
// scripts written with spaces, at a space where one is near. A cut end
// carries "…". Whitespace runs become one space.
//
// A word matches when it analyses to a term of the query (in any
// language, as search does), so "gardens" lights up for "garden", and in
// Chinese, Japanese or Thai the characters of each matching bigram do.
func Excerpt(text, query string, width int) []Segment {
	return NewHighlighter(query).Excerpt(text, width)
}

// Highlighter holds a query's terms, analysed once for every hit of a
// search.
type Highlighter struct {
	want map[string]bool
}

// NewHighlighter analyses query in every language, as search does.
func NewHighlighter(query string) Highlighter {
	h := Highlighter{want: map[string]bool{}}
	EachQuery(query, Langs(), func(t string, _ int) { h.want[t] = true })
	return h
}

// Excerpt is the package's Excerpt for this query.
func (h Highlighter) Excerpt(text string, width int) []Segment {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return nil
	}
	marks := matches(text, Detect(text), h.want)

	// Grapheme cluster starts: the only places a cut may fall.
	bounds := append(clusterStarts(text), len(text))
	clusters := len(bounds) - 1
	from, to := 0, clusters // in clusters
	if clusters > width {
		from = bestWindow(bounds, marks, width)
		to = min(from+width, clusters)
		from = max(0, to-width)
		from, to = snapToSpaces(text, bounds, from, to)
	}
	lo, hi := bounds[from], bounds[to]
	var out []Segment
	if lo > 0 {
		out = append(out, Segment{Text: "…"})
	}
	at := lo
	for _, m := range marks {
		s, e := max(m[0], lo), min(m[1], hi)
		if s >= e {
			continue
		}
		if s > at {
			out = append(out, Segment{Text: text[at:s]})
		}
		out = append(out, Segment{Text: text[s:e], Match: true})
		at = e
	}
	if at < hi {
		out = append(out, Segment{Text: text[at:hi]})
	}
	if hi < len(text) {
		out = append(out, Segment{Text: "…"})
	}
	return out
}

// Plain is the excerpt's text without marks.
func Plain(segs []Segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.Text)
	}
	return b.String()
}

// matches are the byte ranges of text whose terms are wanted, in order,
// overlapping ranges merged. Runs are cut as Each cuts them (eachRun); each
// run is normalised on its own so the ranges point into the text as
// written.
func matches(text string, l Lang, want map[string]bool) [][2]int {
	if !Known(l) || l == "ru" {
		l = English
	}
	var out [][2]int
	add := func(s, e int) {
		if n := len(out); n > 0 && s <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], e)
			return
		}
		out = append(out, [2]int{s, e})
	}
	eachRun(text, func(c class, run string, start int) {
		end := start + len(run)
		plain := run
		if !isASCII(run) {
			plain = norm.NFKC.String(run)
		}
		switch c {
		case word:
			if t := normaliseWord(plain, l); t != "" && want[t] {
				add(start, end)
			}
		case cjk, sea:
			if plain != run { // normalisation moved the offsets: mark the run if any term of it matches
				hit := false
				bigrams(plain, c, func(t string) { hit = hit || want[t] })
				if hit {
					add(start, end)
				}
				return
			}
			units := runeStarts(run)
			if c == sea {
				units = clusterStarts(run)
			}
			units = append(units, len(run))
			if len(units) == 2 {
				if want[run] {
					add(start, end)
				}
				return
			}
			for k := 0; k+2 < len(units); k++ {
				if want[run[units[k]:units[k+2]]] {
					add(start+units[k], start+units[k+2])
				}
			}
		}
	})
	return out
}

func bigrams(run string, c class, fn func(string)) {
	if c == sea {
		graphemeBigrams(run, fn)
	} else {
		runeBigrams(run, fn)
	}
}

func runeStarts(s string) []int {
	var out []int
	for i := range s {
		out = append(out, i)
	}
	return out
}

func clusterStarts(s string) []int {
	var out []int
	state := -1
	for i, rest := 0, s; len(rest) > 0; {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		out = append(out, i)
		i += len(c)
	}
	return out
}

// bestWindow is the first cluster of the width-cluster window that holds
// the most matched ranges, starting a little before the first of them so
// the match has some context.
func bestWindow(bounds []int, marks [][2]int, width int) int {
	if len(marks) == 0 {
		return 0
	}
	cluster := func(b int) int { // the cluster holding byte b
		lo, hi := 0, len(bounds)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if bounds[mid] <= b {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}
	best, bestN := 0, 0
	for i, m := range marks {
		first := cluster(m[0])
		n := 0
		for _, o := range marks[i:] {
			if cluster(o[1]-1) < first+width*3/4 {
				n++
			}
		}
		if n > bestN {
			best, bestN = first, n
		}
	}
	return max(0, best-width/6)
}

// snapToSpaces moves the window's ends to a space nearby, in text written
// with spaces, so no word is cut in two.
func snapToSpaces(text string, bounds []int, from, to int) (int, int) {
	const reach = 16
	if from > 0 {
		for k := from; k < from+reach && k < to; k++ {
			if text[bounds[k]] == ' ' {
				from = k + 1
				break
			}
		}
	}
	if to < len(bounds)-1 {
		for k := to; k > to-reach && k > from; k-- {
			if text[bounds[k]] == ' ' {
				to = k
				break
			}
		}
	}
	return from, to
}
