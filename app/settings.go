package app

import (
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// Settings serves the settings modal: response style, prompts, summary.
type Settings struct {
	cfg     *config.Config
	prompts prompts.Store
}

// Summary is the configuration at a glance (no secrets).
func (s *Settings) Summary() []string { return s.cfg.Summary() }

// ResponseStyle is [chat] response_style.
func (s *Settings) ResponseStyle() string { return s.cfg.Chat.ResponseStyle }

// SetResponseStyle writes response_style back to config.toml, keeping every
// other line of the file as it was, and applies it from the next turn.
func (s *Settings) SetResponseStyle(style string) error {
	if err := config.SetIn(s.cfg.Home, "chat", "response_style", style); err != nil {
		return err
	}
	s.cfg.Chat.ResponseStyle = style
	return nil
}

// Prompts lists the three prompts with whether they differ from the default.
func (s *Settings) Prompts() ([]prompts.Prompt, error) { return s.prompts.List() }

// SavePrompt stores an edited prompt; it is read fresh on next use.
func (s *Settings) SavePrompt(name, text string) error { return s.prompts.Save(name, text) }

// ResetPrompt restores the shipped default and returns it.
func (s *Settings) ResetPrompt(name string) (string, error) { return s.prompts.Reset(name) }
