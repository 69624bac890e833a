package app

import (
	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/ops"
)

// Services are every Wails-bound service of the window.
type Services struct {
	Shell    *Shell
	Chat     *Chat
	Library  *Library
	Settings *Settings
	Editor   *Editor
	Sync     *Sync
	agent    *agent.Agent
}

// NewServices assembles the window's services over one agent.
func NewServices(cfg *config.Config, ag *agent.Agent, emit Emit, getenv func(string) string) *Services {
	tracker := &ops.Tracker{Emit: func(o ops.Op) { emit(OpEvent, o) }, Redact: llm.Redactor(llm.Secrets(cfg, getenv)).Redact}
	return &Services{
		Shell:    &Shell{cfg: cfg, notes: engineNote(ag)},
		Chat:     &Chat{ag: ag, emit: emit, getenv: getenv, open: map[string]*chat.Session{}},
		Library:  &Library{ag: ag, ops: tracker},
		Settings: &Settings{cfg: cfg, prompts: ag.Prompts, ops: tracker, getenv: getenv},
		Editor:   &Editor{ws: ag.Drafts, cfg: cfg},
		Sync:     &Sync{cfg: cfg},
		agent:    ag,
	}
}

func engineNote(ag *agent.Agent) []string {
	if ag.EngineErr == nil {
		return nil
	}
	return []string{"Knowledge base unavailable: " + ag.EngineErr.Error()}
}

// Bind lists the services for wails.Run.
func (s *Services) Bind() []any {
	return []any{s.Shell, s.Chat, s.Library, s.Settings, s.Editor, s.Sync}
}

// Close releases the knowledge base.
func (s *Services) Close() error { return s.agent.Close() }
