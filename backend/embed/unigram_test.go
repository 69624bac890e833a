package embed

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// multilingual-e5-small tokenises as XLM-RoBERTa does: a SentencePiece
// Unigram model in tokenizer.json (Precompiled normaliser, Metaspace,
// <s> … </s>). testdata/unigram holds such a tokenizer trained with
// SentencePiece (gen.py) and SentencePiece's own encoding of sentences in
// eight scripts; the pure-Go path must produce exactly those ids.
func TestUnigramTokenizerMatchesSentencePiece(t *testing.T) {
	tok, err := loadTokenizer("test", "testdata/unigram")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/unigram/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text   string
		IDs    []int64
		Pieces []string
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		got, err := tok.single(c.Text)
		if err != nil {
			t.Fatalf("%q: %v", c.Text, err)
		}
		if !slices.Equal(got.ids, c.IDs) {
			t.Errorf("%q:\n got %v\nwant %v (%s)", c.Text, got.ids, c.IDs, strings.Join(c.Pieces, " "))
		}
		for i, ty := range got.types {
			if ty != 0 {
				t.Errorf("%q: segment id %d at %d; XLM-R has one segment", c.Text, ty, i)
			}
		}
	}
}

// XLM-R's positions start after the padding index: of 514 position
// embeddings, 512 tokens are usable, and a long text is cut there with
// </s> kept last.
func TestUnigramTokenizerTruncatesAtXLMRPositions(t *testing.T) {
	tok, err := loadTokenizer("test", "testdata/unigram")
	if err != nil {
		t.Fatal(err)
	}
	long, err := tok.single(strings.Repeat("模板可以帮助你 ", 400))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(long.ids); n != 512 || long.ids[0] != 0 || long.ids[n-1] != 2 {
		t.Fatalf("%d tokens, first %d, last %d; want 512, <s>=0 … </s>=2", n, long.ids[0], long.ids[n-1])
	}
	if tok.padID != 1 {
		t.Fatalf("batches pad with %d; XLM-R's <pad> is 1 (config.json pad_token_id)", tok.padID)
	}
}

// Any text tokenises without a panic: the library's SentencePiece
// normaliser crashed on mappings that shorten the text ("\r\n", a
// decomposed "é"). Random strings over the scripts and marks notes hold.
func TestUnigramTokenizerTakesAnyText(t *testing.T) {
	tok, err := loadTokenizer("test", "testdata/unigram")
	if err != nil {
		t.Fatal(err)
	}
	pool := []rune("aeé\u0301\u0308\u200b\u200d\u00a0\u3000\r\n\t\x01 ｶﾞﾊﾟ①ﬁ快捷键ホットキー파일을การตั้งค่าГорячие🙂👩‍👧🇯🇵")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		n := 1 + rng.IntN(40)
		var b strings.Builder
		for range n {
			b.WriteRune(pool[rng.IntN(len(pool))])
		}
		text := b.String()
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("case %d %q: panic %v", i, text, r)
				}
			}()
			got, err := tok.single(text)
			if err != nil || len(got.ids) < 2 || got.ids[0] != 0 || got.ids[len(got.ids)-1] != 2 {
				t.Fatalf("case %d %q: %v %v", i, text, got.ids, err)
			}
		}()
	}
}
