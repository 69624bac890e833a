package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	return &Store{Path: filepath.Join(t.TempDir(), "state", "memory.json"),
		Redact: func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[redacted]") }}
}

func TestFactsAreKeptEditedAndForgotten(t *testing.T) {
	s := newStore(t)
	a, err := s.Add("  I work on   single-cell\nRNA-seq ", false)
	if err != nil || a.Text != "I work on single-cell RNA-seq" || a.ID == "" {
		t.Fatalf("%+v %v", a, err)
	}
	b, _ := s.Add("My key is sk-secret", false)
	if b.Text != "My key is [redacted]" {
		t.Fatalf("a secret was written to the memory file: %q", b.Text)
	}
	if again, _ := s.Add("i work on single-cell rna-seq", true); again.ID != a.ID || !again.Private {
		t.Fatalf("remembering a fact twice keeps one, with the stricter privacy: %+v", again)
	}
	if _, err := s.Update(b.ID, "Answer in British English", false); err != nil {
		t.Fatal(err)
	}
	facts, _ := s.List()
	if len(facts) != 2 || facts[1].Text != "Answer in British English" {
		t.Fatalf("%+v", facts)
	}
	if st, err := os.Stat(s.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("memory file mode: %v", err)
	}
	if err := s.Delete(a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(a.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("deleting twice: %v", err)
	}
	if _, err := s.Add("   ", false); !errs.Is(err, errs.Invalid) {
		t.Fatalf("empty fact: %v", err)
	}
	if _, err := s.Add(strings.Repeat("x", MaxFactChars+1), false); !errs.Is(err, errs.Invalid) {
		t.Fatalf("an overlong fact: %v", err)
	}
	// A second store over the same file (another process) sees the list.
	other := &Store{Path: s.Path}
	if facts, _ := other.List(); len(facts) != 1 || facts[0].Text != "Answer in British English" {
		t.Fatalf("%+v", facts)
	}
}

func TestPrivateFactsOnlyReachPrivateSessions(t *testing.T) {
	facts := []Fact{{Text: "Answer in British English"}, {Text: "I am treated for cnryillness", Private: true}}
	public := ForSession(facts, false)
	if !strings.Contains(public, "British English") || strings.Contains(public, "cnryillness") {
		t.Fatalf("public session block: %q", public)
	}
	if private := ForSession(facts, true); !strings.Contains(private, "cnryillness") {
		t.Fatalf("a private session gets every fact: %q", private)
	}
	if ForSession(nil, true) != "" || ForSession(facts[1:], false) != "" {
		t.Fatal("nothing to say is no block at all")
	}
}

func TestTheListIsBounded(t *testing.T) {
	s := newStore(t)
	for i := range MaxFacts {
		if _, err := s.Add(strings.Repeat("f", i+1), false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Add("one too many", false); !errs.Is(err, errs.Invalid) {
		t.Fatalf("fact %d: %v", MaxFacts+1, err)
	}
}
