package analysis

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

func matched(segs []Segment) []string {
	var out []string
	for _, s := range segs {
		if s.Match {
			out = append(out, s.Text)
		}
	}
	return out
}

// Matched words light up in every script, by the terms search uses.
func TestExcerptMarksMatchesInEveryScript(t *testing.T) {
	for _, c := range []struct{ text, query, want string }{
		{"在设置里打开快捷键页面，就可以修改每个命令的快捷键。", "怎样设置快捷键", "设置|快捷键|快捷键"},
		{"ホットキーを変更するには、設定画面を開いてください。", "ホットキーを変更する", "ホットキーを変更する"},
		{"파일을 열고 템플릿을 선택하세요.", "파일 템플릿", "파일|템플릿"},
		{"การตั้งค่าปุ่มลัดอยู่ในหน้าการตั้งค่า", "การตั้งค่า", "การตั้งค่า|การตั้งค่า"},
		{"Горячие клавиши можно изменить в настройках программы.", "горячая клавиша", "Горячие|клавиши"},
		{"Water the gardens weekly, the grant paid for the hoses.", "garden watering", "Water|gardens"},
		{"Ｆｕｌｌ－ｗｉｄｔｈ letters are normalised.", "full width", "Ｆｕｌｌ|ｗｉｄｔｈ"},
		{"An English paper with 中文批注 in the margin.", "批注", "批注"},
	} {
		segs := Excerpt(c.text, c.query, 200)
		if got := strings.Join(matched(segs), "|"); got != c.want {
			t.Errorf("%q for %q: marked %q, want %q", c.text, c.query, got, c.want)
		}
		if Plain(segs) != c.text {
			t.Errorf("a short text must come back whole: %q", Plain(segs))
		}
	}
}

// A long text is cut to the window where the matches are, at spaces in
// spaced scripts, with "…" at each cut end.
func TestExcerptCutsAroundTheMatches(t *testing.T) {
	text := strings.Repeat("Nothing relevant is said in this sentence at all. ", 12) + "The compost heap needs turning weekly. " + strings.Repeat("More filler follows here. ", 8)
	segs := Excerpt(text, "compost turning", 80)
	plain := Plain(segs)
	if !strings.HasPrefix(plain, "…") || !strings.HasSuffix(plain, "…") {
		t.Fatalf("cut ends must say so: %q", plain)
	}
	if n := uniseg.GraphemeClusterCount(plain); n > 82 {
		t.Fatalf("%d characters, want about 80: %q", n, plain)
	}
	if got := strings.Join(matched(segs), "|"); got != "compost|turning" {
		t.Fatalf("marked %q in %q", got, plain)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(plain, "…"), "…")
	if !strings.Contains(text, inner) || strings.HasPrefix(inner, " ") || !strings.Contains(" "+text, " "+inner) {
		t.Fatalf("the window must start at a word: %q", inner)
	}
}

// Whatever the width, a cut never falls inside a grapheme cluster: not in
// a UTF-8 sequence, not between a Thai consonant and its vowel marks, not
// inside an emoji sequence or a flag.
func TestExcerptNeverCutsACharacter(t *testing.T) {
	text := strings.Repeat("การตั้งค่าปุ่มลัด 👩‍👩‍👧 🇯🇵 快捷键 é ", 20)
	starts := map[int]bool{}
	state := -1
	for i, rest := 0, text; len(rest) > 0; {
		var c string
		c, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		starts[i] = true
		i += len(c)
	}
	starts[len(text)] = true
	for width := 1; width < 120; width += 7 {
		for _, q := range []string{"快捷键", "ปุ่มลัด", "nothing"} {
			inner := strings.TrimSuffix(strings.TrimPrefix(Plain(Excerpt(text, q, width)), "…"), "…")
			if !utf8.ValidString(inner) {
				t.Fatalf("width %d: invalid UTF-8", width)
			}
			at := strings.Index(text, inner)
			if at < 0 || !starts[at] || !starts[at+len(inner)] {
				t.Fatalf("width %d, query %q: %q is not cut at cluster boundaries", width, q, inner)
			}
		}
	}
}
