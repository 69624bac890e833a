package agent_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// Starting the agent puts every prompt on disk, before any turn needs one,
// so a user can edit them in any editor from the first launch.
func TestStartSeedsEveryPrompt(t *testing.T) {
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agent.New(cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	for _, n := range prompts.Names {
		if _, err := os.Stat(filepath.Join(cfg.PromptsDir(), n+".md")); err != nil {
			t.Fatalf("%s not seeded at start: %v", n, err)
		}
	}
}
