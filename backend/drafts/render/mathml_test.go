package render

import (
	"strings"
	"testing"
)

func TestToMathML(t *testing.T) {
	cases := []struct{ in, want string }{
		{`x^2`, `<msup><mi>x</mi><mrow><mn>2</mn></mrow></msup>`},
		{`a_{ij}^{2}`, `<msubsup><mi>a</mi><mrow><mrow><mi>i</mi><mi>j</mi></mrow></mrow><mrow><mrow><mn>2</mn></mrow></mrow></msubsup>`},
		{`\frac{1}{2}`, `<mfrac><mrow><mn>1</mn></mrow><mrow><mn>2</mn></mrow></mfrac>`},
		{`\sqrt[3]{x}`, `<mroot><mrow><mi>x</mi></mrow><mrow><mn>3</mn></mrow></mroot>`},
		{`\alpha \leq \beta`, `<mi>α</mi><mo>≤</mo><mi>β</mi>`},
		{`\text{if } x`, `<mtext>if </mtext><mi>x</mi>`},
		{`\left( x \right)`, `<mrow><mo fence="true">(</mo><mi>x</mi><mo fence="true">)</mo></mrow>`},
		{`\mathbf{v}`, `<mstyle mathvariant="bold"><mrow><mi>v</mi></mrow></mstyle>`},
		{`a < b`, `<mi>a</mi><mo>&lt;</mo><mi>b</mi>`},
		{`3.14`, `<mn>3.14</mn>`},
	}
	for _, c := range cases {
		got, err := ToMathML(c.in, false)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !strings.Contains(got, "<mrow>"+c.want+"</mrow></math>") {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	if got, _ := ToMathML(`x`, true); !strings.Contains(got, `display="block"`) {
		t.Fatal("display maths must be block")
	}
}

func TestToMathMLRejectsUnknown(t *testing.T) {
	for _, in := range []string{`\unknowncmd{x}`, `\frac{1}`, `{x`, `x^`, `\left( x`, `}`} {
		if _, err := ToMathML(in, false); err == nil {
			t.Errorf("%q should fail", in)
		}
	}
}
