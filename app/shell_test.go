package app

import (
	"errors"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
)

func TestInfoReportsModelAndWarnings(t *testing.T) {
	cfg := config.Defaults()
	cfg.Chat.Provider = "openrouter:meta/llama-4"
	cfg.Warnings = []string{"w1"}
	info := NewShell(&cfg, nil).Info()
	if info.Provider != "openrouter" || info.Model != "meta/llama-4" || len(info.Warnings) != 1 {
		t.Fatalf("info = %+v", info)
	}
	info = NewShell(nil, errors.New("bad key")).Info()
	if len(info.Warnings) != 1 || info.Warnings[0] != "Configuration error: bad key" {
		t.Fatalf("load error not surfaced: %+v", info)
	}
}
