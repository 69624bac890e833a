package render

import (
	"strings"
	"testing"
)

func TestMarkdownEscapesRawHTML(t *testing.T) {
	out, err := MarkdownToHTML("# Title\n\n<script>alert(1)</script>\n\nText with <img src=x onerror=alert(1)> inline.\n\n[x](javascript:alert(1))\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img", `href="javascript:`} {
		if strings.Contains(out, bad) {
			t.Fatalf("raw HTML passed through (%s):\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(out, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Fatalf("raw HTML must be shown escaped:\n%s", out)
	}
}

func TestMarkdownLineAnchors(t *testing.T) {
	src := "# One\n\npara on 3\n\n- item on 5\n- item 6\n\n```go\ncode on 8\n```\n\n> quote on 12\n"
	out, _ := MarkdownToHTML(src)
	for _, want := range []string{`<h1 data-line="1"`, `<p data-line="3"`, `<ul data-line="5"`, `<pre data-line="8"`, `<blockquote data-line="12"`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in:\n%s", want, out)
		}
	}
}

func TestMarkdownMaths(t *testing.T) {
	out, _ := MarkdownToHTML("Energy $E = mc^2$ costs $5 and $10.\n\n$$\n\\frac{a}{b}\n$$\n\n$$\\unknown{x}$$\n")
	if !strings.Contains(out, `<math xmlns="http://www.w3.org/1998/Math/MathML"><mrow><mi>E</mi>`) {
		t.Fatalf("inline maths not converted:\n%s", out)
	}
	if !strings.Contains(out, "$5 and $10") {
		t.Fatalf("money must not become maths:\n%s", out)
	}
	if !strings.Contains(out, `display="block"><mrow><mfrac>`) || !strings.Contains(out, `<div class="math" data-line="3"`) {
		t.Fatalf("display maths:\n%s", out)
	}
	if !strings.Contains(out, `class="math-error"`) || !strings.Contains(out, `\unknown{x}`) {
		t.Fatalf("unconvertible maths must show its source:\n%s", out)
	}
}
