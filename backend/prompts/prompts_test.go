package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestShippedDefaults(t *testing.T) {
	sys, err := Default(System)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sys, "BEGIN RETRIEVED DATA") || !strings.Contains(sys, "END RETRIEVED DATA") {
		t.Fatal("system prompt must carry the retrieved-data rule")
	}
	score, _ := Default(DigestScoring)
	if !strings.Contains(score, "## Research context") || !strings.Contains(score, "JSON") {
		t.Fatal("scoring prompt needs a research-context section and a JSON output contract")
	}
	if s, _ := Default(PaperSummary); len(s) < 200 {
		t.Fatal("paper summary prompt too short")
	}
}

func TestLoadSeedsCopyAndReadsFreshEachCall(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "prompts")}
	text, err := s.Load(System)
	if err != nil {
		t.Fatal(err)
	}
	def, _ := Default(System)
	if text != def {
		t.Fatal("first load must return the default")
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "system_prompt.md")); err != nil {
		t.Fatalf("user copy not seeded: %v", err)
	}
	// An edit made outside Jarvis is visible on the very next call: no cache.
	if err := os.WriteFile(filepath.Join(s.Dir, "system_prompt.md"), []byte("edited by hand"), 0o600); err != nil {
		t.Fatal(err)
	}
	if text, _ := s.Load(System); text != "edited by hand" {
		t.Fatalf("stale read: %q", text)
	}
}

func TestSaveResetAndList(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if err := s.Save(PaperSummary, "my summary prompt"); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[1].Name != PaperSummary || !list[1].Modified || list[0].Modified {
		t.Fatalf("list = %+v", list)
	}
	def, err := s.Reset(PaperSummary)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Load(PaperSummary); got != def {
		t.Fatal("reset must restore the default")
	}
}

func TestBadInputLeavesCopyUntouched(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if err := s.Save(System, "keep me"); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(System, "   \n"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("empty save: %v", err)
	}
	if err := s.Save(System, strings.Repeat("x", maxBytes+1)); !errs.Is(err, errs.Invalid) {
		t.Fatalf("oversized save: %v", err)
	}
	if got, _ := s.Load(System); got != "keep me" {
		t.Fatalf("copy changed: %q", got)
	}
	if _, err := s.Load("../../etc/passwd"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("unknown name must be refused: %v", err)
	}
}

// Seeding writes every missing prompt and leaves an edited one alone; each
// prompt lists with the title and description Settings shows.
func TestSeedWritesMissingPromptsAndKeepsEdits(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "prompts")}
	if err := s.Save(PaperSummary, "my own summary prompt"); err != nil {
		t.Fatal(err)
	}
	if err := s.Seed(); err != nil {
		t.Fatal(err)
	}
	for _, n := range Names {
		b, err := os.ReadFile(filepath.Join(s.Dir, n+".md"))
		if err != nil {
			t.Fatalf("%s not seeded: %v", n, err)
		}
		def, _ := Default(n)
		if n == PaperSummary && string(b) != "my own summary prompt" {
			t.Fatalf("seeding overwrote an edit: %q", b)
		}
		if n != PaperSummary && string(b) != def {
			t.Fatalf("%s seeded with %q", n, b)
		}
		if st, _ := os.Stat(filepath.Join(s.Dir, n+".md")); st.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v", n, st.Mode().Perm())
		}
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range list {
		if p.Title == "" || p.Description == "" || seen[p.Title] {
			t.Fatalf("prompt %s needs its own title and a description: %+v", p.Name, p)
		}
		seen[p.Title] = true
	}
}
