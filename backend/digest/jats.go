package digest

import (
	"html"
	"regexp"
	"strings"
)

// bioRxiv's API flattens the JATS markup of abstracts into tokens:
// "A<sc>bstract</sc>" arrives as "AO_SCPLOWBSTRACTC_SCPLOW", a graphical
// abstract as "O_FIG … C_FIG", list items as "O_LI…C_LI".
var (
	jatsSmallCaps = regexp.MustCompile(`O_SCPLOW(.*?)C_SCPLOW`)
	jatsFigure    = regexp.MustCompile(`(?s)O_FIG.*?C_FIG`)
	jatsToken     = regexp.MustCompile(`[OC]_(?:LINKSMALLFIG|SCPLOW|LIST|LI|FIG|TABLE|SUP|SUB)`)
	htmlTag       = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	// A label run into the text it heads: "AbstractLiving in…" or
	// "Abstract: …". A space and a word after it is prose ("Abstract
	// reasoning is…") and stays.
	leadLabel = regexp.MustCompile(`^(?i:abstract)(?:\s*[:.]\s*|[A-Z])`)
)

// cleanJATS turns an abstract (or title) as bioRxiv's API sends it into
// plain text: small caps back to lower case, figures and list markers out,
// stray HTML tags and entities decoded, a leading "Abstract" label dropped.
func cleanJATS(s string) string {
	s = jatsFigure.ReplaceAllString(s, " ")
	s = jatsSmallCaps.ReplaceAllStringFunc(s, func(m string) string {
		return strings.ToLower(jatsSmallCaps.FindStringSubmatch(m)[1])
	})
	s = jatsToken.ReplaceAllString(s, " ")
	s = html.UnescapeString(htmlTag.ReplaceAllString(s, ""))
	s = clean(s)
	if loc := leadLabel.FindStringIndex(s); loc != nil {
		rest := s[loc[1]:]
		if last := s[loc[1]-1]; last >= 'A' && last <= 'Z' {
			rest = s[loc[1]-1:] // the capital starts the text
		}
		s = strings.TrimSpace(rest)
	}
	return s
}
