package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// Settings serves the settings modal: response style, prompts, summary.
type Settings struct {
	cfg     *config.Config
	prompts prompts.Store
	ops     *ops.Tracker
	getenv  func(string) string
}

// Summary is the configuration at a glance (no secrets), read fresh from
// config.toml and the environment, so a hand edit shows without a restart.
func (s *Settings) Summary() []string {
	fresh, err := config.LoadFrom(s.cfg.Home)
	if err != nil {
		return append([]string{"config.toml does not load (" + err.Error() + "); these are the settings loaded at start:"}, s.cfg.Summary()...)
	}
	return fresh.Summary()
}

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

// ModelRow is one manifest model and whether it is installed.
type ModelRow struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	License    string `json:"license"`
	Configured bool   `json:"configured"`
	Installed  bool   `json:"installed"`
	Missing    int    `json:"missing"`
}

// Models lists the manifest's models with their install state.
func (s *Settings) Models() ([]ModelRow, error) {
	m, err := models.Load()
	if err != nil {
		return nil, err
	}
	out := []ModelRow{}
	for _, model := range m.Models {
		st := models.Inspect(s.cfg.RAG.ModelsDir, model)
		out = append(out, ModelRow{ID: model.ID, Role: model.Role, License: model.License, Installed: st.Installed, Missing: len(st.Missing),
			Configured: model.ID == s.cfg.RAG.EmbedModel || model.ID == s.cfg.RAG.RerankModel})
	}
	return out, nil
}

// FetchModels downloads the configured models that are not installed, as
// an operation with byte progress. Jarvis loads them on its next start.
func (s *Settings) FetchModels() (string, error) {
	m, err := models.Load()
	if err != nil {
		return "", err
	}
	var todo []models.Model
	for _, id := range []string{s.cfg.RAG.EmbedModel, s.cfg.RAG.RerankModel} {
		if id == "" || filepath.IsAbs(id) {
			continue
		}
		model, err := m.Find(id)
		if err != nil {
			return "", err
		}
		if !models.Inspect(s.cfg.RAG.ModelsDir, model).Installed {
			todo = append(todo, model)
		}
	}
	if len(todo) == 0 {
		return "", errs.New(errs.Invalid, "settings.FetchModels", "the configured models are already installed")
	}
	return s.ops.Start("models", "Download models", func(ctx context.Context, report ops.Report) (string, error) {
		f := models.NewFetcher(s.getenv)
		for i, model := range todo {
			f.Progress = func(path string, n int64) { report(fmt.Sprintf("%s: %s %d KiB", model.ID, path, n>>10), i, len(todo)) }
			if err := f.Fetch(ctx, s.cfg.RAG.ModelsDir, model); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("installed %d model(s); restart Jarvis to use them", len(todo)), nil
	}), nil
}
