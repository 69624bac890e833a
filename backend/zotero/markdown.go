package zotero

import (
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// Markdown converts a Zotero note (the HTML its note editor writes) to
// Markdown: headings, paragraphs, line breaks, lists, bold, italic, code,
// links and quotes; every other tag gives only its text.
func Markdown(note string) string {
	doc, err := html.Parse(strings.NewReader(note))
	if err != nil {
		return strings.TrimSpace(note)
	}
	var b strings.Builder
	w := &mdWriter{b: &b}
	w.children(doc)
	out := blankRuns.ReplaceAllString(b.String(), "\n\n")
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

var blankRuns = regexp.MustCompile(`\n{3,}`)

type mdWriter struct {
	b     *strings.Builder
	lists []listState
	quote int
}

type listState struct {
	ordered bool
	n       int
}

func (w *mdWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// block starts a new block: a blank line, then the quote marks.
func (w *mdWriter) block() {
	w.b.WriteString("\n\n")
	w.prefix()
}

func (w *mdWriter) prefix() {
	if w.quote > 0 {
		w.b.WriteString(strings.Repeat("> ", w.quote))
	}
}

func (w *mdWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		text := strings.Join(strings.Fields(strings.ReplaceAll(n.Data, "\u00a0", " ")), " ")
		if text == "" {
			if strings.TrimSpace(n.Data) == "" && n.Data != "" && !strings.HasSuffix(w.b.String(), " ") && !strings.HasSuffix(w.b.String(), "\n") {
				w.b.WriteString(" ")
			}
			return
		}
		if strings.HasPrefix(n.Data, " ") && !strings.HasSuffix(w.b.String(), " ") && !strings.HasSuffix(w.b.String(), "\n") && w.b.Len() > 0 {
			w.b.WriteString(" ")
		}
		w.b.WriteString(text)
		if strings.HasSuffix(n.Data, " ") {
			w.b.WriteString(" ")
		}
		return
	case html.ElementNode:
	default:
		w.children(n)
		return
	}
	switch n.Data {
	case "script", "style":
		return
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.block()
		w.b.WriteString(strings.Repeat("#", int(n.Data[1]-'0')) + " ")
		w.children(n)
		w.block()
	case "p", "div":
		w.block()
		w.children(n)
		w.block()
	case "br":
		w.b.WriteString("\n")
		w.prefix()
	case "strong", "b":
		w.wrap(n, "**")
	case "em", "i":
		w.wrap(n, "*")
	case "code":
		w.wrap(n, "`")
	case "pre":
		w.block()
		w.b.WriteString("```\n" + strings.TrimSpace(textOf(n)) + "\n```")
		w.block()
	case "a":
		href := attr(n, "href")
		if href == "" {
			w.children(n)
			return
		}
		w.b.WriteString("[")
		w.children(n)
		w.b.WriteString("](" + href + ")")
	case "blockquote":
		w.quote++
		w.block()
		w.children(n)
		w.quote--
		w.block()
	case "ul", "ol":
		w.lists = append(w.lists, listState{ordered: n.Data == "ol"})
		w.block()
		w.children(n)
		w.lists = w.lists[:len(w.lists)-1]
		w.block()
	case "li":
		w.b.WriteString("\n")
		w.prefix()
		depth := len(w.lists)
		marker := "- "
		if depth > 0 {
			l := &w.lists[depth-1]
			l.n++
			if l.ordered {
				marker = strconv.Itoa(l.n) + ". "
			}
		}
		w.b.WriteString(strings.Repeat("  ", max(0, depth-1)) + marker)
		w.children(n)
	default:
		w.children(n)
	}
}

func (w *mdWriter) wrap(n *html.Node, mark string) {
	inner := strings.TrimSpace(textOf(n))
	if inner == "" {
		return
	}
	w.b.WriteString(mark)
	w.children(n)
	w.b.WriteString(mark)
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}
