// Package render turns drafts into something to look at: Markdown to HTML
// for the sandboxed preview (raw HTML escaped, maths as MathML, source-line
// anchors for scroll sync), and LaTeX / pandoc to PDF in a locked-down temp
// directory.
package render

import (
	"bytes"
	"html"
	"strconv"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(
		parser.WithInlineParsers(util.Prioritized(mathInlineParser{}, 150)),
		parser.WithBlockParsers(util.Prioritized(mathBlockParser{}, 150)),
		parser.WithASTTransformers(util.Prioritized(lineAnchors{}, 1000)),
	),
	goldmark.WithRendererOptions(
		renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100)),
	),
)

// MarkdownToHTML renders a draft for preview. Raw HTML in the source is shown
// as text, never passed through: a draft built from an untrusted document
// must not be able to inject markup. Every top-level block carries
// data-line="N" (1-based source line) for editor-driven scroll sync.
func MarkdownToHTML(src string) (string, error) {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "", errs.Wrap(errs.Conversion, "render.Markdown", err)
	}
	return buf.String(), nil
}

// lineAnchors stamps top-level blocks with their source line.
type lineAnchors struct{}

func (lineAnchors) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		start, ok := firstOffset(n)
		if !ok {
			continue
		}
		line := bytes.Count(src[:start], []byte("\n")) + 1
		// A fenced block's lines are its content; its first line is the
		// fence above (where the info string, if any, sits).
		if fc, isFence := n.(*ast.FencedCodeBlock); isFence && fc.Info == nil {
			line--
		}
		if mb, isMath := n.(*mathBlock); isMath && mb.multiline {
			line--
		}
		n.SetAttributeString("data-line", []byte(strconv.Itoa(line)))
	}
}

func firstOffset(n ast.Node) (int, bool) {
	if fc, ok := n.(*ast.FencedCodeBlock); ok && fc.Info != nil {
		return fc.Info.Segment.Start, true
	}
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start, true
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if off, ok := firstOffset(c); ok {
			return off, true
		}
	}
	return 0, false
}

// --- maths ---

var (
	kindMathInline = ast.NewNodeKind("MathInline")
	kindMathBlock  = ast.NewNodeKind("MathBlock")
)

type mathInline struct {
	ast.BaseInline
	source  []byte
	display bool
}

func (n *mathInline) Kind() ast.NodeKind            { return kindMathInline }
func (n *mathInline) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

type mathBlock struct {
	ast.BaseBlock
	multiline bool // $$ on its own line: the content starts one line later
}

func (n *mathBlock) Kind() ast.NodeKind            { return kindMathBlock }
func (n *mathBlock) IsRaw() bool                   { return true }
func (n *mathBlock) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

type mathInlineParser struct{}

func (mathInlineParser) Trigger() []byte { return []byte{'$'} }

func (mathInlineParser) Parse(_ ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, _ := block.PeekLine()
	display := bytes.HasPrefix(line, []byte("$$"))
	delim := 1
	if display {
		delim = 2
	}
	rest := line[delim:]
	var end int
	if display {
		end = bytes.Index(rest, []byte("$$"))
	} else {
		end = bytes.IndexByte(rest, '$')
	}
	if end <= 0 {
		return nil
	}
	body := rest[:end]
	after := delim + end + delim
	// "$5 and $10" is money, not maths: no space just inside the delimiters
	// and no digit right after the closing one.
	if !display && (body[0] == ' ' || body[len(body)-1] == ' ' || after < len(line) && line[after] >= '0' && line[after] <= '9') {
		return nil
	}
	block.Advance(after)
	return &mathInline{source: append([]byte(nil), body...), display: display}
}

type mathBlockParser struct{}

func (mathBlockParser) Trigger() []byte { return []byte{'$'} }

func (mathBlockParser) Open(_ ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	trimmed := bytes.TrimSpace(line)
	if !bytes.HasPrefix(trimmed, []byte("$$")) {
		return nil, parser.NoChildren
	}
	node := &mathBlock{}
	inner := bytes.TrimSpace(trimmed[2:])
	if bytes.HasSuffix(inner, []byte("$$")) { // $$ ... $$ on one line
		start := seg.Start + bytes.Index(line, []byte("$$")) + 2
		node.Lines().Append(text.NewSegment(start, start+len(inner)-2))
		reader.AdvanceToEOL()
		return node, parser.Close
	}
	node.multiline = true
	reader.AdvanceToEOL()
	return node, parser.NoChildren
}

func (mathBlockParser) Continue(node ast.Node, reader text.Reader, _ parser.Context) parser.State {
	line, seg := reader.PeekLine()
	if bytes.HasPrefix(bytes.TrimSpace(line), []byte("$$")) {
		reader.AdvanceToEOL()
		return parser.Close
	}
	node.Lines().Append(seg)
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

func (mathBlockParser) Close(ast.Node, text.Reader, parser.Context) {}
func (mathBlockParser) CanInterruptParagraph() bool                 { return true }
func (mathBlockParser) CanAcceptIndentedLine() bool                 { return false }

// --- rendering overrides ---

// The renderers below ignore WriteString's error (`_, _ =`), as goldmark's
// own do: the writer is a bufio.Writer over a bytes.Buffer, whose errors are
// sticky and come back from the Flush that md.Convert checks.

type safeRenderer struct{}

func (safeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderEscapedHTMLBlock)
	reg.Register(ast.KindRawHTML, renderEscapedRawHTML)
	reg.Register(kindMathInline, renderMathInline)
	reg.Register(kindMathBlock, renderMathBlock)
	reg.Register(ast.KindFencedCodeBlock, renderCodeBlock)
	reg.Register(ast.KindCodeBlock, renderCodeBlock)
}

func renderEscapedHTMLBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<p")
	gmhtml.RenderAttributes(w, n, nil)
	_, _ = w.WriteString(">")
	writeEscaped(w, source, n.Lines())
	if b, ok := n.(*ast.HTMLBlock); ok && b.HasClosure() {
		_, _ = w.WriteString(html.EscapeString(string(b.ClosureLine.Value(source))))
	}
	_, _ = w.WriteString("</p>\n")
	return ast.WalkSkipChildren, nil
}

func renderEscapedRawHTML(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	writeEscaped(w, source, n.(*ast.RawHTML).Segments)
	return ast.WalkSkipChildren, nil
}

// writeEscaped writes source segments as text, HTML-escaped.
func writeEscaped(w util.BufWriter, source []byte, segs *text.Segments) {
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(source))))
	}
}

func writeMath(w util.BufWriter, n ast.Node, src string, display bool) {
	out, err := ToMathML(src, display)
	if err != nil {
		// Unconvertible maths is shown as its source, never dropped.
		tag := "code"
		if display {
			tag = "pre"
		}
		_, _ = w.WriteString("<" + tag + ` class="math-error"`)
		gmhtml.RenderAttributes(w, n, nil)
		_, _ = w.WriteString(" title=\"" + html.EscapeString(err.Error()) + "\">" + html.EscapeString(src) + "</" + tag + ">")
		return
	}
	if display {
		_, _ = w.WriteString("<div class=\"math\"")
		gmhtml.RenderAttributes(w, n, nil)
		_, _ = w.WriteString(">" + out + "</div>\n")
		return
	}
	_, _ = w.WriteString(out)
}

func renderMathInline(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		m := n.(*mathInline)
		writeMath(w, n, string(m.source), m.display)
	}
	return ast.WalkSkipChildren, nil
}

func renderMathBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		writeMath(w, n, string(n.Lines().Value(source)), true)
	}
	return ast.WalkSkipChildren, nil
}

// renderCodeBlock is goldmark's code block output plus the data-line anchor
// its default renderer does not emit.
func renderCodeBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<pre")
	gmhtml.RenderAttributes(w, n, nil)
	_, _ = w.WriteString("><code")
	if fc, ok := n.(*ast.FencedCodeBlock); ok {
		if lang := fc.Language(source); lang != nil {
			_, _ = w.WriteString(` class="language-` + html.EscapeString(string(lang)) + `"`)
		}
	}
	_, _ = w.WriteString(">")
	writeEscaped(w, source, n.Lines())
	_, _ = w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}
