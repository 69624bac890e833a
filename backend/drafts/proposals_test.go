package drafts

import (
	"os"
	"path/filepath"
	"strings"
	gosync "sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// A proposal is kept in the drafts tree: another workspace over the same
// root (the window after `jarvis-cli ask` made the proposal and exited)
// lists it, applies it once, and nothing of it shows as a draft file.
func TestProposalsPersistAcrossWorkspaces(t *testing.T) {
	maker := newWS(t)
	d, _ := maker.Create("Letter", "letter.md", "Dear all,\nthanks\n", Public, "s1")
	p, err := maker.Propose(d.ID, "letter.md", "Dear colleagues,\nthanks\n", "warmer", "s1")
	if err != nil {
		t.Fatal(err)
	}
	window, err := New(maker.Root, exts, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	waiting := window.Pending("")
	if len(waiting) != 1 || waiting[0].Token != p.Token || waiting[0].Summary != "warmer" || waiting[0].Stale || waiting[0].CreatedAt.IsZero() {
		t.Fatalf("a new workspace must list the stored proposal: %+v", waiting)
	}
	if got, err := window.Find(p.Token); err != nil || len(got.Hunks) != len(p.Hunks) {
		t.Fatalf("find: %+v %v", got, err)
	}
	if g, _ := window.Get(d.ID); len(g.Files) != 1 {
		t.Fatalf("proposals are not draft files: %v", g.Files)
	}
	st, err := os.Stat(filepath.Join(maker.Root, d.ID, proposalsDir))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("proposals dir: %v %v", st, err)
	}
	if _, err := window.Apply(p.Token, []int{0}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := maker.Read(d.ID, "letter.md"); got != "Dear colleagues,\nthanks\n" {
		t.Fatalf("applied: %q", got)
	}
	if len(maker.Pending("")) != 0 {
		t.Fatal("an answered proposal must be gone for every process")
	}
	if _, err := maker.Apply(p.Token, []int{0}); !errs.Is(err, errs.Conflict) {
		t.Fatalf("the token is one-shot across workspaces: %v", err)
	}
}

// A proposal whose file changed since is listed as stale and refused on
// accept with the reason; the file keeps the human's text.
func TestStaleProposalIsFlaggedAndRefused(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("t", "a.md", "one\ntwo\n", Public, "")
	p, _ := w.Propose(d.ID, "a.md", "one\nTWO\n", "", "")
	if _, err := w.Save(d.ID, "a.md", "one\ntwo\nthree by hand\n", ""); err != nil {
		t.Fatal(err)
	}
	if got := w.Pending(d.ID); len(got) != 1 || !got[0].Stale {
		t.Fatalf("stale flag: %+v", got)
	}
	_, err := w.Apply(p.Token, []int{0})
	if !errs.Is(err, errs.Conflict) || !strings.Contains(err.Error(), "changed after this proposal was made") || errs.HintOf(err) == "" {
		t.Fatalf("stale apply: %v", err)
	}
	if got, _, _ := w.Read(d.ID, "a.md"); got != "one\ntwo\nthree by hand\n" {
		t.Fatalf("a stale proposal was applied: %q", got)
	}
	if len(w.Pending(d.ID)) != 0 {
		t.Fatal("a proposal that can never apply is dropped")
	}
}

// Two processes answering one proposal: exactly one writes.
func TestConcurrentApplyWritesOnce(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("t", "a.md", "one\n", Public, "")
	p, _ := w.Propose(d.ID, "a.md", "two\n", "", "")
	var wg gosync.WaitGroup
	var mu gosync.Mutex
	ok := 0
	for range 8 {
		other, _ := New(w.Root, exts, 1<<20)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := other.Apply(p.Token, []int{0}); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			} else if !errs.Is(err, errs.Conflict) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if vs, _ := w.Versions(d.ID, "a.md"); ok != 1 || len(vs) != 1 {
		t.Fatalf("%d applies succeeded, %d snapshots", ok, len(vs))
	}
}

// A bad hunk index leaves the proposal waiting; discarding touches no file.
func TestBadIndexKeepsProposalAndDiscardTouchesNothing(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("t", "a.md", "one\n", Public, "")
	p, _ := w.Propose(d.ID, "a.md", "two\n", "", "")
	if _, err := w.Apply(p.Token, []int{5}); !errs.Is(err, errs.Invalid) {
		t.Fatal(err)
	}
	if len(w.Pending(d.ID)) != 1 {
		t.Fatal("a refused index must not consume the proposal")
	}
	if err := w.Discard(p.Token); err != nil {
		t.Fatal(err)
	}
	if err := w.Discard(p.Token); !errs.Is(err, errs.NotFound) {
		t.Fatalf("second discard: %v", err)
	}
	if got, _, _ := w.Read(d.ID, "a.md"); got != "one\n" || len(w.Pending("")) != 0 {
		t.Fatal("discard must only drop the proposal")
	}
	if _, err := w.Find("../../etc/passwd"); !errs.Is(err, errs.NotFound) {
		t.Fatal("a token is never a path")
	}
}
