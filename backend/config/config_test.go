package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func noEnv(string) string { return "" }

func TestDefaultsMatchTheSeedTable(t *testing.T) {
	home := t.TempDir()
	cfg, err := parse(nil, home, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"digest.enabled", cfg.Digest.Enabled, false},
		{"digest.max_results", cfg.Digest.MaxResults, 10},
		{"digest.arxiv_categories count", len(cfg.Digest.ArxivCategories), 6},
		{"digest.biorxiv_categories", cfg.Digest.BiorxivCategories, []Quota{{"bioinformatics", 100}}},
		{"digest.biorxiv_keywords[0]", cfg.Digest.BiorxivKeywords[0], Quota{"cytometry", 50}},
		{"digest.biorxiv_days", cfg.Digest.BiorxivDays, 7},
		{"digest.day", cfg.Digest.Day, "mon"},
		{"digest.hour", cfg.Digest.Hour, 5},
		{"digest.arxiv_url", cfg.Digest.ArxivURL, "https://export.arxiv.org/api/query"},
		{"digest.biorxiv_url", cfg.Digest.BiorxivURL, "https://api.biorxiv.org"},
		{"rag.dir", cfg.RAG.Dir, filepath.Join(home, "rag")},
		{"rag.embed_model", cfg.RAG.EmbedModel, "BAAI/bge-small-en-v1.5"},
		{"rag.query_prefix", cfg.RAG.QueryPrefix, ""},
		{"rag.chunk_size", cfg.RAG.ChunkSize, 1024},
		{"rag.chunk_overlap", cfg.RAG.ChunkOverlap, 128},
		{"rag.rerank_model", cfg.RAG.RerankModel, "cross-encoder/ms-marco-MiniLM-L6-v2"},
		{"rag.rerank_top_n", cfg.RAG.RerankTopN, 25},
		{"rag.rerank_max_tokens", cfg.RAG.RerankMaxTokens, 128},
		{"rag.rerank_precision", cfg.RAG.RerankPrecision, "int8"},
		{"rag.model_idle_minutes", cfg.RAG.ModelIdleMinutes, 10},
		{"rag.hybrid", cfg.RAG.Hybrid, true},
		{"rag.figure_captions", cfg.RAG.FigureCaptions, false},
		{"rag.figure_max_per_doc", cfg.RAG.FigureMaxPerDoc, 20},
		{"rag.figure_min_pixels", cfg.RAG.FigureMinPixels, 40000},
		{"chat.provider", cfg.Chat.Provider, "ollama"},
		{"chat.anthropic_model", cfg.Chat.AnthropicModel, "claude-sonnet-4-6"},
		{"chat.ollama_model", cfg.Chat.OllamaModel, "qwen3-vl:30b"},
		{"chat.response_style", cfg.Chat.ResponseStyle, ""},
		{"chat.compact_after_tokens", cfg.Chat.CompactAfterTokens, 12000},
		{"chat.compact_keep_exchanges", cfg.Chat.CompactKeepExchanges, 6},
		{"chat.max_iterations", cfg.Chat.MaxIterations, 10},
		{"chat.auto_continue", cfg.Chat.AutoContinue, 1},
		{"openrouter.model", cfg.OpenRouter.Model, ""},
		{"openrouter.data_collection", cfg.OpenRouter.DataCollection, "deny"},
		{"openrouter.allow_fallbacks", cfg.OpenRouter.AllowFallbacks, false},
		{"openrouter.only", cfg.OpenRouter.Only, []string{}},
		{"models", cfg.Models, map[string][]string{}},
		{"vault.private_dirs", cfg.Vault.PrivateDirs, []string{"private"}},
		{"sync.pdf_watch_dir", cfg.Sync.PDFWatchDir, ""},
		{"sync.pdf_watch_minutes", cfg.Sync.PDFWatchMinutes, 30},
		{"sync.vault_refresh_minutes", cfg.Sync.VaultRefreshMinutes, 30},
		{"anthropic.api_key", cfg.Anthropic.APIKey, ""},
		{"openrouter.api_key", cfg.OpenRouter.APIKey, ""},
		{"drafts.dir", cfg.Drafts.Dir, filepath.Join(home, "drafts")},
		{"drafts.extensions", cfg.Drafts.Extensions, []string{".md", ".tex", ".bib", ".txt", ".csv"}},
		{"drafts.max_file_bytes", cfg.Drafts.MaxFileBytes, 2000000},
		{"drafts.retention_days", cfg.Drafts.RetentionDays, 30},
		{"drafts.gc_hour", cfg.Drafts.GCHour, 4},
		{"drafts.latex_engine", cfg.Drafts.LatexEngine, "latexmk"},
		{"drafts.pdf_engine", cfg.Drafts.PDFEngine, "xelatex"},
		{"drafts.compile_timeout_seconds", cfg.Drafts.CompileTimeoutSeconds, 180},
		{"drafts.pdf_margin", cfg.Drafts.PDFMargin, "2cm"},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	userHome, _ := os.UserHomeDir()
	if cfg.Vault.Path != filepath.Join(userHome, "vault") {
		t.Errorf("vault.path = %q, want ~/vault expanded", cfg.Vault.Path)
	}
	if cfg.Digest.OutputDir != filepath.Join(userHome, "Documents/papers/digest") {
		t.Errorf("digest.output_dir = %q", cfg.Digest.OutputDir)
	}
}

func TestFileOverridesDefaults(t *testing.T) {
	doc := `
[digest]
enabled = true
arxiv_categories = [["cs.LG", 5], {name = "q-bio.GN", limit = 3}]
anthropic_model = "legacy-model"

[rag]
chunk_size = 512
chunk_overlap = 64
hybrid = false
rerank_model = ""

[vault]
path = "/data/vault"
private_dirs = ["private", "journal"]

[models]
openrouter = ["meta/llama-4", "mistral/large"]
`
	cfg, err := parse([]byte(doc), t.TempDir(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Digest.Enabled || cfg.RAG.ChunkSize != 512 || cfg.RAG.ChunkOverlap != 64 || cfg.RAG.Hybrid || cfg.RAG.RerankModel != "" {
		t.Fatalf("file values not applied: %+v %+v", cfg.Digest, cfg.RAG)
	}
	if want := []Quota{{"cs.LG", 5}, {"q-bio.GN", 3}}; !reflect.DeepEqual(cfg.Digest.ArxivCategories, want) {
		t.Fatalf("arxiv_categories = %v", cfg.Digest.ArxivCategories)
	}
	if cfg.Vault.Path != "/data/vault" || !reflect.DeepEqual(cfg.Vault.PrivateDirs, []string{"private", "journal"}) {
		t.Fatalf("vault = %+v", cfg.Vault)
	}
	if !reflect.DeepEqual(cfg.Models["openrouter"], []string{"meta/llama-4", "mistral/large"}) {
		t.Fatalf("models = %v", cfg.Models)
	}
	// Legacy [digest] anthropic_model is a fallback with a warning.
	if cfg.Chat.AnthropicModel != "legacy-model" || !containsWarning(cfg.Warnings, "legacy") {
		t.Fatalf("legacy fallback: model=%q warnings=%v", cfg.Chat.AnthropicModel, cfg.Warnings)
	}
}

func TestChatModelBeatsLegacyDigestModel(t *testing.T) {
	doc := "[chat]\nanthropic_model = \"chat-model\"\n[digest]\nanthropic_model = \"legacy\"\n"
	cfg, err := parse([]byte(doc), t.TempDir(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Chat.AnthropicModel != "chat-model" {
		t.Fatalf("[chat] must win over [digest]: %q", cfg.Chat.AnthropicModel)
	}
	env := map[string]string{"ANTHROPIC_MODEL": "env-model"}
	cfg, err = parse([]byte(doc), t.TempDir(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Chat.AnthropicModel != "env-model" {
		t.Fatalf("env must win over [chat]: %q", cfg.Chat.AnthropicModel)
	}
}

func TestEnvOverrides(t *testing.T) {
	env := map[string]string{
		"CHAT_PROVIDER":      "anthropic",
		"OPENROUTER_MODEL":   "x/y",
		"ANTHROPIC_MODEL":    "claude-env",
		"OLLAMA_MODEL":       "llama3:8b",
		"OLLAMA_HOST":        "127.0.0.1:9999",
		"VAULT_PATH":         "/env/vault",
		"PDF_WATCH_DIR":      "/env/inbox",
		"ANTHROPIC_API_KEY":  "sk-ant-env",
		"OPENROUTER_API_KEY": "sk-or-env",
	}
	doc := "[chat]\nprovider = \"ollama\"\n[vault]\npath = \"/file/vault\"\n"
	cfg, err := parse([]byte(doc), t.TempDir(), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	got := []string{cfg.Chat.Provider, cfg.OpenRouter.Model, cfg.Chat.AnthropicModel, cfg.Chat.OllamaModel, cfg.Chat.OllamaURL,
		cfg.Vault.Path, cfg.Sync.PDFWatchDir, cfg.Anthropic.APIKey, cfg.OpenRouter.APIKey}
	want := []string{"anthropic", "x/y", "claude-env", "llama3:8b", "http://127.0.0.1:9999", "/env/vault", "/env/inbox", "sk-ant-env", "sk-or-env"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("env overrides:\n got %v\nwant %v", got, want)
	}
	if len(EnvNames()) != len(env) {
		t.Fatalf("EnvNames = %v", EnvNames())
	}
}

func TestValidationNamesTheKey(t *testing.T) {
	cases := []struct {
		name, doc, wantKey string
	}{
		{"wrong type", "[rag]\nchunk_size = \"big\"\n", "rag.chunk_size"},
		{"overlap too big", "[rag]\nchunk_size = 100\nchunk_overlap = 100\n", "rag.chunk_overlap"},
		{"hour range", "[digest]\nenabled = true\nhour = 24\n", "digest.hour"},
		{"weekday", "[digest]\nenabled = true\nday = \"someday\"\n", "digest.day"},
		{"quota limit", "[digest]\nenabled = true\narxiv_categories = [[\"cs.LG\", 0]]\n", "digest.arxiv_categories"},
		{"arxiv url", "[digest]\narxiv_url = \"export.arxiv.org/api/query\"\n", "digest.arxiv_url"},
		{"biorxiv url", "[digest]\nbiorxiv_url = \"\"\n", "digest.biorxiv_url"},
		{"provider", "[chat]\nprovider = \"gemini\"\n", "chat.provider"},
		{"auto continue", "[chat]\nauto_continue = 4\n", "chat.auto_continue"},
		{"auto continue negative", "[chat]\nauto_continue = -1\n", "chat.auto_continue"},
		{"watch minutes", "[sync]\npdf_watch_minutes = 0\n", "sync.pdf_watch_minutes"},
		{"gc hour", "[drafts]\ngc_hour = -1\n", "drafts.gc_hour"},
		{"rerank precision", "[rag]\nrerank_precision = \"int4\"\n", "rag.rerank_precision"},
		{"rerank pair cap", "[rag]\nrerank_max_tokens = 8\n", "rag.rerank_max_tokens"},
		{"retention", "[drafts]\nretention_days = -3\n", "drafts.retention_days"},
		{"extension", "[drafts]\nextensions = [\"md\"]\n", "drafts.extensions"},
		{"private dir nested", "[vault]\nprivate_dirs = [\"a/b\"]\n", "vault.private_dirs"},
		{"exclude absolute", "[vault]\nexclude = [\"/etc\"]\n", "vault.exclude"},
		{"exclude bad glob", "[vault]\nexclude = [\"[a\"]\n", "vault.exclude"},
		{"data collection", "[openrouter]\ndata_collection = \"maybe\"\n", "openrouter.data_collection"},
		{"quota shape", "[digest]\narxiv_categories = [[\"cs.LG\"]]\n", "digest.arxiv_categories"},
		{"list item type", "[openrouter]\nonly = [1]\n", "openrouter.only"},
		{"models provider", "[models]\ngemini = [\"x\"]\n", "models.gemini"},
		{"section not table", "rag = 3\n", "rag"},
		{"bad toml", "[rag\nchunk_size = 1\n", "not valid TOML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse([]byte(c.doc), t.TempDir(), noEnv)
			if err == nil {
				t.Fatal("expected an error")
			}
			if !errs.Is(err, errs.Invalid) {
				t.Fatalf("code = %v, want invalid", errs.CodeOf(err))
			}
			if !strings.Contains(err.Error(), c.wantKey) {
				t.Fatalf("error %q does not name %q", err, c.wantKey)
			}
		})
	}
}

// A stale [digest] section of a digest that is off must not stop the
// configuration from loading; it is a warning until the digest is enabled.
func TestDisabledDigestSettingsWarnInsteadOfFailing(t *testing.T) {
	doc := "[digest]\nenabled = false\nday = \"someday\"\nhour = 99\n"
	cfg, err := parse([]byte(doc), t.TempDir(), noEnv)
	if err != nil {
		t.Fatalf("a disabled digest's settings must not fail the load: %v", err)
	}
	home := t.TempDir()
	if err := os.WriteFile(FilePath(home), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err = LoadFrom(home); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(cfg.Warnings, "\n"); !strings.Contains(w, "digest.day") || !strings.Contains(w, "enabled = false") {
		t.Fatalf("the bad setting must still be reported as a warning: %q", cfg.Warnings)
	}
	if err := cfg.ValidateDigest(); !errs.Is(err, errs.Invalid) {
		t.Fatalf("ValidateDigest (digest run --force) must refuse it: %v", err)
	}
	// Fixing one key is allowed while another is still bad (only the key
	// written is judged); enabling the digest with a bad day is not.
	if err := SetIn(home, "digest", "hour", 7); err != nil {
		t.Fatalf("fixing digest.hour must be allowed while digest.day is still bad: %v", err)
	}
	if err := SetIn(home, "digest", "enabled", true); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "digest.day") {
		t.Fatalf("enabling a digest with a bad day must be refused naming it: %v", err)
	}
	if err := SetIn(home, "digest", "day", "fri"); err != nil {
		t.Fatal(err)
	}
	if err := SetIn(home, "digest", "enabled", true); err != nil {
		t.Fatalf("enabling after the fix: %v", err)
	}
}

func TestUnknownKeysWarnButLoad(t *testing.T) {
	cfg, err := parse([]byte("[rag]\nstauts = 1\n[future]\nx = 1\n"), t.TempDir(), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if !containsWarning(cfg.Warnings, "rag.stauts") || !containsWarning(cfg.Warnings, "future") {
		t.Fatalf("warnings = %v", cfg.Warnings)
	}
}

func TestLoadFromWarnsWhenReadable(t *testing.T) {
	home := t.TempDir()
	path := FilePath(home)
	if err := os.WriteFile(path, []byte("[chat]\nprovider = \"ollama\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := mustLoad(t, home)
	if !containsWarning(cfg.Warnings, "readable by other users") {
		t.Fatalf("no readable warning: %v", cfg.Warnings)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o644 {
		t.Fatal("Load must never chmod the user's file")
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = mustLoad(t, home)
	if containsWarning(cfg.Warnings, "readable") {
		t.Fatalf("0600 file must not warn: %v", cfg.Warnings)
	}
}

func TestHomeDirHonoursEnv(t *testing.T) {
	t.Setenv("JARVIS_HOME", "/tmp/jarvis-test-home")
	if HomeDir() != "/tmp/jarvis-test-home" {
		t.Fatal(HomeDir())
	}
}

func TestProviderName(t *testing.T) {
	cases := map[string]string{"ollama": "ollama", "ollama:qwen3:30b": "ollama", "Anthropic:claude": "anthropic", " openrouter:a/b:free": "openrouter"}
	for in, want := range cases {
		if got := ProviderName(in); got != want {
			t.Errorf("ProviderName(%q) = %q, want %q", in, got, want)
		}
	}
}

func containsWarning(ws []string, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

// Now reads a hand edit without a restart, and keeps the settings loaded
// at start (with the reason) when the file stops loading.
func TestNowReadsTheFileAsItIs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("JARVIS_HOME", home)
	for _, k := range []string{"OLLAMA_HOST", "OPENROUTER_MODEL", "VAULT_PATH", "PDF_WATCH_DIR"} {
		t.Setenv(k, "")
	}
	start := mustLoad(t, home)
	os.WriteFile(FilePath(home), []byte("[chat]\nresponse_style = \"terse\"\n"), 0o600)
	if now, err := start.Now(); err != nil || now.Chat.ResponseStyle != "terse" || start.Chat.ResponseStyle == "terse" {
		t.Fatalf("edit: %v %q", err, now.Chat.ResponseStyle)
	}
	os.WriteFile(FilePath(home), []byte("[chat\n"), 0o600)
	if now, err := start.Now(); err == nil || now != start {
		t.Fatalf("broken file: %v %p %p", err, now, start)
	}
}
