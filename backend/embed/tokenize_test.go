package embed

import (
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
)

// embedtest's vocabulary ids: [CLS] 2, [SEP] 3.
const clsID, sepID = 2, 3

func fixtureTokenizer(t *testing.T, words ...string) *textTokenizer {
	t.Helper()
	dir := t.TempDir()
	if err := embedtest.WriteEmbedder(dir, words); err != nil {
		t.Fatal(err)
	}
	// What all-MiniLM-L6-v2's tokenizer.json carries; both must be ignored.
	if err := embedtest.SetExportLimits(dir, 8, 16); err != nil {
		t.Fatal(err)
	}
	tok, err := loadTokenizer("test", dir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTokenizerTruncatesAtPositionsAndNeverPads(t *testing.T) {
	tok := fixtureTokenizer(t, "alpha", "beta")
	short, err := tok.single("alpha beta alpha")
	if err != nil {
		t.Fatal(err)
	}
	if got := short.ids; len(got) != 5 || got[0] != clsID || got[4] != sepID {
		t.Fatalf("short text: %v, want [CLS] 3 words [SEP], unpadded", got)
	}
	long, err := tok.single(strings.Repeat("alpha ", 2000))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(long.ids); n != embedtest.MaxPositions || long.ids[n-1] != sepID {
		t.Fatalf("long text: %d tokens ending %d, want %d ending [SEP]", n, long.ids[n-1], embedtest.MaxPositions)
	}
}

func TestPairTruncationTrimsTheLongerSegment(t *testing.T) {
	tok := fixtureTokenizer(t, "query", "passage")
	segments := func(in tokens) (q, p int) {
		for i, id := range in.ids {
			if id == clsID || id == sepID {
				continue
			}
			if in.types[i] == 0 {
				q++
			} else {
				p++
			}
		}
		return q, p
	}
	// A short query keeps every token; the passage gives way.
	in, err := tok.pair("query query query", strings.Repeat("passage ", 1000))
	if err != nil {
		t.Fatal(err)
	}
	if q, p := segments(in); len(in.ids) != embedtest.MaxPositions || q != 3 || p != embedtest.MaxPositions-6 {
		t.Fatalf("%d tokens: query %d, passage %d", len(in.ids), q, p)
	}
	if in.ids[0] != clsID || in.ids[4] != sepID || in.types[4] != 0 || in.types[5] != 1 || in.ids[len(in.ids)-1] != sepID {
		t.Fatalf("pair layout: ids %v... types %v...", in.ids[:6], in.types[:6])
	}
	// A long query and a short passage: the query is cut, the passage kept
	// (the tokenizer library would cut the passage to nothing here).
	in, err = tok.pair(strings.Repeat("query ", 1000), "passage passage")
	if err != nil {
		t.Fatal(err)
	}
	if q, p := segments(in); len(in.ids) != embedtest.MaxPositions || p != 2 || q != embedtest.MaxPositions-5 {
		t.Fatalf("%d tokens: query %d, passage %d", len(in.ids), q, p)
	}
	// Both long: they end up even.
	in, err = tok.pair(strings.Repeat("query ", 700), strings.Repeat("passage ", 900))
	if err != nil {
		t.Fatal(err)
	}
	if q, p := segments(in); q+p != embedtest.MaxPositions-3 || q-p > 1 || p-q > 1 {
		t.Fatalf("query %d, passage %d", q, p)
	}
}
