package app

import (
	"context"
	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/reveal"
)

// Services are every Wails-bound service of the window.
type Services struct {
	Shell    *Shell
	Chat     *Chat
	Library  *Library
	Settings *Settings
	Setup    *Setup
	Editor   *Editor
	Sync     *Sync
	core     *core
}

// NewServices assembles the window's services over one agent; Start starts
// the background work beside them.
func NewServices(cfg *config.Config, ag *agent.Agent, emit Emit, getenv func(string) string) *Services {
	c := &core{cfg: cfg, getenv: getenv, emit: emit, ops: &ops.Tracker{Emit: func(o ops.Op) { emit(OpEvent, o) }, Redact: llm.Redactor(llm.Secrets(cfg, getenv)).Redact},
		launch: reveal.Start}
	c.life, c.end = context.WithCancel(context.Background())
	c.ag.Store(ag)
	ch := &Chat{core: c, emit: emit, getenv: getenv, open: map[string]*chat.Session{}}
	c.busy = ch.anyBusy
	return &Services{
		Shell:    &Shell{cfg: cfg, core: c},
		Chat:     ch,
		Library:  &Library{core: c},
		Settings: &Settings{core: c, prompts: ag.Prompts},
		Setup:    &Setup{core: c},
		Editor:   &Editor{ws: ag.Drafts, cfg: cfg, core: c, chat: ch},
		Sync:     &Sync{cfg: cfg, core: c},
		core:     c,
	}
}

// Start runs the live vault watcher and the embedding backfill in this
// process, over the agent's knowledge base, and the drafts watcher.
func (s *Services) Start() {
	s.core.startBackground()
	s.Editor.watch()
	// "Discard all" is undoable while the window that did it is open; a
	// new window starts with none of an earlier one's set-aside proposals.
	if err := s.Editor.ws.PurgeDiscarded(); err != nil {
		logs.L().Warn("drafts: set-aside proposals not purged", "err", err)
	}
}

// SetLauncher replaces how desktop programs (the file manager) are
// started; the test bridge records their command lines instead.
func (s *Services) SetLauncher(launch func(argv []string) error) { s.core.launch = launch }

// OnVaultChange is told after the vault settings changed on disk (the
// window restarts the tray process, which runs with the settings it read).
func (s *Services) OnVaultChange(fn func()) { s.core.changed = fn }

// Bind lists the services for wails.Run.
func (s *Services) Bind() []any {
	return []any{s.Shell, s.Chat, s.Library, s.Settings, s.Setup, s.Editor, s.Sync}
}

// Close stops the background work and releases the knowledge base.
func (s *Services) Close() error {
	s.core.stopBackground()
	s.core.endLife()
	s.Editor.close()
	return s.core.agent().Close()
}
