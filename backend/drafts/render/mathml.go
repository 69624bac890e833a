package render

import (
	"fmt"
	"html"
	"strings"
	"unicode"
)

// LaTeX maths to MathML, for the sandboxed preview: the preview frame runs no
// scripts, so KaTeX or MathJax cannot typeset there, but browsers render
// MathML natively. This covers the notation notes actually use (scripts,
// fractions, roots, Greek, operators, fences, text and font commands); any
// construct it does not know is an error, and the caller shows the source.

const mathNS = "http://www.w3.org/1998/Math/MathML"

// ToMathML converts one maths expression. display selects block layout.
func ToMathML(src string, display bool) (string, error) {
	p := &mathParser{toks: tokenize(src)}
	body, err := p.expr("")
	if err != nil {
		return "", err
	}
	if p.pos < len(p.toks) {
		return "", fmt.Errorf("unexpected %q", p.toks[p.pos])
	}
	disp := ""
	if display {
		disp = ` display="block"`
	}
	return fmt.Sprintf(`<math xmlns="%s"%s><mrow>%s</mrow></math>`, mathNS, disp, body), nil
}

func tokenize(s string) []string {
	var toks []string
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			continue
		case c == '\\':
			j := i + 1
			for j < len(r) && unicode.IsLetter(r[j]) {
				j++
			}
			if j == i+1 && j < len(r) { // \{ \} \, \; \! \\ and the like
				j++
			}
			cmd := string(r[i:j])
			toks = append(toks, cmd)
			i = j - 1
			if textCommands[cmd] {
				// Keep a text argument verbatim, spaces included.
				k := j
				for k < len(r) && unicode.IsSpace(r[k]) {
					k++
				}
				if k < len(r) && r[k] == '{' {
					depth, e := 0, k
					for ; e < len(r); e++ {
						if r[e] == '{' {
							depth++
						} else if r[e] == '}' {
							depth--
							if depth == 0 {
								break
							}
						}
					}
					if e < len(r) {
						toks = append(toks, rawMarker+string(r[k+1:e]))
						i = e
					}
				}
			}
		case unicode.IsDigit(c) || c == '.' && i+1 < len(r) && unicode.IsDigit(r[i+1]):
			j := i
			for j < len(r) && (unicode.IsDigit(r[j]) || r[j] == '.') {
				j++
			}
			toks = append(toks, string(r[i:j]))
			i = j - 1
		default:
			toks = append(toks, string(c))
		}
	}
	return toks
}

var greek = map[string]string{
	"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ", "eta": "η",
	"theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
	"rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
	"Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
	"infty": "∞", "partial": "∂", "nabla": "∇", "ell": "ℓ", "hbar": "ℏ",
}

var operators = map[string]string{
	"times": "×", "cdot": "⋅", "pm": "±", "mp": "∓", "div": "÷", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠",
	"approx": "≈", "equiv": "≡", "sim": "∼", "simeq": "≃", "propto": "∝", "to": "→", "rightarrow": "→", "leftarrow": "←",
	"Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔", "Leftrightarrow": "⇔", "mapsto": "↦", "in": "∈", "notin": "∉",
	"subset": "⊂", "subseteq": "⊆", "supset": "⊃", "cup": "∪", "cap": "∩", "setminus": "∖", "forall": "∀", "exists": "∃",
	"neg": "¬", "land": "∧", "lor": "∨", "wedge": "∧", "vee": "∨", "oplus": "⊕", "otimes": "⊗", "circ": "∘", "ast": "∗",
	"ldots": "…", "cdots": "⋯", "vdots": "⋮", "ddots": "⋱", "dots": "…", "mid": "∣", "parallel": "∥", "perp": "⊥",
	"sum": "∑", "prod": "∏", "int": "∫", "iint": "∬", "oint": "∮", "langle": "⟨", "rangle": "⟩",
	"{": "{", "}": "}", "|": "‖", "lbrace": "{", "rbrace": "}", "lvert": "|", "rvert": "|",
}

var functions = map[string]bool{
	"log": true, "ln": true, "exp": true, "sin": true, "cos": true, "tan": true, "max": true, "min": true, "lim": true,
	"sup": true, "inf": true, "det": true, "arg": true, "deg": true, "dim": true, "Pr": true, "argmax": true, "argmin": true,
}

var spaces = map[string]string{`\,`: "0.167em", `\:`: "0.222em", `\;`: "0.278em", `\quad`: "1em", `\qquad`: "2em", `\ `: "0.25em", `\!`: "-0.167em"}

var variants = map[string]string{"mathbf": "bold", "mathrm": "normal", "mathit": "italic", "mathbb": "double-struck", "mathcal": "script", "boldsymbol": "bold-italic", "mathsf": "sans-serif"}

type mathParser struct {
	toks []string
	pos  int
}

func (p *mathParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

// expr parses terms until the closing token (or the end when close is "").
func (p *mathParser) expr(close string) (string, error) {
	var b strings.Builder
	for p.pos < len(p.toks) {
		t := p.peek()
		if t == close && close != "" || t == `\right` || t == "}" && close != "}" {
			break
		}
		term, err := p.term()
		if err != nil {
			return "", err
		}
		b.WriteString(term)
	}
	return b.String(), nil
}

func (p *mathParser) term() (string, error) {
	base, err := p.atom()
	if err != nil {
		return "", err
	}
	var sub, sup string
	for p.peek() == "_" || p.peek() == "^" {
		op := p.toks[p.pos]
		p.pos++
		arg, err := p.atom()
		if err != nil {
			return "", err
		}
		if op == "_" {
			sub = arg
		} else {
			sup = arg
		}
	}
	switch {
	case sub != "" && sup != "":
		return "<msubsup>" + base + wrap(sub) + wrap(sup) + "</msubsup>", nil
	case sub != "":
		return "<msub>" + base + wrap(sub) + "</msub>", nil
	case sup != "":
		return "<msup>" + base + wrap(sup) + "</msup>", nil
	}
	return base, nil
}

func wrap(s string) string { return "<mrow>" + s + "</mrow>" }

// group parses a braced argument (or a single token).
func (p *mathParser) group() (string, error) {
	if p.peek() == "{" {
		p.pos++
		inner, err := p.expr("}")
		if err != nil {
			return "", err
		}
		if p.peek() != "}" {
			return "", fmt.Errorf("missing }")
		}
		p.pos++
		return wrap(inner), nil
	}
	return p.atom()
}

// rawMarker prefixes a token holding a text command's verbatim argument.
const rawMarker = "\x00"

var textCommands = map[string]bool{`\text`: true, `\textrm`: true, `\mbox`: true, `\operatorname`: true}

// rawGroup returns the verbatim argument captured by the tokenizer.
func (p *mathParser) rawGroup() (string, error) {
	t := p.peek()
	if !strings.HasPrefix(t, rawMarker) {
		return "", fmt.Errorf("expected {text}")
	}
	p.pos++
	return strings.TrimPrefix(t, rawMarker), nil
}

func (p *mathParser) atom() (string, error) {
	if p.pos >= len(p.toks) {
		return "", fmt.Errorf("unexpected end")
	}
	t := p.toks[p.pos]
	p.pos++
	esc := html.EscapeString
	switch {
	case t == "{":
		p.pos--
		return p.group()
	case t == "}" || t == "^" || t == "_":
		return "", fmt.Errorf("unexpected %q", t)
	case unicode.IsDigit([]rune(t)[0]) || t[0] == '.' && len(t) > 1:
		return "<mn>" + t + "</mn>", nil
	case unicode.IsLetter([]rune(t)[0]):
		return "<mi>" + esc(t) + "</mi>", nil
	case t[0] != '\\':
		if t == "'" {
			return "<mo>′</mo>", nil
		}
		return "<mo>" + esc(t) + "</mo>", nil
	}
	if w, ok := spaces[t]; ok {
		return fmt.Sprintf(`<mspace width="%s"/>`, w), nil
	}
	name := t[1:]
	switch name {
	case "frac", "dfrac", "tfrac":
		num, err := p.group()
		if err != nil {
			return "", err
		}
		den, err := p.group()
		if err != nil {
			return "", err
		}
		return "<mfrac>" + num + den + "</mfrac>", nil
	case "sqrt":
		if p.peek() == "[" {
			p.pos++
			idx, err := p.expr("]")
			if err != nil || p.peek() != "]" {
				return "", fmt.Errorf("bad \\sqrt index")
			}
			p.pos++
			arg, err := p.group()
			if err != nil {
				return "", err
			}
			return "<mroot>" + arg + wrap(idx) + "</mroot>", nil
		}
		arg, err := p.group()
		if err != nil {
			return "", err
		}
		return "<msqrt>" + arg + "</msqrt>", nil
	case "text", "textrm", "mbox", "operatorname":
		s, err := p.rawGroup()
		if err != nil {
			return "", err
		}
		if name == "operatorname" {
			return "<mi>" + esc(strings.ReplaceAll(s, " ", "")) + "</mi>", nil
		}
		return "<mtext>" + esc(s) + "</mtext>", nil
	case "left":
		open := p.delim()
		inner, err := p.expr("")
		if err != nil {
			return "", err
		}
		if p.peek() != `\right` {
			return "", fmt.Errorf(`\left without \right`)
		}
		p.pos++
		closeD := p.delim()
		return "<mrow>" + fence(open) + inner + fence(closeD) + "</mrow>", nil
	case "hat", "bar", "tilde", "vec", "dot", "overline":
		marks := map[string]string{"hat": "^", "bar": "¯", "tilde": "~", "vec": "→", "dot": "˙", "overline": "¯"}
		arg, err := p.group()
		if err != nil {
			return "", err
		}
		return `<mover accent="true">` + arg + "<mo>" + marks[name] + "</mo></mover>", nil
	}
	if v, ok := variants[name]; ok {
		arg, err := p.group()
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(`<mstyle mathvariant="%s">%s</mstyle>`, v, arg), nil
	}
	if g, ok := greek[name]; ok {
		return "<mi>" + g + "</mi>", nil
	}
	if o, ok := operators[name]; ok {
		return "<mo>" + esc(o) + "</mo>", nil
	}
	if functions[name] {
		return "<mi>" + name + "</mi>", nil
	}
	return "", fmt.Errorf("unsupported command %s", t)
}

func (p *mathParser) delim() string {
	if p.pos >= len(p.toks) {
		return ""
	}
	t := p.toks[p.pos]
	p.pos++
	if t == "." {
		return ""
	}
	if o, ok := operators[strings.TrimPrefix(t, `\`)]; ok && strings.HasPrefix(t, `\`) {
		return o
	}
	return t
}

func fence(d string) string {
	if d == "" {
		return ""
	}
	return `<mo fence="true">` + html.EscapeString(d) + "</mo>"
}
