package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

func store(t *testing.T) (*Sessions, *time.Time) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	st := &Sessions{Dir: filepath.Join(t.TempDir(), "sessions"), Keep: 3, Now: func() time.Time { now = now.Add(time.Minute); return now }}
	return st, &now
}

func withTurn(s *Session, text string) *Session {
	s.TurnStarts = append(s.TurnStarts, len(s.Messages))
	s.Messages = append(s.Messages, llm.Text(llm.RoleUser, text), llm.Text(llm.RoleAssistant, "ok"))
	s.Display = append(s.Display, DisplayItem{Role: "user", Text: text})
	return s
}

func TestSaveLoadModesAndEmptySessions(t *testing.T) {
	st, _ := store(t)
	s := st.New(llm.Spec{Provider: "ollama", Model: "qwen3:8b"}, true)
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.Dir); err == nil {
		if entries, _ := os.ReadDir(st.Dir); len(entries) != 0 {
			t.Fatal("empty sessions must not be written")
		}
	}
	withTurn(s, "hello")
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	dst, _ := os.Stat(st.Dir)
	fst, _ := os.Stat(filepath.Join(st.Dir, s.ID+".json"))
	if dst.Mode().Perm() != 0o700 || fst.Mode().Perm() != 0o600 {
		t.Fatalf("modes dir=%v file=%v", dst.Mode().Perm(), fst.Mode().Perm())
	}
	got, err := st.Load(s.ID)
	if err != nil || got.ModelSpec() != "ollama:qwen3:8b" || !got.KBOnly || len(got.Messages) != 2 || got.TurnStarts[0] != 0 {
		t.Fatalf("%v %+v", err, got)
	}
	for _, bad := range []string{"../etc/passwd", "A", "x/y", strings.Repeat("a", 65), ""} {
		if _, err := st.Load(bad); !errs.Is(err, errs.Invalid) {
			t.Errorf("id %q: %v", bad, err)
		}
	}
}

func TestPruneKeepsPinnedAndNewest(t *testing.T) {
	st, _ := store(t)
	deleted := []string{}
	st.OnDelete = func(id string) error { deleted = append(deleted, id); return nil }
	var ids []string
	for i := 0; i < 5; i++ {
		s := withTurn(st.New(llm.Spec{Provider: "ollama", Model: "m"}, false), "q")
		if i == 0 {
			s.Pinned = true
		}
		if err := st.Save(s); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	list, problems := st.List()
	if len(problems) != 0 || len(list) != 4 || list[0].ID != ids[0] {
		t.Fatalf("list = %+v %v", list, problems)
	}
	if len(deleted) != 1 || deleted[0] != ids[1] {
		t.Fatalf("oldest unpinned must go, with its chat chunks: %v", deleted)
	}
	// Private sessions are counted apart: however many there are, the
	// public history (searchable from a cloud session) keeps its size.
	for range 4 {
		s := withTurn(st.New(llm.Spec{Provider: "ollama", Model: "m"}, false), "secret")
		s.MarkPrivate()
		if err := st.Save(s); err != nil {
			t.Fatal(err)
		}
	}
	if len(deleted) != 2 {
		t.Fatalf("pruning private sessions removed public ones: %v", deleted)
	}
	list, _ = st.List()
	public := 0
	for _, s := range list {
		if !s.Private && !s.Pinned {
			public++
		}
	}
	if public != 3 || len(list) != 7 {
		t.Fatalf("%d public of %d sessions kept", public, len(list))
	}
}

func TestRenamePinDeleteAndPrivacy(t *testing.T) {
	st, _ := store(t)
	r := &Runner{Sessions: st}
	s := withTurn(st.New(llm.Spec{Provider: "ollama", Model: "m"}, false), "q")
	st.Save(s)
	if err := r.Rename(s, "   "); !errs.Is(err, errs.Invalid) {
		t.Fatalf("empty title: %v", err)
	}
	if err := r.Rename(s, "  "+strings.Repeat("é", 200)+"  "); err != nil {
		t.Fatal(err)
	}
	if err := r.SetPinned(s, true); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(s.ID)
	if err != nil || len([]rune(got.Title)) != MaxTitle || !got.Pinned {
		t.Fatalf("title cap and pin: %v %d %v", err, len([]rune(got.Title)), got.Pinned)
	}
	s.MarkPrivate()
	if err := s.CheckResume("anthropic:claude"); !errs.Is(err, errs.Privacy) {
		t.Fatalf("private to cloud: %v", err)
	}
	if err := s.CheckResume("ollama:qwen"); err != nil {
		t.Fatal(err)
	}
	if err := st.Delete(s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(s.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("after delete: %v", err)
	}
}

func TestRecordUsageKeysByServedModel(t *testing.T) {
	st, _ := store(t)
	s := st.New(llm.Spec{Provider: "openrouter", Model: "openrouter/auto"}, false)
	s.RecordUsage("anthropic/claude-x", &llm.Usage{USD: 0.01, Requests: 1})
	s.RecordUsage("anthropic/claude-x", &llm.Usage{USD: 0.02, Requests: 2})
	if c := s.Cost["openrouter:anthropic/claude-x"]; c.Requests != 3 || s.ServedModel != "anthropic/claude-x" {
		t.Fatalf("cost = %+v served=%q", s.Cost, s.ServedModel)
	}
	s.RecordUsage("openrouter/auto", &llm.Usage{USD: 0.01, Requests: 1})
	if s.ServedModel != "" {
		t.Fatal("served model clears when the model answers for itself")
	}
	s.RecordUsage("", nil)
	if len(s.Cost) != 2 {
		t.Fatalf("nil usage adds nothing: %+v", s.Cost)
	}
}

// Settings change through the runner: a session with a turn is saved, an
// empty one stays in memory, a title is cleaned.
func TestRunnerChangeSavesStartedSessions(t *testing.T) {
	st, _ := store(t)
	r := &Runner{Sessions: st}
	empty := st.New(llm.Spec{Provider: "ollama", Model: "m"}, false)
	if err := r.Change(empty, func(s *Session) error { s.Pinned = true; return nil }); err != nil || !empty.Pinned {
		t.Fatalf("%v %v", err, empty.Pinned)
	}
	if _, err := st.Load(empty.ID); err == nil {
		t.Fatal("an empty session was saved")
	}
	started := withTurn(st.New(llm.Spec{Provider: "ollama", Model: "m"}, false), "q")
	if err := r.Rename(started, "  Garden plans  "); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Load(started.ID); err != nil || got.Title != "Garden plans" {
		t.Fatalf("%+v %v", got, err)
	}
	if err := r.Rename(started, "   "); !errs.Is(err, errs.Invalid) {
		t.Fatalf("empty title: %v", err)
	}
}
