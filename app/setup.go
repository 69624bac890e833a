package app

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/setup"
)

// Setup serves the setup panel (on first launch, and in Settings): what is
// missing and the choices that fix it. The rules live in backend/setup;
// this service applies each choice to the running window.
type Setup struct {
	core *core
	// PickFolder asks the human for a folder with the desktop's dialog
	// ("" when cancelled; nil where there is no dialog). The window wires
	// it to the Wails runtime, the test bridge to its queued answers.
	PickFolder func(title string) (string, error)
}

// SetupView is the panel's state.
type SetupView struct {
	setup.State
	DownloadMB int `json:"downloadMB"` // the search models' approximate size
	// Configured is each provider's configured model, to prefill the panel.
	Configured map[string]string `json:"configured"`
}

// State inspects the configuration, the chat model and the search models.
func (s *Setup) State() SetupView {
	st := setup.Inspect(context.Background(), s.core.cfg, s.core.agent().Engine, s.core.getenv)
	if st.Vault.Folders == nil {
		st.Vault.Folders = []string{}
	}
	cfg := s.core.cfg
	return SetupView{State: st, DownloadMB: setup.ModelDownloadMB, Configured: map[string]string{
		"ollama": cfg.Chat.OllamaModel, "anthropic": cfg.Chat.AnthropicModel, "openrouter": cfg.OpenRouter.Model}}
}

// ChooseFolder opens the desktop's folder dialog; "" means cancelled.
func (s *Setup) ChooseFolder() (string, error) {
	if s.PickFolder == nil {
		return "", errs.WithHint(errs.New(errs.NotFound, "setup.ChooseFolder", "no folder dialog is available here"), "type the folder's full path instead")
	}
	return s.PickFolder("Choose the folder that holds your notes")
}

// SetVault makes path the vault and indexes it at once; it returns the
// indexing operation's id. The change takes effect without a restart.
func (s *Setup) SetVault(path string) (string, error) {
	return s.core.vaultChange("setup.SetVault", func() error { return setup.SetVault(s.core.cfg, path) })
}

// SetPrivateDirs names the vault's private top-level folders and
// reclassifies the notes at once (an operation id).
func (s *Setup) SetPrivateDirs(dirs []string) (string, error) {
	return s.core.vaultChange("setup.SetPrivateDirs", func() error { return setup.SetPrivateDirs(s.core.cfg, dirs) })
}

// SetExclude sets the folders and globs never indexed and brings the index
// in line at once (an operation id).
func (s *Setup) SetExclude(patterns []string) (string, error) {
	return s.core.vaultChange("setup.SetExclude", func() error { return setup.SetExclude(s.core.cfg, patterns) })
}

// SetChat makes provider:model the default for new chats.
func (s *Setup) SetChat(provider, model string) error {
	return s.core.change("setup.SetChat", false, func() error { return setup.SetChat(s.core.cfg, provider, model) })
}

// SetAPIKey stores a cloud provider's key (config.toml, mode 0600). It is
// never sent back: the state only says whether a key is set. The agent is
// rebuilt so its redactor knows the new key.
func (s *Setup) SetAPIKey(provider, key string) error {
	return s.core.change("setup.SetAPIKey", true, func() error { return setup.SetAPIKey(s.core.cfg, provider, key) })
}
