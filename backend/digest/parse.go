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
			for _, a := range strings.Split(strings.Trim(t, "*"), ",") {
				if a = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(a), "et al.")); a != "" {
					cur.Paper.Authors = append(cur.Paper.Authors, a)
				}
			}
			continue
		}
		body = append(body, l)
	}
	flush()
	return date, out
}
