package app

import (
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// A proposal made by another process (jarvis-cli ask, with its own
// workspace over the same drafts dir) is listed by the window, opened by
// its token, applied hunk by hunk, and a stale one is refused.
func TestEditorListsProposalsMadeElsewhere(t *testing.T) {
	s, cfg := services(t)
	other, err := drafts.New(cfg.Drafts.Dir, cfg.Drafts.Extensions, cfg.Drafts.MaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := other.Create("Letter", "letter.md", "Dear all,\n\nBest\n", drafts.Public, "s1")
	p, err := other.Propose(d.ID, "letter.md", "Dear colleagues,\n\nBest\n", "warmer", "s1")
	if err != nil {
		t.Fatal(err)
	}
	stale, _ := other.Propose(d.ID, "letter.md", "Hi,\n\nBest\n", "casual", "s1")

	waiting := s.Editor.Waiting()
	if len(waiting) != 2 || waiting[0].DraftTitle != "Letter" || waiting[0].Token != p.Token {
		t.Fatalf("waiting = %+v", waiting)
	}
	got, err := s.Editor.Proposal(p.Token)
	if err != nil || len(got.Hunks) != 1 || got.File != "letter.md" {
		t.Fatalf("open for review: %+v %v", got, err)
	}
	if _, err := s.Editor.Apply(p.Token, []int{0}); err != nil {
		t.Fatal(err)
	}
	f, _ := s.Editor.Open(d.ID, "letter.md")
	if f.Text != "Dear colleagues,\n\nBest\n" {
		t.Fatalf("applied: %q", f.Text)
	}
	// The second proposal was made against the old text.
	if w := s.Editor.Waiting(); len(w) != 1 || !w[0].Stale {
		t.Fatalf("a proposal whose file changed must be flagged stale: %+v", w)
	}
	_, err = s.Editor.Apply(stale.Token, []int{0})
	if !errs.Is(err, errs.Conflict) || !strings.Contains(ViewError(err).Hint, "fresh proposal") {
		t.Fatalf("stale accept: %v", err)
	}
	if f, _ := s.Editor.Open(d.ID, "letter.md"); f.Text != "Dear colleagues,\n\nBest\n" {
		t.Fatal("a stale proposal was applied")
	}
	if len(s.Editor.Waiting()) != 0 {
		t.Fatal("answered proposals must leave the list")
	}
}
