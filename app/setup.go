package app

import (
	"context"
	"fmt"

	"github.com/jarvis-kb/jarvis/backend/autostart"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
	"github.com/jarvis-kb/jarvis/backend/ops"
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
	// Autostart is the login entry for the tray; the window wires it (nil:
	// no autostart here, e.g. the test bridge, and the toggle is absent).
	Autostart *autostart.Entry
}

// SetupView is the panel's state.
type SetupView struct {
	setup.State
	// Configured is each provider's configured model, to prefill the panel.
	Configured map[string]string `json:"configured"`
	// Autostart is the tray-at-login setting (see AutostartState).
	Autostart string `json:"autostart"`
}

// State inspects the configuration, the chat model and the search models.
func (s *Setup) State() SetupView {
	st := setup.Inspect(context.Background(), s.core.cfg, s.core.agent().Engine, s.core.getenv)
	if st.Vault.Folders == nil {
		st.Vault.Folders = []string{}
	}
	cfg := s.core.cfg
	auto, err := s.AutostartState()
	if err != nil {
		logs.L().Warn("cannot read the autostart entry", "err", err)
	}
	return SetupView{State: st, Autostart: auto, Configured: map[string]string{
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
	id, err := s.core.vaultChange("setup.SetVault", func() error { return setup.SetVault(s.core.cfg, path) })
	if err == nil && s.Autostart != nil {
		// Default on once a vault is chosen; a choice the user made stays.
		// The vault is set either way, so a failure here is logged, not returned.
		if _, aerr := s.Autostart.ApplyDefault(); aerr != nil {
			logs.L().Warn("autostart default not applied", "err", aerr)
		}
	}
	return id, err
}

// SetZotero makes path (the folder holding zotero.sqlite) the Zotero
// library and reads it at once; it returns the sync operation's id. While
// the window is open it is then kept in step every minute.
func (s *Setup) SetZotero(path string) (string, error) {
	if err := s.core.change("setup.SetZotero", false, func() error { return setup.SetZotero(s.core.cfg, path) }); err != nil {
		return "", err
	}
	if s.core.changed != nil {
		s.core.changed() // the tray read no library, or another one, when it started
	}
	return s.SyncZotero()
}

// ZoteroCollections lists the chosen library's collections, each with its
// number of items and whether they are kept private.
func (s *Setup) ZoteroCollections() ([]setup.ZoteroCollection, error) {
	return setup.ZoteroCollections(s.core.life, s.core.cfg)
}

// SetZoteroPrivate makes paths the private collections and syncs at once,
// so the items whose class changed are rebuilt before anything else reads
// them; it returns the sync operation's id. (The tray reads the setting
// from disk at its every sync.)
func (s *Setup) SetZoteroPrivate(paths []string) (string, error) {
	if err := s.core.change("setup.SetZoteroPrivate", false, func() error { return setup.SetZoteroPrivate(s.core.cfg, paths) }); err != nil {
		return "", err
	}
	return s.SyncZotero()
}

// SyncZotero reads the chosen Zotero library now, as an operation with
// progress; it returns the operation's id.
func (s *Setup) SyncZotero() (string, error) {
	eng := s.core.agent().Engine
	if eng == nil {
		return "", s.core.noStore("setup.SyncZotero")
	}
	z, err := eng.ZoteroSync()
	if err != nil {
		return "", err
	}
	if z == nil {
		return "", errs.WithHint(errs.New(errs.Invalid, "setup.SyncZotero", "no Zotero library is chosen"), "choose the folder that holds zotero.sqlite")
	}
	return s.core.ops.Start("zotero", "Reading the Zotero library", func(ctx context.Context, report ops.Report) (string, error) {
		z.Progress = func(done, total int) { report("reading items", done, total) }
		res, err := z.Sync(ctx)
		defer s.core.emitStatus()
		if err != nil {
			return "", err
		}
		s.core.bg.kick() // their vectors are pending
		return fmt.Sprintf("%d items: %d added, %d updated, %d deleted, %d warnings", res.Items, res.Added, res.Updated, res.Deleted, len(res.Warnings)), nil
	}), nil
}

// AutostartState is the "keep syncing after I log in" setting: "on",
// "off", "unset" (not chosen yet: on once a vault is chosen) or
// "unavailable".
func (s *Setup) AutostartState() (string, error) {
	if s.Autostart == nil {
		return "unavailable", nil
	}
	st, err := s.Autostart.Read()
	return st.String(), err
}

// SetAutostart turns "Keep Jarvis syncing in the background after I log
// in" on or off: it writes the XDG autostart entry for `jarvis --tray`.
func (s *Setup) SetAutostart(on bool) error {
	if s.Autostart == nil {
		return errs.WithHint(errs.New(errs.NotFound, "setup.SetAutostart", "starting at login is not available in this build"), "start `jarvis --tray` from your desktop's startup settings")
	}
	return s.Autostart.Set(on)
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

// RecommendedModels are the small local models the setup panel offers.
func (s *Setup) RecommendedModels() []llm.RecommendedModel { return llm.RecommendedModels }

// PullModel downloads a local model through Ollama as an operation (with
// progress and Cancel in the window) and returns its id.
func (s *Setup) PullModel(name string) string {
	ag := s.core.agent()
	return s.core.ops.StartIn("ollama", "Download "+name, "MB", func(ctx context.Context, report ops.Report) (string, error) {
		err := ag.PullModel(ctx, name, func(p llm.PullProgress) { report(p.Status, int(p.Completed>>20), int(p.Total>>20)) })
		if err != nil {
			return "", err
		}
		return name + " is ready", nil
	})
}

// SetChat makes provider:model the default for new chats.
func (s *Setup) SetChat(provider, model string) error {
	return s.core.change("setup.SetChat", false, func() error { return setup.SetChat(s.core.cfg, provider, model) })
}

// SetEmbedModel chooses the embedding model (English or multilingual).
// An installed model is loaded at once and the store switches to it in the
// background, the old vectors serving until the new ones are in; one that
// is not installed yet is downloaded with FetchModels, the old model
// serving meanwhile.
func (s *Setup) SetEmbedModel(id string) error {
	if err := s.core.change("setup.SetEmbedModel", false, func() error { return setup.SetEmbedModel(s.core.cfg, id) }); err != nil {
		return err
	}
	eng := s.core.agent().Engine
	if eng == nil {
		return nil
	}
	defer s.core.emitStatus()
	if err := eng.LoadModels(context.Background()); err != nil {
		return err
	}
	s.core.bg.kick()
	return nil
}

// SetAPIKey stores a cloud provider's key (config.toml, mode 0600). It is
// never sent back: the state only says whether a key is set. The agent is
// rebuilt so its redactor knows the new key.
func (s *Setup) SetAPIKey(provider, key string) error {
	return s.core.change("setup.SetAPIKey", true, func() error { return setup.SetAPIKey(s.core.cfg, provider, key) })
}
