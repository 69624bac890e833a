package drafts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A draft edited in another editor yesterday must survive a sweep that
// counts 30 days: retention reads the files' own times, not only what
// Jarvis wrote into draft.json. The edits are made by real child processes,
// as a text editor or a file manager would make them.
func TestRetentionCountsEditsMadeByAnotherProgram(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("this test needs a POSIX shell: %v", err)
	}
	w := newWS(t)
	created := time.Now().Add(-90 * 24 * time.Hour)
	w.Now = func() time.Time { return created }
	editedMain, _ := w.Create("edited in place", "paper.md", "draft\n", Public, "")
	addedFile, _ := w.Create("file added beside", "notes.md", "x\n", Public, "")
	inSubfolder, _ := w.Create("figure in a subfolder", "fig.md", "x\n", Public, "")
	untouched, _ := w.Create("untouched", "old.md", "x\n", Public, "")
	w.Now = nil // the sweep runs now, on the real clock

	run := func(script string, dir string) {
		t.Helper()
		cmd := exec.Command(sh, "-c", script)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	dirOf := func(d *Draft) string { return filepath.Join(w.Root, d.ID) }
	run("printf 'edited elsewhere\\n' >> paper.md", dirOf(editedMain))
	run("printf 'new\\n' > refs.bib", dirOf(addedFile))
	run("mkdir -p figures && printf 'png' > figures/plot.png", dirOf(inSubfolder))

	stale, err := w.Stale(30)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || stale[0].ID != untouched.ID {
		t.Fatalf("only the untouched draft is stale, got %+v", stale)
	}
	removed, err := w.Prune(30)
	if err != nil || len(removed) != 1 || removed[0] != untouched.ID {
		t.Fatalf("pruned %v, %v", removed, err)
	}
	for _, d := range []*Draft{editedMain, addedFile, inSubfolder} {
		got, err := w.Get(d.ID)
		if err != nil {
			t.Fatalf("%s was swept: %v", d.Title, err)
		}
		if left, ok := DaysLeft(*got, 30, time.Now()); !ok || left < 29 {
			t.Fatalf("%s: %d days left, want a full window from the outside edit", d.Title, left)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dirOf(editedMain), "paper.md")); string(b) != "draft\nedited elsewhere\n" {
		t.Fatalf("the outside edit is intact: %q", b)
	}
}

// Jarvis's own bookkeeping — keep flags, the docked chat, snapshots and
// waiting proposals — is not an edit: it must not keep an abandoned draft
// alive.
func TestBookkeepingDoesNotRejuvenateADraft(t *testing.T) {
	w := newWS(t)
	clock := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { return clock }
	d, _ := w.Create("abandoned", "a.md", "one\n", Public, "")
	clock = clock.Add(40 * 24 * time.Hour)
	if err := w.SetChatSession(d.ID, "20260101-000000-abcd"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Propose(d.ID, "a.md", "two\n", "edit", "s1"); err != nil {
		t.Fatal(err)
	}
	// Proposals and draft.json were written on the real clock (today), far
	// after the draft's last edit on the injected one.
	stale, err := w.Stale(30)
	if err != nil || len(stale) != 1 || stale[0].ID != d.ID {
		t.Fatalf("the abandoned draft is stale: %+v %v", stale, err)
	}
	if err := w.SetKeep(d.ID, true); err != nil {
		t.Fatal(err)
	}
	if stale, _ := w.Stale(30); len(stale) != 0 {
		t.Fatalf("a kept draft is never stale: %+v", stale)
	}
}
