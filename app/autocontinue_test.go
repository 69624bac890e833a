package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Settings' "when a task reaches the tool-call limit" choice is written to
// config.toml, holds after a restart and reaches the running agent; a value
// out of range is refused and nothing changes.
func TestTheTaskContinuationSettingIsWrittenAndApplied(t *testing.T) {
	s, cfg := services(t)
	if got := s.Settings.AutoContinue(); got != 1 {
		t.Fatalf("default %d, want 1", got)
	}
	if err := s.Settings.SetAutoContinue(3); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(cfg.Home, "config.toml"))
	if !strings.Contains(string(b), "auto_continue = 3") || !strings.HasPrefix(string(b), "# my settings") {
		t.Fatalf("config.toml now:\n%s", b)
	}
	if s.Settings.AutoContinue() != 3 || s.core.agent().Runner.AutoContinue != 3 {
		t.Fatalf("setting %d, runner %d", s.Settings.AutoContinue(), s.core.agent().Runner.AutoContinue)
	}
	if again, err := config.Load(); err != nil || again.Chat.AutoContinue != 3 {
		t.Fatalf("after a restart: %v %v", again.Chat.AutoContinue, err)
	}
	if err := s.Settings.SetAutoContinue(4); !errs.Is(err, errs.Invalid) {
		t.Fatalf("4: %v, want invalid", err)
	}
	if s.Settings.AutoContinue() != 3 || s.core.agent().Runner.AutoContinue != 3 {
		t.Fatal("a refused value changed the setting")
	}
}
