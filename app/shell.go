// Package app holds the Wails-bound services. They translate between the
// frontend's JSON shapes and the backend packages and decide nothing
// themselves.
package app

import (
	"runtime"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/reveal"
	"github.com/jarvis-kb/jarvis/backend/vault"
	"github.com/jarvis-kb/jarvis/backend/version"
)

// AppInfo is what the header and status banners show at start-up.
type AppInfo struct {
	Version  string   `json:"version"`
	Provider string   `json:"provider"`
	Model    string   `json:"model"`
	DataDir  string   `json:"dataDir"`
	Warnings []string `json:"warnings"`
}

// Shell serves the window chrome: version, active model, start-up warnings.
type Shell struct {
	cfg     *config.Config
	loadErr error
	core    *core // nil when only the shell is bound
}

// NewShell wraps the loaded configuration. loadErr, when set, is reported as
// a warning so a broken config.toml shows up in the window instead of a
// window that never opens.
func NewShell(cfg *config.Config, loadErr error) *Shell {
	return &Shell{cfg: cfg, loadErr: loadErr}
}

// Info reports the shell's state.
func (s *Shell) Info() AppInfo {
	info := AppInfo{Version: version.Version, Warnings: []string{}}
	if s.loadErr != nil {
		info.Warnings = append(info.Warnings, "Configuration error: "+s.loadErr.Error())
	}
	if s.cfg == nil {
		return info
	}
	info.DataDir = s.cfg.Home
	info.Provider = config.ProviderName(s.cfg.Chat.Provider)
	info.Model = s.cfg.DefaultModel()
	info.Warnings = append(info.Warnings, s.cfg.Warnings...)
	if s.core != nil {
		if ag := s.core.agent(); ag.EngineErr != nil {
			info.Warnings = append(info.Warnings, "Knowledge base unavailable: "+ag.EngineErr.Error())
		}
	}
	return info
}

// Obsidian reports whether vault-note citations can open in Obsidian here.
func (s *Shell) Obsidian() bool {
	return s.cfg != nil && s.cfg.Vault.Path != "" && vault.ObsidianInstalled(nil, nil)
}

// Zotero reports whether citations of Zotero items can open in Zotero
// here (a zotero command or a zotero:// link handler).
func (s *Shell) Zotero() bool {
	return reveal.Installed("zotero", "zotero", nil, nil)
}

// OpenInZotero opens a citation's zotero:// link (the item, or the PDF in
// Zotero's reader at the cited page and annotation); the window falls
// back to its own viewer when Zotero is not installed.
func (s *Shell) OpenInZotero(link string) error {
	if !strings.HasPrefix(link, "zotero://") {
		return errs.New(errs.Invalid, "shell", "%q is not a Zotero link", link)
	}
	argv, err := reveal.URLCommand(runtime.GOOS, link)
	if err != nil {
		return err
	}
	if s.core == nil {
		return reveal.Start(argv)
	}
	return s.core.launch(argv)
}

// OpenInObsidian opens a cited vault note (vault-relative path) in
// Obsidian; the window falls back to its own viewer when this fails.
func (s *Shell) OpenInObsidian(rel string) error {
	link, err := vault.NoteURL(s.cfg.Vault.Path, rel)
	if err != nil {
		return err
	}
	argv, err := reveal.URLCommand(runtime.GOOS, link)
	if err != nil {
		return err
	}
	if s.core == nil { // the shell alone (a broken config): nothing to launch with
		return reveal.Start(argv)
	}
	return s.core.launch(argv)
}
