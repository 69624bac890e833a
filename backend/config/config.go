// Package config holds Jarvis's settings: built-in defaults, then
// ~/.jarvis/config.toml, then environment variables (later wins). It also
// rewrites single keys in place so a settings change from the UI keeps the
// user's comments and layout.
package config

import (
	"os"
	"path/filepath"
	"strings"
)

// Quota is a named source with a per-run limit: an arXiv or bioRxiv category,
// or a bioRxiv keyword. In TOML it is written as a two-element array,
// ["cs.LG", 5], or as an inline table {name = "cs.LG", limit = 5}.
type Quota struct {
	Name  string
	Limit int
}

// Config is the resolved configuration. Section structs mirror the TOML
// tables; the toml tags are the key names users write.
type Config struct {
	Digest     Digest              `toml:"digest"`
	RAG        RAG                 `toml:"rag"`
	Chat       Chat                `toml:"chat"`
	Anthropic  Anthropic           `toml:"anthropic"`
	OpenRouter OpenRouter          `toml:"openrouter"`
	Models     map[string][]string `toml:"models"`
	Vault      Vault               `toml:"vault"`
	Sync       Sync                `toml:"sync"`
	Drafts     Drafts              `toml:"drafts"`
	MCP        MCP                 `toml:"mcp"`
	Ledger     Ledger              `toml:"ledger"`
	Zotero     Zotero              `toml:"zotero"`
	PDF        PDF                 `toml:"pdf"`

	// Home is the Jarvis data directory (~/.jarvis, or $JARVIS_HOME).
	Home string `toml:"-"`
	// File is the config file that was read (it may not exist).
	File string `toml:"-"`
	// Warnings are non-fatal problems found while loading: unknown keys,
	// legacy keys, a config file others can read.
	Warnings []string `toml:"-"`
}

// Digest is the opt-in weekly paper digest. Only Enabled is consulted when
// the digest is off.
type Digest struct {
	Enabled           bool    `toml:"enabled"`
	OutputDir         string  `toml:"output_dir"`
	MaxResults        int     `toml:"max_results"`
	ArxivCategories   []Quota `toml:"arxiv_categories"`
	BiorxivCategories []Quota `toml:"biorxiv_categories"`
	BiorxivKeywords   []Quota `toml:"biorxiv_keywords"`
	BiorxivDays       int     `toml:"biorxiv_days"`
	// ArxivURL is the arXiv API query endpoint; pointing it at a mirror or
	// a test server also moves PDF downloads to <its origin>/pdf/<id>.
	ArxivURL string `toml:"arxiv_url"`
	// BiorxivURL is the bioRxiv API root (/details/... is appended).
	BiorxivURL string `toml:"biorxiv_url"`
	Day        string `toml:"day"`
	Hour       int    `toml:"hour"`
	// AnthropicModel is the legacy location of chat.anthropic_model; it is
	// honoured with a warning when [chat] does not set the model.
	AnthropicModel string `toml:"anthropic_model"`
}

// RAG configures the knowledge base and retrieval.
type RAG struct {
	Dir        string `toml:"dir"`
	ModelsDir  string `toml:"models_dir"`
	EmbedModel string `toml:"embed_model"`
	// QueryPrefix, when set, replaces the embedding model's own query
	// prefix (the manifest's: BGE's instruction, E5's "query: ").
	QueryPrefix  string `toml:"query_prefix"`
	ChunkSize    int    `toml:"chunk_size"`
	ChunkOverlap int    `toml:"chunk_overlap"`
	RerankModel  string `toml:"rerank_model"`
	RerankTopN   int    `toml:"rerank_top_n"`
	// RerankMaxTokens caps each (query, passage) pair the reranker reads;
	// a longer passage is read in its window about the query's words.
	RerankMaxTokens int `toml:"rerank_max_tokens"`
	// RerankPrecision is "int8" (the cross-encoder's weights quantized on
	// this machine: about 3x faster, the same order) or "float32".
	RerankPrecision string `toml:"rerank_precision"`
	NResults        int    `toml:"n_results"`
	Hybrid          bool   `toml:"hybrid"`
	FigureCaptions  bool   `toml:"figure_captions"`
	FigureMaxPerDoc int    `toml:"figure_max_per_doc"`
	FigureMinPixels int    `toml:"figure_min_pixels"`
	// ModelIdleMinutes: a loaded model lets go of its memory after this
	// many minutes unused and loads again on the next use; 0 keeps it.
	ModelIdleMinutes int `toml:"model_idle_minutes"`
}

// Chat configures the agent and the default provider for new sessions.
type Chat struct {
	Provider             string `toml:"provider"`
	AnthropicModel       string `toml:"anthropic_model"`
	OllamaModel          string `toml:"ollama_model"`
	OllamaURL            string `toml:"ollama_url"`
	ResponseStyle        string `toml:"response_style"`
	CompactAfterTokens   int    `toml:"compact_after_tokens"`
	CompactKeepExchanges int    `toml:"compact_keep_exchanges"`
	MaxIterations        int    `toml:"max_iterations"`
	// AutoContinue is how many times in a row a task that used all
	// max_iterations tool rounds goes on by itself (with a short hand-off)
	// before the window offers Continue; 0 always asks. At most 3.
	AutoContinue int `toml:"auto_continue"`
}

// Anthropic holds the Anthropic credentials and endpoint.
type Anthropic struct {
	APIKey  string `toml:"api_key"`
	BaseURL string `toml:"base_url"`
}

// OpenRouter holds the broker's credentials, default model and the routing
// policy sent with every request.
type OpenRouter struct {
	APIKey         string   `toml:"api_key"`
	BaseURL        string   `toml:"base_url"`
	Model          string   `toml:"model"`
	DataCollection string   `toml:"data_collection"`
	AllowFallbacks bool     `toml:"allow_fallbacks"`
	Only           []string `toml:"only"`
}

// Vault points at the Obsidian vault, names its private folders and the
// folders or globs that are never indexed (templates, attachments, archives).
type Vault struct {
	Path        string   `toml:"path"`
	PrivateDirs []string `toml:"private_dirs"`
	Exclude     []string `toml:"exclude"` // vault-relative folders or path.Match globs, slash-separated
	// IndexImages indexes the vault's images (PNG, JPEG, TIFF, WebP) by
	// the text OCR reads off them, as notes of their folder's visibility.
	IndexImages bool `toml:"index_images"`
}

// MCP configures Jarvis as an MCP server for other AI apps.
type MCP struct {
	// AllowPrivate lets MCP clients see private notes. An MCP client is a
	// model Jarvis does not run, usually a cloud one, so it is off unless
	// the user runs their client against a local model and says so.
	AllowPrivate bool `toml:"allow_private"`
}

// Ledger configures the record of requests sent to model services.
type Ledger struct {
	// KeepDays is how long a request's redacted body is kept beside its
	// record; 0 keeps none. The records themselves stay.
	KeepDays int `toml:"keep_days"`
	// AskBeforeSending shows the passages a cloud request would carry and
	// waits for the user's go-ahead.
	AskBeforeSending bool `toml:"ask_before_sending"`
}

// Zotero points at a Zotero data directory (the folder holding
// zotero.sqlite and storage/). Empty: no Zotero library is read, until the
// user chooses one (jarvis-cli kb index-zotero --dir, or the setup panel).
type Zotero struct {
	DataDir string `toml:"data_dir"`
	// PrivateCollections are collection paths ("Grants", "Lab/Reviews"):
	// an item filed in one of them, or in a collection under one, is
	// private like a note in a private vault folder.
	PrivateCollections []string `toml:"private_collections"`
}

// PDF configures how documents without a text layer are read.
type PDF struct {
	// OCR recognises scanned pages and images with Tesseract when it is
	// installed; false leaves them unread as before.
	OCR bool `toml:"ocr"`
	// OCRLanguages are Tesseract language codes (eng, deu, chi_sim ...);
	// empty uses every language installed.
	OCRLanguages []string `toml:"ocr_languages"`
}

// Sync configures the background scheduler's periodic jobs.
type Sync struct {
	PDFWatchDir         string `toml:"pdf_watch_dir"`
	PDFWatchMinutes     int    `toml:"pdf_watch_minutes"`
	VaultRefreshMinutes int    `toml:"vault_refresh_minutes"`
}

// Drafts configures the agent-writable sandbox and document rendering.
type Drafts struct {
	Dir                   string   `toml:"dir"`
	Extensions            []string `toml:"extensions"`
	MaxFileBytes          int      `toml:"max_file_bytes"`
	RetentionDays         int      `toml:"retention_days"`
	GCHour                int      `toml:"gc_hour"`
	LatexEngine           string   `toml:"latex_engine"`
	PDFEngine             string   `toml:"pdf_engine"`
	CompileTimeoutSeconds int      `toml:"compile_timeout_seconds"`
	PDFMargin             string   `toml:"pdf_margin"`
}

// Defaults returns the built-in configuration. Paths still contain "~";
// Load expands them.
func Defaults() Config {
	return Config{
		Digest: Digest{
			Enabled:    false,
			OutputDir:  "~/Documents/papers/digest",
			MaxResults: 10,
			ArxivCategories: []Quota{
				{"cs.LG", 50}, {"cs.AI", 30}, {"cs.CL", 30},
				{"stat.ML", 30}, {"q-bio.QM", 20}, {"cs.IR", 20},
			},
			BiorxivCategories: []Quota{{"bioinformatics", 100}},
			BiorxivKeywords:   []Quota{{"cytometry", 50}, {"single-cell", 50}},
			BiorxivDays:       7,
			ArxivURL:          "https://export.arxiv.org/api/query",
			BiorxivURL:        "https://api.biorxiv.org",
			Day:               "mon",
			Hour:              5,
		},
		RAG: RAG{
			Dir:              "~/.jarvis/rag",
			ModelsDir:        "~/.jarvis/models",
			EmbedModel:       "BAAI/bge-small-en-v1.5",
			ChunkSize:        1024,
			ChunkOverlap:     128,
			RerankModel:      "cross-encoder/ms-marco-MiniLM-L6-v2",
			RerankTopN:       25,
			RerankMaxTokens:  128,
			RerankPrecision:  "int8",
			NResults:         8,
			Hybrid:           true,
			FigureCaptions:   false,
			FigureMaxPerDoc:  20,
			FigureMinPixels:  40000,
			ModelIdleMinutes: 10,
		},
		Chat: Chat{
			Provider:             "ollama",
			AnthropicModel:       "claude-sonnet-4-6",
			OllamaModel:          "qwen3-vl:30b",
			OllamaURL:            "http://127.0.0.1:11434",
			CompactAfterTokens:   12000,
			CompactKeepExchanges: 6,
			MaxIterations:        10,
			// One: a task a little longer than one turn's tool rounds
			// finishes unattended; one that hits the limit twice is more
			// likely stuck than nearly done, and the user decides.
			AutoContinue: 1,
		},
		Anthropic: Anthropic{BaseURL: "https://api.anthropic.com"},
		Ledger:    Ledger{KeepDays: 30},
		PDF:       PDF{OCR: true},
		OpenRouter: OpenRouter{
			BaseURL:        "https://openrouter.ai/api/v1",
			DataCollection: "deny",
			AllowFallbacks: false,
			Only:           []string{},
		},
		Models: map[string][]string{},
		Vault:  Vault{Path: "~/vault", PrivateDirs: []string{"private"}},
		Sync:   Sync{PDFWatchMinutes: 30, VaultRefreshMinutes: 30},
		Drafts: Drafts{
			Dir:                   "~/.jarvis/drafts",
			Extensions:            []string{".md", ".tex", ".bib", ".txt", ".csv"},
			MaxFileBytes:          2_000_000,
			RetentionDays:         30,
			GCHour:                4,
			LatexEngine:           "latexmk",
			PDFEngine:             "xelatex",
			CompileTimeoutSeconds: 180,
			PDFMargin:             "2cm",
		},
	}
}

// HomeDir returns the Jarvis data directory: $JARVIS_HOME when set (tests,
// portable installs), else ~/.jarvis.
func HomeDir() string {
	if h := os.Getenv("JARVIS_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ".jarvis"
	}
	return filepath.Join(home, ".jarvis")
}

// FilePath is where the config file lives for a given home.
func FilePath(home string) string { return filepath.Join(home, "config.toml") }

// Standard locations under Home.
func (c *Config) LogsDir() string     { return filepath.Join(c.Home, "logs") }
func (c *Config) PromptsDir() string  { return filepath.Join(c.Home, "prompts") }
func (c *Config) SessionsDir() string { return filepath.Join(c.Home, "sessions") }
func (c *Config) StateDir() string    { return filepath.Join(c.Home, "state") }
func (c *Config) MCPDir() string      { return filepath.Join(c.Home, "mcp") }
func (c *Config) LedgerDir() string   { return filepath.Join(c.Home, "ledger") }

// ModelCacheDir holds what is derived from the installed models on this
// machine (a reranker's int8 graph); it can be deleted at any time.
func (c *Config) ModelCacheDir() string { return filepath.Join(c.Home, "cache", "models") }

// ImagesDir holds PNG copies of images MuPDF cannot show (WebP).
func (c *Config) ImagesDir() string { return filepath.Join(c.Home, "images") }

// MemoryFile holds the facts the user asked Jarvis to remember.
func (c *Config) MemoryFile() string { return filepath.Join(c.Home, "memory", "memory.json") }

// expandPath resolves a leading "~/.jarvis" against Home (so JARVIS_HOME
// relocates every data dir together) and any other leading "~" against the
// user's home directory.
func expandPath(p, jarvisHome string) string {
	if p == "" {
		return p
	}
	if p == "~/.jarvis" || strings.HasPrefix(p, "~/.jarvis/") {
		return filepath.Join(jarvisHome, strings.TrimPrefix(strings.TrimPrefix(p, "~/.jarvis"), "/"))
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return p
		}
		return filepath.Join(home, strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/"))
	}
	return p
}

// ProviderName is the provider part of a "provider[:model]" spec. It splits
// on the first colon only, since Ollama tags contain colons themselves.
func ProviderName(spec string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(spec), ":")
	return strings.ToLower(name)
}

// KnownProviders are the providers Jarvis has adapters for.
var KnownProviders = []string{"ollama", "anthropic", "openrouter"}

// DefaultModel is the model a new session starts with: the model part of
// chat.provider when it names one ("ollama:llama3:8b"), else the configured
// default of that provider.
func (c *Config) DefaultModel() string {
	if _, model, ok := strings.Cut(strings.TrimSpace(c.Chat.Provider), ":"); ok && model != "" {
		return model
	}
	switch ProviderName(c.Chat.Provider) {
	case "anthropic":
		return c.Chat.AnthropicModel
	case "openrouter":
		return c.OpenRouter.Model
	default:
		return c.Chat.OllamaModel
	}
}
