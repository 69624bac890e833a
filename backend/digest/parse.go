package digest

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	entryRE = regexp.MustCompile(`^### \[(.+)\]\((\S+)\)\s*$`)
	scoreRE = regexp.MustCompile(`\*\*Score:\*\*\s*(\d+)/10(?:\s*·\s*\*\*Track:\*\*\s*([^·]+?))?(?:\s*·\s*\*\*Source:\*\*\s*(.+?))?\s*$`)
	dateRE  = regexp.MustCompile(`^# Paper Digest — (\d{4}-\d{2}-\d{2})`)
)

// Parse reads a digest written by Format back into scored papers (the
// inverse used by `kb add-digest`). Lines it does not recognise are
// ignored, so hand edits survive; an entry without a score line is skipped.
func Parse(markdown string) (date string, out []Scored) {
	var cur *Scored
	var body []string
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.TrimSpace(strings.Join(body, "\n"))
		if i := strings.Index(text, "**Why:**"); i >= 0 {
			cur.Reason = strings.TrimSpace(text[i+len("**Why:**"):])
			text = strings.TrimSpace(text[:i])
		}
		cur.Summary = text
		if cur.Score > 0 {
			out = append(out, *cur)
		}
		cur, body = nil, nil
	}
	for _, l := range strings.Split(markdown, "\n") {
		if m := dateRE.FindStringSubmatch(l); m != nil {
			date = m[1]
			continue
		}
		if m := entryRE.FindStringSubmatch(l); m != nil {
			flush()
			cur = &Scored{Paper: Paper{Title: m[1], Link: m[2], ID: ParseArxivID(m[2])}}
			if doi, ok := strings.CutPrefix(m[2], "https://doi.org/"); ok {
				cur.Paper.ID, cur.Paper.DOI = doi, doi
			}
			continue
		}
		if strings.HasPrefix(l, "## ") {
			flush()
			continue
		}
		if cur == nil {
			continue
		}
		if m := scoreRE.FindStringSubmatch(l); m != nil && cur.Score == 0 {
			cur.Score, _ = strconv.Atoi(m[1]) // scoreRE captures digits only
			cur.Track, cur.Paper.Source = strings.TrimSpace(m[2]), strings.TrimSpace(m[3])
			continue
		}
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "*") && strings.HasSuffix(t, "*") && !strings.HasPrefix(t, "**") && len(cur.Paper.Authors) == 0 {
			cur.Paper.Authors = parseAuthors(strings.Trim(t, "*"))
			continue
		}
		if a, ok := strings.CutPrefix(strings.TrimSpace(l), assessmentKey); ok {
			for _, w := range strings.Split(a, detailSep) {
				switch strings.TrimSpace(w) {
				case wordVetted:
					cur.Vetted = true
				case wordSlop:
					cur.Slop = true
				}
			}
			continue
		}
		if strings.TrimSpace(strings.Join(body, "")) == "" && parseDetails(l, &cur.Paper) {
			continue
		}
		body = append(body, l)
	}
	flush()
	return date, out
}

// parseAuthors reads an author line: names separated by semicolons (a
// comma belongs to "Naka, A."), or by commas in digests written before.
func parseAuthors(line string) []string {
	sep := ";"
	if !strings.Contains(line, ";") {
		sep = ","
	}
	var out []string
	for _, a := range strings.Split(line, sep) {
		if a = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(a), "et al.")); a != "" {
			out = append(out, a)
		}
	}
	return out
}

var detailRE = regexp.MustCompile(`^\*\*([^*]+):\*\*\s*(.*)$`)

// parseDetails reads a detail line written by detailLine into p; false
// when the line is not one.
func parseDetails(line string, p *Paper) bool {
	parts := strings.Split(strings.TrimSpace(line), detailSep)
	fields := map[string]string{}
	for _, part := range parts {
		m := detailRE.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			return false
		}
		fields[m[1]] = strings.TrimSpace(m[2])
	}
	known := 0
	for k, v := range fields {
		switch k {
		case keyCategories:
			for _, c := range strings.Split(v, ",") {
				if c = strings.TrimSpace(c); c != "" {
					p.Categories = append(p.Categories, c)
				}
			}
		case keyVersion:
			p.Version, _ = strconv.Atoi(v)
		case keyJournal:
			p.JournalRef = v
		case keyJournalDOI:
			p.JournalDOI = v
		case keyDOI:
			p.DOI = v
		case keyComment:
			p.Comment = v
		default:
			continue
		}
		known++
	}
	return known > 0
}
