package embed

import (
	"slices"
	"strings"
	"testing"
)

// A pair capped below the model's limit keeps the part of a long passage
// that holds the query's words, cut at word starts, and never exceeds the
// cap; without a cap the pair is as before.
func TestCappedPairKeepsTheWindowAboutTheQuery(t *testing.T) {
	tok := fixtureTokenizer(t, "filler", "other", "tanaka", "meeting", "of")
	passage := strings.Repeat("filler other ", 60) + "meeting with tanaka of the lab tanaka " + strings.Repeat("other filler ", 60)
	ids := func(words ...string) []int64 {
		var out []int64
		for _, w := range words {
			in, err := tok.single(w)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, in.ids[1]) // between [CLS] and [SEP]
		}
		return out
	}
	want := ids("tanaka", "meeting")

	full, err := tok.pair("tanaka meeting", passage)
	if err != nil {
		t.Fatal(err)
	}
	capped, err := tok.pairWithin("tanaka meeting", passage, 32)
	if err != nil {
		t.Fatal(err)
	}
	if len(capped.ids) != 32 || capped.ids[0] != clsID || capped.ids[len(capped.ids)-1] != sepID {
		t.Fatalf("capped pair: %d tokens %v, want 32 framed by [CLS] ... [SEP]", len(capped.ids), capped.ids)
	}
	passageIDs := func(in tokens) []int64 {
		var out []int64
		for i, id := range in.ids {
			if in.types[i] == 1 && id != sepID {
				out = append(out, id)
			}
		}
		return out
	}
	kept := passageIDs(capped)
	tanakas := 0
	for _, id := range kept {
		if id == want[0] {
			tanakas++
		}
	}
	if tanakas != 2 || !slices.Contains(kept, want[1]) {
		t.Fatalf("the capped passage %v lost the query's words (tanaka %d, meeting %v)", kept, want[0], want[1])
	}
	// The beginning of the passage alone (the old cut) has none of them.
	if head := passageIDs(full)[:len(kept)]; slices.Contains(head, want[0]) {
		t.Fatalf("the test passage is not long enough: its head already holds the query")
	}
	// A cap above the model's limit is the model's limit.
	wide, err := tok.pairWithin("tanaka meeting", passage, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(wide.ids, full.ids) {
		t.Fatalf("a cap above the model's limit changed the pair")
	}
	// A passage that fits is untouched, whatever its words.
	short, err := tok.pairWithin("tanaka", "filler other filler", 32)
	if err != nil {
		t.Fatal(err)
	}
	if got := passageIDs(short); len(got) != 3 {
		t.Fatalf("a short passage became %v", got)
	}
}

// What follows the query's words stays in the window (the answer to a
// question usually does), and a word the passage repeats everywhere ("the")
// does not pull the window away from the rarer words of the query.
func TestCappedPairKeepsWhatFollowsTheMatchAndIgnoresCommonWords(t *testing.T) {
	tok := fixtureTokenizer(t, "filler", "other", "grant", "renewal", "deadline", "moved", "march", "the", "symptoms", "diabetes", "include", "thirst")
	filler := strings.Repeat("filler other ", 40)
	text := func(in tokens) string {
		inv := map[int]string{}
		for w, id := range tok.tk.GetVocab(false) {
			inv[id] = w
		}
		var out []string
		for i, id := range in.ids {
			if in.types[i] == 1 && id != sepID {
				out = append(out, inv[int(id)])
			}
		}
		return strings.Join(out, " ")
	}
	in, err := tok.pairWithin("grant renewal deadline", filler+"the grant renewal deadline moved to march "+filler, 32)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(in); !strings.Contains(got, "grant renewal deadline moved") || !strings.Contains(got, "march") {
		t.Fatalf("the window %q lost what follows the match", got)
	}
	common := strings.Repeat("the filler the other ", 30)
	in, err = tok.pairWithin("the symptoms of diabetes", common+"filler diabetes symptoms include thirst "+common, 32)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(in); !strings.Contains(got, "diabetes symptoms include thirst") {
		t.Fatalf("the window %q was pulled by the common word", got)
	}
}
