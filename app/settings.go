package app

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/mcpserver"
	"github.com/jarvis-kb/jarvis/backend/memory"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// Settings serves the settings modal: response style, prompts, summary.
type Settings struct {
	core    *core
	prompts prompts.Store
}

// Summary is the configuration at a glance (no secrets), read fresh from
// config.toml and the environment, so a hand edit shows without a restart.
func (s *Settings) Summary() []string {
	now, err := s.core.cfg.Now()
	if err != nil {
		return append([]string{"config.toml does not load (" + err.Error() + "); these are the settings loaded at start:"}, now.Summary()...)
	}
	return now.Summary()
}

// OCRView is whether scans and images can be read, in which languages,
// and how to add what is missing.
type OCRView struct {
	Available bool     `json:"available"`
	Engine    string   `json:"engine,omitempty"`
	Languages []string `json:"languages"` // what recognition uses
	Installed []string `json:"installed"` // traineddata found
	Problem   string   `json:"problem,omitempty"`
	Hint      string   `json:"hint"`
}

// OCR reports the OCR capability as [pdf] asks for it, looked up now (so
// installing Tesseract or a language shows without a restart).
func (s *Settings) OCR() OCRView {
	now, _ := s.core.cfg.Now() // a file that no longer loads: the settings loaded at start
	eng, err := ingest.OCRFor(now.PDF)
	if err != nil {
		return OCRView{Problem: err.Error(), Hint: cmp.Or(errs.HintOf(err), ocr.InstallHint), Languages: []string{}, Installed: []string{}}
	}
	return OCRView{Available: true, Engine: eng.String(), Languages: eng.Languages, Installed: eng.Installed,
		Hint: "add a language with sudo apt install tesseract-ocr-<code> (deu, fra, chi-sim, jpn ...); [pdf] ocr_languages chooses among them"}
}

// ResponseStyle is [chat] response_style.
func (s *Settings) ResponseStyle() string { return s.core.cfg.Chat.ResponseStyle }

// SetResponseStyle writes response_style back to config.toml, keeping every
// other line of the file as it was, and applies it from the next turn.
func (s *Settings) SetResponseStyle(style string) error {
	return s.write("chat", "response_style", style, func(c *config.Config) { c.Chat.ResponseStyle = style })
}

// write sets section.key in config.toml (keeping every other line as it
// was) and then applies it to the running settings, under the lock the
// turns and the other bindings read them under.
func (s *Settings) write(section, key string, value any, apply func(*config.Config)) error {
	s.core.turns.Lock()
	defer s.core.turns.Unlock()
	if err := config.SetIn(s.core.cfg.Home, section, key, value); err != nil {
		return err
	}
	apply(s.core.cfg)
	return nil
}

// AutoContinue is [chat] auto_continue: how many times in a row a task at
// the tool-call limit goes on by itself before Continue is offered.
func (s *Settings) AutoContinue() int {
	s.core.turns.Lock()
	defer s.core.turns.Unlock()
	return s.core.cfg.Chat.AutoContinue
}

// SetAutoContinue writes [chat] auto_continue (0-3) and applies it from the
// next time a task reaches the limit, a running one included.
func (s *Settings) SetAutoContinue(n int) error {
	return s.write("chat", "auto_continue", n, func(c *config.Config) {
		c.Chat.AutoContinue = n
		s.core.agent().Runner.SetAutoContinue(n)
	})
}

// Prompts lists the three prompts with whether they differ from the default.
func (s *Settings) Prompts() ([]prompts.Prompt, error) { return s.prompts.List() }

// SavePrompt stores an edited prompt; it is read fresh on next use.
func (s *Settings) SavePrompt(name, text string) error { return s.prompts.Save(name, text) }

// ResetPrompt restores the shipped default and returns it.
func (s *Settings) ResetPrompt(name string) (string, error) { return s.prompts.Reset(name) }

// Memory lists what the user asked Jarvis to remember.
func (s *Settings) Memory() ([]memory.Fact, error) { return s.core.agent().Memory.List() }

// AddMemory remembers a fact typed in Settings.
func (s *Settings) AddMemory(text string, private bool) (memory.Fact, error) {
	return s.core.agent().Memory.Add(text, private)
}

// UpdateMemory edits a remembered fact.
func (s *Settings) UpdateMemory(id, text string, private bool) (memory.Fact, error) {
	return s.core.agent().Memory.Update(id, text, private)
}

// DeleteMemory forgets a fact.
func (s *Settings) DeleteMemory(id string) error { return s.core.agent().Memory.Delete(id) }

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
	cfg := s.core.cfg
	for _, model := range m.Models {
		st := models.Inspect(cfg.RAG.ModelsDir, model)
		out = append(out, ModelRow{ID: model.ID, Role: model.Role, License: model.License, Installed: st.Installed, Missing: len(st.Missing),
			Configured: model.ID == cfg.RAG.EmbedModel || model.ID == cfg.RAG.RerankModel})
	}
	return out, nil
}

// FetchModels downloads the configured models that are not installed, as
// an operation with byte progress, then loads them into the running
// knowledge base and starts the backfill (its own operation) that embeds
// what was stored without vectors. No restart.
func (s *Settings) FetchModels() (string, error) {
	m, err := models.Load()
	if err != nil {
		return "", err
	}
	cfg := s.core.cfg
	var todo []models.Model
	for _, id := range []string{cfg.RAG.EmbedModel, cfg.RAG.RerankModel} {
		if id == "" || filepath.IsAbs(id) {
			continue
		}
		model, err := m.Find(id)
		if err != nil {
			return "", err
		}
		if !models.Inspect(cfg.RAG.ModelsDir, model).Installed {
			todo = append(todo, model)
		}
	}
	if len(todo) == 0 {
		return "", errs.New(errs.Invalid, "settings.FetchModels", "the configured models are already installed")
	}
	return s.core.ops.Start("models", "Download search models", func(ctx context.Context, report ops.Report) (string, error) {
		f := models.NewFetcher(s.core.getenv)
		for i, model := range todo {
			f.Progress = func(path string, n int64) { report(fmt.Sprintf("%s: %s %d KiB", model.ID, path, n>>10), i, len(todo)) }
			if err := f.Fetch(ctx, cfg.RAG.ModelsDir, model); err != nil {
				return "", err
			}
		}
		eng := s.core.agent().Engine
		if eng == nil {
			return fmt.Sprintf("installed %d model(s)", len(todo)), nil
		}
		if err := eng.LoadModels(ctx); err != nil {
			return "", err
		}
		defer s.core.emitStatus()
		st, err := eng.Status(ctx)
		if err != nil {
			return "", err
		}
		for _, m := range []engine.ModelStatus{st.Embed, st.Rerank} {
			if m.Issue != nil {
				return "", errs.WithHint(errs.Wrapf(errs.RAG, "settings.FetchModels", m.Issue, "%s was downloaded but does not load", m.Spec),
					"the download may be damaged: `jarvis-cli models verify` checks it; download it again after removing its folder")
			}
		}
		if !st.Embed.Loaded {
			return fmt.Sprintf("installed %d model(s); search results are reranked now", len(todo)), nil
		}
		s.core.bg.kick()
		return fmt.Sprintf("installed %d model(s); your notes and papers are being embedded in the background", len(todo)), nil
	}), nil
}

// MCP is "Use Jarvis from other AI apps": the client snippets (naming the
// jarvis-cli installed with this window), the HTTP token, the
// allow_private switch and the last calls clients made. Read fresh: the
// switch may have been changed in config.toml by hand.
func (s *Settings) MCP() (mcpserver.Overview, error) {
	s.core.turns.Lock()
	cfg := s.core.cfg
	allow := cfg.MCP.AllowPrivate
	s.core.turns.Unlock()
	if now, err := cfg.Now(); err == nil {
		allow = now.MCP.AllowPrivate
	}
	return mcpserver.ReadOverview(cfg.Home, cfg.MCPDir(), fsutil.FindBinary("jarvis-cli"), allow, 20)
}

// SetMCPAllowPrivate writes [mcp] allow_private. A running MCP server
// reads it when the client next starts it.
func (s *Settings) SetMCPAllowPrivate(on bool) error {
	return s.write("mcp", "allow_private", on, func(c *config.Config) { c.MCP.AllowPrivate = on })
}

// AskBeforeSending reads [ledger] ask_before_sending: the default of new
// and unswitched sessions.
func (s *Settings) AskBeforeSending() bool {
	s.core.turns.Lock()
	defer s.core.turns.Unlock()
	return s.core.cfg.Ledger.AskBeforeSending
}

// SetAskBeforeSending writes [ledger] ask_before_sending; sessions that
// were not switched on their own follow it from their next tool result.
func (s *Settings) SetAskBeforeSending(on bool) error {
	return s.write("ledger", "ask_before_sending", on, func(c *config.Config) { c.Ledger.AskBeforeSending = on })
}

// LedgerFilter narrows the "Sent to the cloud" list; empty fields match
// everything.
type LedgerFilter struct {
	Session  string `json:"session"`
	Source   string `json:"source"`
	Provider string `json:"provider"`
	Purpose  string `json:"purpose"`
	// Local includes requests to the local Ollama (nothing left the machine).
	Local bool `json:"local"`
}

// ledgerShown caps one listing; the CLI lists everything.
const ledgerShown = 500

// Ledger lists what was sent to model services, newest first, from the
// records every process writes before sending.
func (s *Settings) Ledger(f LedgerFilter) ([]ledger.Record, error) {
	cfg := s.core.cfg
	book, err := ledger.Shared(cfg.LedgerDir(), cfg.Ledger.KeepDays)
	if err != nil {
		return nil, err
	}
	rs, err := book.List(context.Background(), ledger.Filter{Session: f.Session, Source: f.Source, Provider: f.Provider, Purpose: f.Purpose,
		CloudOnly: !f.Local, Limit: ledgerShown})
	if rs == nil {
		rs = []ledger.Record{}
	}
	return rs, err
}
