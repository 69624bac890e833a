// Package setup is the first-run and settings logic behind the window's
// setup panel: what is missing (a vault, a chat model, the search models)
// and the choices that fix it, each written through the comment-preserving
// config.Set and applied to the running configuration. The window only
// shows and forwards; every rule lives here.
package setup

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/backend/zotero"
)

// State is what the setup panel shows.
type State struct {
	Vault  VaultState           `json:"vault"`
	Chat   agent.ProviderStatus `json:"chat"`
	Ollama OllamaState          `json:"ollama"`
	Keys   map[string]bool      `json:"keys"` // provider -> an API key is set (the key itself is never shown)
	Models []ModelState         `json:"models"`
	// DownloadMB is the approximate download of the configured models not
	// installed yet, for the button.
	DownloadMB int `json:"downloadMB"`
	// Embedding is the choice of embedding model (English or multilingual).
	Embedding EmbeddingState         `json:"embedding"`
	Search    SearchState            `json:"search"`
	Zotero    ZoteroState            `json:"zotero"`
	Issues    map[string]IssueReport `json:"issues,omitempty"` // vault | chat | models -> what to do
	// Complete is true when nothing needs the user: a vault, a chat model
	// that answers, and the search models. Jarvis works without the last
	// two (search-only answers, keyword search); the panel says so.
	Complete bool `json:"complete"`
}

// IssueReport is one missing piece in one friendly sentence, a hint and the
// technical details behind a disclosure.
type IssueReport struct {
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	Details string `json:"details,omitempty"`
}

// VaultState describes the configured vault.
type VaultState struct {
	Path        string   `json:"path"`
	Exists      bool     `json:"exists"`
	PrivateDirs []string `json:"private_dirs"`
	Exclude     []string `json:"exclude"`
	Folders     []string `json:"folders"` // top-level folders, to pick private ones from
}

// OllamaState is the local model server at the configured address, checked
// whatever the default provider is, so the panel can offer its models.
type OllamaState struct {
	URL     string   `json:"url"`
	Running bool     `json:"running"`
	Models  []string `json:"models"`
	Problem string   `json:"problem,omitempty"` // why it does not answer, in plain words
	Hint    string   `json:"hint,omitempty"`
}

// ModelState is one configured search model.
type ModelState struct {
	Role      string `json:"role"` // embed | rerank
	Spec      string `json:"spec"`
	Installed bool   `json:"installed"`
	Loaded    bool   `json:"loaded"`
}

// SearchState is the knowledge base at a glance.
type SearchState struct {
	Mode    string `json:"mode"`
	Chunks  int    `json:"chunks"`
	Pending int    `json:"pending"` // waiting for their vectors
}

// Inspect gathers the state. eng may be nil (a store that cannot open).
func Inspect(ctx context.Context, cfg *config.Config, eng *engine.Engine, getenv func(string) string) State {
	st := State{Issues: map[string]IssueReport{}, Keys: map[string]bool{}}
	st.Vault = VaultState{Path: cfg.Vault.Path, PrivateDirs: cfg.Vault.PrivateDirs, Exclude: cfg.Vault.Exclude}
	if info, err := os.Stat(cfg.Vault.Path); err == nil && info.IsDir() {
		st.Vault.Exists = true
		st.Vault.Folders = Folders(cfg.Vault.Path)
	} else {
		st.Issues["vault"] = IssueReport{Message: "Choose the folder that holds your notes.",
			Hint:    "Jarvis reads Markdown notes from an Obsidian vault or any folder of .md files; nothing in it is changed.",
			Details: "vault.path = " + cfg.Vault.Path + " does not exist"}
	}
	st.Zotero = inspectZotero(cfg)
	st.Chat = agent.CheckProvider(ctx, cfg, getenv)
	st.Ollama = inspectOllama(ctx, cfg, st.Chat)
	for _, p := range []string{"anthropic", "openrouter"} {
		st.Keys[p] = llm.HasCredentials(cfg, p, getenv)
	}
	if !st.Chat.Ready {
		msg := "No language model answers yet: questions get the best matching passages with their citations."
		hint := "Start Ollama and pick one of its models, or enter an Anthropic or OpenRouter key."
		if !st.Chat.Cloud && st.Chat.Problem != nil && strings.Contains(st.Chat.Problem.Error(), "not pulled") {
			hint = "Pick one of the models Ollama has, or pull " + st.Chat.Model + " with `ollama pull " + st.Chat.Model + "`."
		}
		st.Issues["chat"] = IssueReport{Message: msg, Hint: hint, Details: errText(st.Chat.Problem)}
	}
	for _, m := range []struct{ role, spec string }{{engine.RoleEmbed, cfg.RAG.EmbedModel}, {engine.RoleRerank, cfg.RAG.RerankModel}} {
		if m.spec == "" {
			continue
		}
		ms := ModelState{Role: m.role, Spec: m.spec, Installed: installed(cfg, m.spec)}
		st.Models = append(st.Models, ms)
		if !ms.Installed {
			st.DownloadMB += downloadMB(m.spec)
		}
	}
	if eng != nil {
		if es, err := eng.Status(ctx); err == nil {
			st.Search = SearchState{Mode: es.Mode(), Chunks: es.Chunks, Pending: es.Pending}
			for i := range st.Models {
				switch st.Models[i].Role {
				case engine.RoleEmbed:
					st.Models[i].Loaded = es.Embed.Loaded
				case engine.RoleRerank:
					st.Models[i].Loaded = es.Rerank.Loaded
				}
			}
		}
	}
	var store *kb.Store
	if eng != nil {
		store = eng.Store
	}
	if emb, err := inspectEmbedding(ctx, cfg, store); err == nil {
		st.Embedding = emb
	} else {
		st.Issues["models"] = IssueReport{Message: "The choice of search model could not be read.", Details: err.Error()}
	}
	if slices.ContainsFunc(st.Models, func(m ModelState) bool { return !m.Installed }) {
		st.Issues["models"] = IssueReport{Message: "Search works by keyword. The search models add meaning-based search and better ranking.",
			Hint: fmt.Sprintf("Download them once (≈ %d MB from Hugging Face, or a mirror set in HF_ENDPOINT); your notes stay searchable meanwhile.", st.DownloadMB)}
	}
	st.Complete = len(st.Issues) == 0
	return st
}

// inspectOllama reuses the provider check when the default provider is
// Ollama (it asked the server already) and asks the server otherwise.
func inspectOllama(ctx context.Context, cfg *config.Config, chat agent.ProviderStatus) OllamaState {
	o := OllamaState{URL: cfg.Chat.OllamaURL, Models: []string{}}
	var err error
	var models []string
	if chat.Provider == "ollama" && !chat.Cloud {
		models, err = chat.Installed, chat.Problem
		if errs.Is(err, errs.NotFound) { // it runs; the configured model is not pulled
			err = nil
		}
	} else {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		models, err = llm.InstalledModels(ctx, &http.Client{}, cfg.Chat.OllamaURL)
	}
	if err != nil {
		o.Problem = "Ollama is not running at " + cfg.Chat.OllamaURL + "."
		o.Hint = "Install it from https://ollama.com, start it with `ollama serve` (or open the Ollama app), pull a model with `ollama pull llama3.2`, then check again."
		return o
	}
	o.Running = true
	if models != nil {
		o.Models = models
	}
	return o
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func installed(cfg *config.Config, spec string) bool {
	if filepath.IsAbs(spec) {
		info, err := os.Stat(spec)
		return err == nil && info.IsDir()
	}
	m, err := models.Load()
	if err != nil {
		return false
	}
	model, err := m.Find(spec)
	return err == nil && models.Inspect(cfg.RAG.ModelsDir, model).Installed
}

// downloadMB is the manifest's size of a model (0 for a folder of one's own).
func downloadMB(spec string) int {
	m, err := models.Load()
	if err != nil {
		return 0
	}
	model, err := m.Find(spec)
	if err != nil {
		return 0
	}
	return model.DownloadMB
}

// Folders lists a folder's visible top-level folders (the candidates for
// private folders), sorted.
func Folders(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

// SetVault makes path the vault: it must be an existing folder, and not
// Jarvis's own data folder (the index would index itself).
func SetVault(cfg *config.Config, path string) error {
	const op = "setup.SetVault"
	path, err := chosenFolder(op, path)
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil || !info.IsDir() {
		return errs.WithHint(errs.New(errs.NotFound, op, "%s is not a folder", path), "choose an existing folder of Markdown notes")
	}
	if within(path, cfg.Home) || within(cfg.Home, path) {
		return errs.WithHint(errs.New(errs.Invalid, op, "%s overlaps Jarvis's data folder %s", path, cfg.Home), "choose the folder that holds your notes")
	}
	if err := config.SetIn(cfg.Home, "vault", "path", path); err != nil {
		return err
	}
	cfg.Vault.Path = path
	return nil
}

// ZoteroState is the Zotero library Jarvis reads: the chosen data folder,
// or, until one is chosen, the ones found at Zotero's usual places. Zotero
// is optional: its absence is no issue.
type ZoteroState struct {
	DataDir string   `json:"dataDir,omitempty"`
	Found   []string `json:"found"`
	// Problem says why the chosen folder cannot be read now.
	Problem string `json:"problem,omitempty"`
}

func inspectZotero(cfg *config.Config) ZoteroState {
	st := ZoteroState{DataDir: cfg.Zotero.DataDir, Found: []string{}}
	if st.DataDir != "" {
		if _, err := zotero.Stat(st.DataDir); err != nil {
			st.Problem = err.Error()
		}
		return st
	}
	if home, err := os.UserHomeDir(); err == nil {
		st.Found = append(st.Found, zotero.Detect(home)...)
	}
	return st
}

// SetZotero makes path (a folder holding zotero.sqlite) the Zotero library
// Jarvis keeps in step with.
func SetZotero(cfg *config.Config, path string) error {
	const op = "setup.SetZotero"
	path, err := chosenFolder(op, path)
	if err != nil {
		return err
	}
	if _, err := zotero.Stat(path); err != nil {
		return err
	}
	if err := config.SetIn(cfg.Home, "zotero", "data_dir", path); err != nil {
		return err
	}
	cfg.Zotero.DataDir = path
	return nil
}

// ZoteroCollection is one collection of the chosen library as the setup
// panel lists it: its path, how many items it and the collections under
// it hold, and whether those items are kept private.
type ZoteroCollection struct {
	Path    string `json:"path"`
	Items   int    `json:"items"`
	Private bool   `json:"private"`
}

// ZoteroCollections reads the chosen library's collections (a copy of
// zotero.sqlite, as a sync reads it), in path order.
func ZoteroCollections(ctx context.Context, cfg *config.Config) ([]ZoteroCollection, error) {
	const op = "setup.ZoteroCollections"
	if cfg.Zotero.DataDir == "" {
		return nil, errs.WithHint(errs.New(errs.Invalid, op, "no Zotero library is chosen"), "choose the folder that holds zotero.sqlite")
	}
	// Ticks as a sync would apply them: a collection made private by
	// jarvis-cli since the window opened shows ticked, so saving the
	// panel's list keeps it.
	private, err := engine.PrivateCollections(cfg)
	if err != nil {
		return nil, err
	}
	lib, err := zotero.Read(ctx, cfg.Zotero.DataDir)
	if err != nil {
		return nil, err
	}
	// An item counts once in each collection it is filed in or under.
	items := map[string]int{}
	for _, it := range lib.Items {
		seen := map[string]bool{}
		for _, c := range it.Collections {
			for _, a := range zotero.Ancestors(c) {
				if k := zotero.CollectionKey(a); !seen[k] {
					seen[k] = true
					items[k]++
				}
			}
		}
	}
	out := make([]ZoteroCollection, 0, len(lib.Collections))
	for _, c := range lib.Collections {
		out = append(out, ZoteroCollection{Path: c.Path, Items: items[zotero.CollectionKey(c.Path)], Private: zotero.Under(c.Path, private)})
	}
	// A private collection the library no longer holds (renamed, removed,
	// mistyped in the config) is listed too, so saving the list from the
	// panel never drops it unseen.
	for _, p := range private {
		if !slices.ContainsFunc(out, func(c ZoteroCollection) bool { return zotero.CollectionKey(c.Path) == zotero.CollectionKey(p) }) {
			out = append(out, ZoteroCollection{Path: p, Private: true})
		}
	}
	return out, nil
}

// SetZoteroPrivate makes paths the private collections (replacing the
// list); the next sync rebuilds the items whose class changed.
func SetZoteroPrivate(cfg *config.Config, paths []string) error {
	list := []string{}
	for _, p := range paths {
		p = zotero.CleanCollection(p)
		if p != "" && !slices.ContainsFunc(list, func(have string) bool { return zotero.CollectionKey(have) == zotero.CollectionKey(p) }) {
			list = append(list, p)
		}
	}
	if err := config.SetIn(cfg.Home, "zotero", "private_collections", list); err != nil {
		return err
	}
	cfg.Zotero.PrivateCollections = list
	return nil
}

// chosenFolder is a folder the user typed or picked, cleaned; it must be
// an absolute path.
func chosenFolder(op, path string) (string, error) {
	path = strings.TrimSpace(path)
	if path == "" || !filepath.IsAbs(path) {
		return "", errs.New(errs.Invalid, op, "choose a folder (an absolute path)")
	}
	return filepath.Clean(path), nil
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// SetPrivateDirs names the vault's private top-level folders: notes in
// them never reach a cloud model.
func SetPrivateDirs(cfg *config.Config, dirs []string) error {
	clean := []string{}
	for _, d := range dirs {
		if d = strings.TrimSpace(d); d != "" && !slices.Contains(clean, d) {
			clean = append(clean, d)
		}
	}
	if err := config.SetIn(cfg.Home, "vault", "private_dirs", clean); err != nil {
		return err
	}
	cfg.Vault.PrivateDirs = clean
	return nil
}

// SetExclude sets the vault folders and globs that are never indexed.
func SetExclude(cfg *config.Config, patterns []string) error {
	clean := []string{}
	for _, p := range patterns {
		if p = strings.Trim(strings.TrimSpace(p), "/"); p != "" && !slices.Contains(clean, p) {
			clean = append(clean, p)
		}
	}
	if err := config.SetIn(cfg.Home, "vault", "exclude", clean); err != nil {
		return err
	}
	cfg.Vault.Exclude = clean
	return nil
}

// SetChat makes provider (ollama | anthropic | openrouter) with model the
// default for new sessions.
func SetChat(cfg *config.Config, provider, model string) error {
	const op = "setup.SetChat"
	model = strings.TrimSpace(model)
	if model == "" {
		return errs.New(errs.Invalid, op, "choose a model")
	}
	var section, key string
	switch provider {
	case "ollama":
		section, key = "chat", "ollama_model"
	case "anthropic":
		section, key = "chat", "anthropic_model"
	case "openrouter":
		section, key = "openrouter", "model"
	default:
		return errs.New(errs.Invalid, op, "unknown provider %q (ollama, anthropic or openrouter)", provider)
	}
	if err := config.SetIn(cfg.Home, section, key, model); err != nil {
		return err
	}
	if err := config.SetIn(cfg.Home, "chat", "provider", provider); err != nil {
		return err
	}
	switch provider {
	case "ollama":
		cfg.Chat.OllamaModel = model
	case "anthropic":
		cfg.Chat.AnthropicModel = model
	case "openrouter":
		cfg.OpenRouter.Model = model
	}
	cfg.Chat.Provider = provider
	return nil
}

// SetAPIKey stores a cloud provider's key in config.toml (mode 0600). The
// key is never returned or shown again; an empty key removes it.
func SetAPIKey(cfg *config.Config, provider, key string) error {
	const op = "setup.SetAPIKey"
	key = strings.TrimSpace(key)
	if strings.ContainsAny(key, " \t\r\n") {
		return errs.New(errs.Invalid, op, "an API key has no spaces or line breaks")
	}
	switch provider {
	case "anthropic", "openrouter":
	default:
		return errs.New(errs.Invalid, op, "only Anthropic and OpenRouter use a key")
	}
	if err := config.SetIn(cfg.Home, provider, "api_key", key); err != nil {
		return errs.New(errs.CodeOf(err), op, "the key could not be saved") // the error text could echo the key
	}
	if provider == "anthropic" {
		cfg.Anthropic.APIKey = key
	} else {
		cfg.OpenRouter.APIKey = key
	}
	return nil
}
