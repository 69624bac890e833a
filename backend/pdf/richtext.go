package pdf

import (
	"strings"

	"golang.org/x/net/html"
)

// blockTags end a paragraph in a rich-text comment.
var blockTags = map[string]bool{"p": true, "div": true, "br": true, "li": true}

// richText is the plain text of an annotation's /RC body (XHTML as Acrobat
// and pdf.js write it: <body><p>…</p></body>), paragraphs on their own
// lines. Malformed markup yields what could be read.
func richText(rc string) string {
	if strings.TrimSpace(rc) == "" {
		return ""
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(rc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			if name, _ := z.TagName(); blockTags[string(name)] {
				b.WriteByte('\n')
			}
		}
	}
}
