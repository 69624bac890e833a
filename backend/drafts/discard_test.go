package drafts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestDiscardAllCanBeUndoneUntilPurged(t *testing.T) {
	w := newWS(t)
	a, _ := w.Create("A", "a.md", "one\n", Public, "")
	b, _ := w.Create("B", "b.md", "one\n", Public, "")
	p1, _ := w.Propose(a.ID, "a.md", "two\n", "first", "s1")
	p2, _ := w.Propose(b.ID, "b.md", "two\n", "second", "s1")
	p3, _ := w.Propose(b.ID, "b.md", "three\n", "third", "s1")

	// p3 is answered elsewhere before the click lands: it is not counted.
	if err := w.Discard(p3.Token); err != nil {
		t.Fatal(err)
	}
	got, err := w.DiscardAll([]string{p1.Token, p2.Token, p3.Token, "not-a-token"})
	if err != nil || got.Count != 2 {
		t.Fatalf("discarded %+v, %v", got, err)
	}
	if p := w.Pending(""); len(p) != 0 {
		t.Fatalf("nothing waits after Discard all: %+v", p)
	}
	if _, err := w.Apply(p1.Token, []int{0}); err == nil {
		t.Fatal("a discarded proposal cannot be applied")
	}
	for _, d := range []*Draft{a, b} {
		if text, _, _ := w.Read(d.ID, d.MainFile); text != "one\n" {
			t.Fatalf("discarding changed a file: %q", text)
		}
	}

	n, err := w.UndoDiscard(got.Batch)
	if err != nil || n != 2 {
		t.Fatalf("undo restored %d, %v", n, err)
	}
	if p := w.Pending(""); len(p) != 2 || p[0].Token != p1.Token || p[1].Token != p2.Token {
		t.Fatalf("both proposals wait again, in order: %+v", p)
	}
	if _, err := w.Apply(p2.Token, []int{0}); err != nil {
		t.Fatalf("a restored proposal applies: %v", err)
	}
	if _, err := w.UndoDiscard(got.Batch); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a batch undoes once: %v", err)
	}

	// A new window purges what an earlier one set aside: no undo after that.
	again, _ := w.DiscardAll([]string{p1.Token})
	if err := w.PurgeDiscarded(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(w.Root, a.ID, discardedDir)); !os.IsNotExist(err) {
		t.Fatalf("the set-aside folder outlived the purge: %v", err)
	}
	if _, err := w.UndoDiscard(again.Batch); !errs.Is(err, errs.NotFound) {
		t.Fatalf("undo after a purge: %v", err)
	}
	for _, bad := range []string{"", "../x", "ABC"} {
		if _, err := w.UndoDiscard(bad); !errs.Is(err, errs.Invalid) {
			t.Fatalf("batch %q: %v", bad, err)
		}
	}
}
