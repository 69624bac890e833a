package drafts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

var exts = []string{".md", ".tex", ".bib", ".txt", ".csv"}

func newWS(t *testing.T) *Workspace {
	t.Helper()
	w, err := New(filepath.Join(t.TempDir(), "drafts"), exts, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestResolveRefusesEscapes(t *testing.T) {
	w := newWS(t)
	d, err := w.Create("CV for Acme", "cv.md", "# CV\n", Public, "s1")
	if err != nil {
		t.Fatal(err)
	}
	bad := []struct{ id, name string }{
		{d.ID, "../x.md"}, {d.ID, "a/b.md"}, {d.ID, `a\b.md`}, {d.ID, ".hidden.md"}, {d.ID, "-shell-escape.tex"},
		{d.ID, "x.sh"}, {d.ID, "x"}, {d.ID, "draft.json"}, {d.ID, ""}, {d.ID, "x\x00.md"},
		{"../etc", "x.md"}, {"UPPER", "x.md"}, {"-lead", "x.md"}, {"", "x.md"}, {strings.Repeat("a", 65), "x.md"},
	}
	for _, c := range bad {
		if _, err := w.Resolve(c.id, c.name); !errs.Is(err, errs.Invalid) {
			t.Errorf("Resolve(%q, %q) = %v, want invalid", c.id, c.name, err)
		}
	}
	if p, err := w.Resolve(d.ID, "Notes.TEX"); err != nil || filepath.Dir(p) != filepath.Join(w.Root, d.ID) {
		t.Fatalf("plain name refused: %v", err)
	}
}

func TestSymlinksCannotLeaveTheSandbox(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("t", "main.md", "x\n", Public, "")
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	os.WriteFile(secret, []byte("private"), 0o600)

	// A symlinked file inside the draft pointing out.
	os.Symlink(secret, filepath.Join(w.Root, d.ID, "link.md"))
	if _, _, err := w.Read(d.ID, "link.md"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("read through symlink: %v", err)
	}
	if _, err := w.Save(d.ID, "link.md", "overwrite", ""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("write through symlink: %v", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "private" {
		t.Fatal("file outside the sandbox was modified")
	}
	// A whole draft folder that is a symlink to elsewhere.
	os.WriteFile(filepath.Join(outside, "draft.json"), []byte(`{"id":"evil"}`), 0o600)
	os.Symlink(outside, filepath.Join(w.Root, "evil"))
	if _, _, err := w.Read("evil", "secret.md"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("read via symlinked draft dir: %v", err)
	}
	if err := w.AddFile("evil", "new.md", "x"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("write via symlinked draft dir: %v", err)
	}
	// A symlink to another draft is also refused: each draft is its own zone.
	other, _ := w.Create("other", "o.md", "o\n", Private, "")
	os.Symlink(filepath.Join(w.Root, other.ID, "o.md"), filepath.Join(w.Root, d.ID, "peek.md"))
	if _, _, err := w.Read(d.ID, "peek.md"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("cross-draft symlink: %v", err)
	}
}

func TestCreateAddSaveAndConflicts(t *testing.T) {
	w := newWS(t)
	d, err := w.Create("Grant proposal", "main.tex", "\\section{Aims}\n", Private, "sess-1")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d.ID, "grant") || ValidateID(d.ID) != nil || d.Visibility != Private || d.SessionID != "sess-1" || d.Files[0] != "main.tex" {
		t.Fatalf("draft = %+v", d)
	}
	st, _ := os.Stat(filepath.Join(w.Root, d.ID, "main.tex"))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", st.Mode().Perm())
	}
	if err := w.AddFile(d.ID, "refs.bib", "@article{x}"); err != nil {
		t.Fatal(err)
	}
	if err := w.AddFile(d.ID, "refs.bib", "again"); !errs.Is(err, errs.Conflict) {
		t.Fatalf("add over existing: %v", err)
	}
	text, hash, err := w.Read(d.ID, "main.tex")
	if err != nil || text != "\\section{Aims}\n" {
		t.Fatal(err)
	}
	newHash, err := w.Save(d.ID, "main.tex", "v2", hash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Save(d.ID, "main.tex", "v3 from a stale tab", hash); !errs.Is(err, errs.Conflict) {
		t.Fatalf("stale save: %v", err)
	}
	if got, _, _ := w.Read(d.ID, "main.tex"); got != "v2" {
		t.Fatalf("refused save changed the file: %q", got)
	}
	if _, err := w.Save(d.ID, "main.tex", "v3", newHash); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Save(d.ID, "main.tex", strings.Repeat("x", 2<<20), ""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("size cap: %v", err)
	}
	list, _ := w.List()
	if len(list) != 1 || len(list[0].Files) != 2 {
		t.Fatalf("list = %+v", list)
	}
}

// lines builds a numbered document.
func lines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("line %d\n", i+1)
	}
	return out
}

func TestHunkKindsAndSpans(t *testing.T) {
	old := lines(30)
	next := append([]string{}, old...)
	next[4] = "line 5 changed\n"                                              // replace
	next = append(next[:15], next[16:]...)                                    // remove old line 16
	next = append(next[:25], append([]string{"inserted\n"}, next[25:]...)...) // add before old line 27
	hunks := BuildHunks(strings.Join(old, ""), strings.Join(next, ""))
	if len(hunks) != 3 {
		t.Fatalf("want 3 hunks, got %d: %+v", len(hunks), hunks)
	}
	kinds := []string{hunks[0].Kind, hunks[1].Kind, hunks[2].Kind}
	if strings.Join(kinds, ",") != "replace,remove,add" {
		t.Fatalf("kinds = %v", kinds)
	}
	r := hunks[0]
	if len(r.OldLines) != 7 || r.OldSpans[0] != [2]int{3, 4} || r.NewSpans[0] != [2]int{3, 4} {
		t.Fatalf("replace hunk context/spans: %+v", r)
	}
	if hunks[1].OldSpans[0] != [2]int{3, 4} || len(hunks[1].NewSpans) != 0 {
		t.Fatalf("remove spans: %+v", hunks[1])
	}
	if len(hunks[2].OldSpans) != 0 || len(hunks[2].NewSpans) != 1 {
		t.Fatalf("add spans: %+v", hunks[2])
	}
}

// Applying any subset of hunks yields exactly the text with those edits and
// no others.
func TestApplySubsetReproducesChosenText(t *testing.T) {
	old := lines(40)
	edit := func(which map[int]bool) string {
		out := append([]string{}, old...)
		if which[0] {
			out[2] = "alpha\n"
		}
		if which[1] {
			out[14] = "beta\n"
		}
		if which[2] {
			out[26] = "gamma\n"
		}
		if which[3] {
			out = append(out[:38], "delta\n", "delta2\n")
		}
		return strings.Join(out, "")
	}
	all := map[int]bool{0: true, 1: true, 2: true, 3: true}
	oldText, newText := strings.Join(old, ""), edit(all)
	hunks := BuildHunks(oldText, newText)
	if len(hunks) != 4 {
		t.Fatalf("want 4 hunks, got %d", len(hunks))
	}
	for mask := 0; mask < 16; mask++ {
		chosen := map[int]bool{}
		for i := 0; i < 4; i++ {
			if mask&(1<<i) != 0 {
				chosen[i] = true
			}
		}
		if got, want := ApplyHunks(oldText, hunks, chosen), edit(chosen); got != want {
			t.Fatalf("subset %04b:\n got %q\nwant %q", mask, got, want)
		}
	}
}

func TestHunksNoTrailingNewlineAndAdjacentChanges(t *testing.T) {
	old, next := "a\nb\nc", "a\nB\nc\nd"
	h := BuildHunks(old, next)
	if got := ApplyHunks(old, h, map[int]bool{0: true}); got != next {
		t.Fatalf("got %q", got)
	}
	if got := ApplyHunks(old, h, nil); got != old {
		t.Fatalf("none accepted must keep the file: %q", got)
	}
	if BuildHunks("same\n", "same\n") != nil {
		t.Fatal("identical text has no hunks")
	}
}

func TestProposeApplyIsOneShotAndRefusesStale(t *testing.T) {
	w := newWS(t)
	base := strings.Join(lines(20), "")
	d, _ := w.Create("t", "main.md", base, Public, "")
	next := strings.Replace(strings.Replace(base, "line 2\n", "LINE TWO\n", 1), "line 18\n", "LINE EIGHTEEN\n", 1)
	p, err := w.Propose(d.ID, "main.md", next, "caps", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := w.Read(d.ID, "main.md"); got != base {
		t.Fatal("Propose must not write")
	}
	if len(w.Pending(d.ID)) != 1 {
		t.Fatal("proposal not pending")
	}
	if _, err := w.Apply(p.Token, []int{1}); err != nil {
		t.Fatal(err)
	}
	got, _, _ := w.Read(d.ID, "main.md")
	if want := strings.Replace(base, "line 18\n", "LINE EIGHTEEN\n", 1); got != want {
		t.Fatalf("applied text wrong:\n%s", got)
	}
	if _, err := w.Apply(p.Token, []int{0}); !errs.Is(err, errs.Conflict) {
		t.Fatalf("token must be one-shot: %v", err)
	}
	vs, _ := w.Versions(d.ID, "main.md")
	if len(vs) != 1 {
		t.Fatalf("apply must snapshot first: %+v", vs)
	}
	// Stale: the human edits after the proposal is made.
	p2, _ := w.Propose(d.ID, "main.md", "totally new\n", "", "")
	w.Save(d.ID, "main.md", "human edit\n", "")
	if _, err := w.Apply(p2.Token, []int{0}); !errs.Is(err, errs.Conflict) {
		t.Fatalf("stale proposal: %v", err)
	}
	if got, _, _ := w.Read(d.ID, "main.md"); got != "human edit\n" {
		t.Fatal("a stale apply must not write")
	}
	p3, _ := w.Propose(d.ID, "main.md", "x\n", "", "")
	if _, err := w.Apply(p3.Token, []int{7}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("out-of-range hunk: %v", err)
	}
}

func TestVersionsRestoreIsUndoable(t *testing.T) {
	w := newWS(t)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	d, _ := w.Create("t", "a.md", "one\n", Public, "")
	p, _ := w.Propose(d.ID, "a.md", "two\n", "", "")
	w.Apply(p.Token, []int{0})
	vs, _ := w.Versions(d.ID, "a.md")
	if len(vs) != 1 {
		t.Fatalf("versions = %+v", vs)
	}
	if text, _ := w.ReadVersion(d.ID, vs[0].ID); text != "one\n" {
		t.Fatalf("version text %q", text)
	}
	if _, err := w.RestoreVersion(d.ID, vs[0].ID); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := w.Read(d.ID, "a.md"); got != "one\n" {
		t.Fatalf("restore: %q", got)
	}
	vs, _ = w.Versions(d.ID, "a.md")
	if len(vs) != 2 {
		t.Fatal("restore must snapshot the current text first")
	}
	if latest, _ := w.ReadVersion(d.ID, vs[0].ID); latest != "two\n" {
		t.Fatalf("newest snapshot should hold the pre-restore text, got %q", latest)
	}
	if _, err := w.ReadVersion(d.ID, "123--../../x.md"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("version id traversal: %v", err)
	}
}

func TestRetention(t *testing.T) {
	w := newWS(t)
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { return now }
	old, _ := w.Create("old", "a.md", "x", Public, "")
	kept, _ := w.Create("kept", "a.md", "x", Public, "")
	w.SetKeep(kept.ID, true)
	now = now.Add(31 * 24 * time.Hour)
	fresh, _ := w.Create("fresh", "a.md", "x", Public, "")
	if ids, _ := w.Prune(0); len(ids) != 0 {
		t.Fatal("0 days disables the sweep")
	}
	ids, err := w.Prune(30)
	if err != nil || len(ids) != 1 || ids[0] != old.ID {
		t.Fatalf("pruned %v, %v", ids, err)
	}
	if exists(filepath.Join(w.Root, old.ID)) || !exists(filepath.Join(w.Root, kept.ID)) || !exists(filepath.Join(w.Root, fresh.ID)) {
		t.Fatal("wrong drafts removed")
	}
}

func TestOwnSavesAreVersionsWithTimes(t *testing.T) {
	w := newWS(t)
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	d, _ := w.Create("t", "a.md", "first\n", Public, "")
	_, hash, _ := w.Read(d.ID, "a.md")
	hash, err := w.SaveVersioned(d.ID, "a.md", "second\n", hash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.SaveVersioned(d.ID, "a.md", "second\n", hash); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SaveVersioned(d.ID, "a.md", "stale\n", Hash([]byte("first\n"))); !errs.Is(err, errs.Conflict) {
		t.Fatalf("a stale save must be refused: %v", err)
	}
	vs, _ := w.Versions(d.ID, "a.md")
	if len(vs) != 1 {
		t.Fatalf("one real change makes one version, got %+v", vs)
	}
	if text, _ := w.ReadVersion(d.ID, vs[0].ID); text != "first\n" {
		t.Fatalf("the version holds the replaced text, got %q", text)
	}
	if !vs[0].At.Equal(time.Date(2026, 3, 1, 9, 2, 0, 0, time.UTC)) {
		t.Fatalf("version time %v", vs[0].At)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Two writers adding the same name at once: exactly one wins, and the file
// holds the winner's bytes whole.
func TestAddFileIsExclusiveUnderARace(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("t", "main.md", "x\n", Public, "")
	const writers = 8
	for round := range 30 {
		name := fmt.Sprintf("race-%d.md", round)
		start := make(chan struct{})
		errsCh := make(chan error, writers)
		for i := range writers {
			go func() {
				<-start
				errsCh <- w.AddFile(d.ID, name, strings.Repeat(fmt.Sprintf("writer %d\n", i), 2000))
			}()
		}
		close(start)
		won := 0
		for range writers {
			err := <-errsCh
			switch {
			case err == nil:
				won++
			case !errs.Is(err, errs.Conflict):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d writers succeeded in creating %s; exactly one may", round, won, name)
		}
		text, _, _ := w.Read(d.ID, name)
		if first, _, _ := strings.Cut(text, "\n"); text != strings.Repeat(first+"\n", 2000) {
			t.Fatalf("round %d: the file mixes writers", round)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(w.Root, d.ID))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

// Every accepted name must fit every name derived from it (the temporary
// file, the snapshot and the snapshot's temporary file); too long and
// control characters are refused as bad input, not an internal error.
func TestFileNamesAreBoundedAndPrintable(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("t", "main.md", "x\n", Public, "")
	longest := strings.Repeat("n", MaxNameBytes-3) + ".md"
	if err := w.AddFile(d.ID, longest, "one\n"); err != nil {
		t.Fatalf("a %d-byte name: %v", len(longest), err)
	}
	p, err := w.Propose(d.ID, longest, "two\n", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Apply(p.Token, []int{0}); err != nil {
		t.Fatalf("snapshot of a %d-byte name: %v", len(longest), err)
	}
	if v, err := w.Versions(d.ID, longest); err != nil || len(v) != 1 {
		t.Fatalf("versions: %v %v", v, err)
	}
	for _, name := range []string{
		strings.Repeat("a", 249) + ".md", // 252 bytes: under the old 255 check, over the temp file's room
		strings.Repeat("é", 100) + ".md", // 203 bytes in 103 characters
		"two\nlines.md", "tab\there.md", "bell\a.md", "esc\x1b[31m.md", "del\x7f.md",
		"rtl\u202egnp.md", "zero\u200bwidth.md", "bad\xffutf8.md",
	} {
		for what, err := range map[string]error{
			"add":    w.AddFile(d.ID, name, "x"),
			"create": func() error { _, err := w.Create("t", name, "x", Public, ""); return err }(),
		} {
			if !errs.Is(err, errs.Invalid) {
				t.Errorf("%s %q: %v, want invalid", what, name, err)
			}
		}
	}
}
