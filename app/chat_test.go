package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// The header's model and cost: the served model while a router's pick
// differs (cleared by a switch), and a cost only for what a provider
// reported, with its breakdown by the model that answered.
func TestSessionViewCostAndServedModel(t *testing.T) {
	s, _ := services(t)
	v, _ := s.Chat.New("", true)
	sess, _ := s.Chat.session(v.ID)
	if v.CostUSD != 0 || len(v.Cost) != 0 || v.ServedModel != "" {
		t.Fatalf("a new session has no cost: %+v", v)
	}
	// Requests whose cost nobody reported are no cost at all (not $0.00).
	sess.RecordUsage("", &llm.Usage{Requests: 3})
	if v, _ = s.Chat.Open(v.ID); len(v.Cost) != 0 || v.CostUSD != 0 {
		t.Fatalf("unreported cost shown: %+v", v.Cost)
	}
	sess.Provider, sess.Model = "openrouter", "openrouter/auto"
	sess.RecordUsage("meta/llama-4", &llm.Usage{USD: 0.02, Requests: 2, Reported: 2})
	sess.RecordUsage("mistral/small", &llm.Usage{USD: 0.01, Requests: 1, Reported: 1})
	v, _ = s.Chat.Open(v.ID)
	if v.ServedModel != "mistral/small" || len(v.Cost) != 2 || v.Cost[0].Model != "openrouter:meta/llama-4" || v.Cost[0].Requests != 2 ||
		v.CostUSD < 0.0299 || v.CostUSD > 0.0301 {
		t.Fatalf("view: served %q, cost %v %+v", v.ServedModel, v.CostUSD, v.Cost)
	}
	sess.Messages = []llm.Message{llm.Text(llm.RoleUser, "q")}
	if v, err := s.Chat.SetModel(v.ID, "ollama:qwen3"); err != nil || v.ServedModel != "" || len(v.Cost) != 2 {
		t.Fatalf("a switch clears the routed pick and keeps the spend: %+v %v", v, err)
	}
}

// The model picker and a switch read config.toml as it is now: a model
// added by hand appears without a restart; so does the settings summary.
func TestHandEditedConfigIsReadFresh(t *testing.T) {
	s, cfg := services(t)
	if slices.ContainsFunc(s.Chat.Models(""), func(e llm.CatalogueEntry) bool { return e.Spec == "ollama:gemma3:4b" }) {
		t.Fatal("not in the catalogue yet")
	}
	f := filepath.Join(cfg.Home, "config.toml")
	b, _ := os.ReadFile(f)
	os.WriteFile(f, append(b, []byte("\n[models]\nollama = [\"gemma3:4b\"]\n")...), 0o600)
	if !slices.ContainsFunc(s.Chat.Models(""), func(e llm.CatalogueEntry) bool { return e.Spec == "ollama:gemma3:4b" }) {
		t.Fatalf("a hand-added model is missing: %+v", s.Chat.Models(""))
	}
	os.WriteFile(f, append(b, []byte("[vault]\nprivate_dirs = [\"secret\"]\n")...), 0o600)
	if sum := strings.Join(s.Settings.Summary(), "\n"); !strings.Contains(sum, "private: secret") {
		t.Fatalf("summary not fresh:\n%s", sum)
	}
	os.WriteFile(f, []byte("[chat\n"), 0o600)
	if sum := strings.Join(s.Settings.Summary(), "\n"); !strings.Contains(sum, "does not load") || len(s.Chat.Models("")) == 0 {
		t.Fatalf("a broken file falls back to the settings loaded at start:\n%s", sum)
	}
}

// Renaming a session renames its indexed exchanges, so chat-history
// search shows the new title.
func TestRenameRetitlesIndexedExchanges(t *testing.T) {
	s, _ := services(t)
	v, _ := s.Chat.New("", true)
	sess, _ := s.Chat.session(v.ID)
	now := time.Now()
	sess.Title = "Untitled garden chat"
	sess.Messages = []llm.Message{llm.Text(llm.RoleUser, "roses"), llm.Text(llm.RoleAssistant, "prune")}
	sess.Display = []chat.DisplayItem{{Role: "user", Text: "when to prune roses", At: now}, {Role: "assistant", Text: "in winter", At: now}}
	if err := s.core.agent().Runner.History.Index(context.Background(), sess); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Chat.Rename(v.ID, "Rose pruning"); err != nil {
		t.Fatal(err)
	}
	chunks, err := s.core.agent().Engine.Store.Document(context.Background(), kb.Filter{Source: chat.ChatSource(v.ID)})
	if err != nil || len(chunks) != 1 || chunks[0].Meta.Title != "Rose pruning" {
		t.Fatalf("indexed exchanges keep the old title: %+v %v", chunks, err)
	}
	saved, _ := s.core.agent().Sessions.Load(v.ID)
	if saved.Title != "Rose pruning" {
		t.Fatalf("saved title %q", saved.Title)
	}
}
