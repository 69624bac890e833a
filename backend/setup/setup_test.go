package setup

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

func fresh(t *testing.T) *config.Config {
	t.Helper()
	for _, k := range []string{"VAULT_PATH", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "OLLAMA_HOST", "CHAT_PROVIDER"} {
		t.Setenv(k, "")
	}
	return configtest.WithFile(t, "# my settings\n[chat]\nresponse_style = \"brief\" # keep\n")
}

// ollama answers /api/tags like a real server with the given models.
func ollama(t *testing.T, names ...string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/tags" {
			http.NotFound(w, r)
			return
		}
		var parts []string
		for _, n := range names {
			parts = append(parts, `{"name":"`+n+`","model":"`+n+`","size":1}`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"models":[` + strings.Join(parts, ",") + `]}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestFirstRunFromNothingToComplete(t *testing.T) {
	cfg := fresh(t)
	ctx := context.Background()
	cfg.Chat.OllamaURL = "http://127.0.0.1:1"
	st := Inspect(ctx, cfg, nil, os.Getenv)
	if st.Complete || st.Vault.Exists || st.Issues["vault"].Message == "" || st.Issues["chat"].Message == "" || st.Issues["models"].Message == "" {
		t.Fatalf("fresh state: %+v", st)
	}
	if !strings.Contains(st.Issues["chat"].Details, "not running") {
		t.Fatalf("chat details: %+v", st.Issues["chat"])
	}
	if st.Ollama.Running || st.Ollama.Problem != "Ollama is not running at http://127.0.0.1:1." || !strings.Contains(st.Ollama.Hint, "ollama serve") {
		t.Fatalf("ollama: %+v", st.Ollama)
	}

	// The vault: refused when missing, relative or overlapping the data dir.
	if err := SetVault(cfg, "notes"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("relative: %v", err)
	}
	if err := SetVault(cfg, filepath.Join(t.TempDir(), "missing")); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing: %v", err)
	}
	if err := SetVault(cfg, cfg.Home); !errs.Is(err, errs.Invalid) {
		t.Fatalf("data dir: %v", err)
	}
	vault := t.TempDir()
	for _, d := range []string{"journal", "work", ".obsidian"} {
		os.MkdirAll(filepath.Join(vault, d), 0o755)
	}
	if err := SetVault(cfg, vault); err != nil {
		t.Fatal(err)
	}
	if err := SetPrivateDirs(cfg, []string{"journal", " journal "}); err != nil {
		t.Fatal(err)
	}
	if err := SetPrivateDirs(cfg, []string{"a/b"}); !errs.Is(err, errs.Invalid) || len(cfg.Vault.PrivateDirs) != 1 {
		t.Fatalf("nested private dir: %v %v", err, cfg.Vault.PrivateDirs)
	}

	// The chat model: Ollama with its installed models.
	cfg.Chat.OllamaURL = ollama(t, "llama3.2:latest", "qwen3:8b")
	st = Inspect(ctx, cfg, nil, os.Getenv)
	if st.Chat.Ready || !strings.Contains(st.Issues["chat"].Details, "not pulled") || len(st.Chat.Installed) != 2 {
		t.Fatalf("ollama without the configured model: %+v", st.Chat)
	}
	if !st.Ollama.Running || strings.Join(st.Ollama.Models, ",") != "llama3.2:latest,qwen3:8b" || st.Ollama.Problem != "" {
		t.Fatalf("ollama runs: %+v", st.Ollama)
	}
	if err := SetChat(cfg, "ollama", "llama3.2"); err != nil {
		t.Fatal(err)
	}

	// The models: fixture folders stand in for a download.
	dir := t.TempDir()
	embedtest.WriteEmbedder(filepath.Join(dir, "bow"), embedtest.Words("words"))
	embedtest.WriteReranker(filepath.Join(dir, "rr"), embedtest.Words("words"))
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = filepath.Join(dir, "bow"), filepath.Join(dir, "rr")
	eng, err := engine.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	st = Inspect(ctx, cfg, eng, os.Getenv)
	if !st.Complete || !st.Chat.Ready || !st.Vault.Exists || strings.Join(st.Vault.Folders, ",") != "journal,work" || st.Search.Mode != "hybrid (keyword + dense) + rerank" {
		t.Fatalf("complete state: %+v", st)
	}

	// Every choice went through the comment-preserving writer and reloads.
	doc, _ := os.ReadFile(filepath.Join(cfg.Home, "config.toml"))
	for _, want := range []string{"# my settings", `response_style = "brief" # keep`, "path = '" + vault + "'", "private_dirs = ['journal']", "ollama_model = 'llama3.2'", "provider = 'ollama'"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("config.toml lacks %q:\n%s", want, doc)
		}
	}
	again, err := config.Load()
	if err != nil || again.Vault.Path != vault || again.Chat.OllamaModel != "llama3.2" {
		t.Fatalf("reloaded: %v %+v", err, again.Vault)
	}
}

func TestAPIKeyIsStoredPrivatelyAndNeverEchoed(t *testing.T) {
	cfg := fresh(t)
	const key = "sk-ant-api03-Secret-Key-Value_123"
	if err := SetAPIKey(cfg, "anthropic", key); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(cfg.Home, "config.toml"))
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", info.Mode().Perm())
	}
	if err := SetChat(cfg, "anthropic", "claude-sonnet-4-5"); err != nil {
		t.Fatal(err)
	}
	cfg.Chat.OllamaURL = ollama(t, "llama3.2:latest")
	st := Inspect(context.Background(), cfg, nil, func(string) string { return "" })
	if !st.Keys["anthropic"] || st.Keys["openrouter"] || !st.Chat.Ready || !st.Chat.Cloud {
		t.Fatalf("state: %+v", st)
	}
	// With a cloud default, Ollama is still asked, so the panel can offer it.
	if !st.Ollama.Running || strings.Join(st.Ollama.Models, ",") != "llama3.2:latest" {
		t.Fatalf("ollama beside a cloud default: %+v", st.Ollama)
	}
	// The state the window receives never carries the key.
	if strings.Contains(strings.Join([]string{st.Chat.Spec, st.Issues["chat"].Details, st.Vault.Path}, " "), key) {
		t.Fatal("key in the state")
	}
	if err := SetAPIKey(cfg, "anthropic", "two words"); err == nil || strings.Contains(err.Error(), "two words") {
		t.Fatalf("bad key: %v", err)
	}
	if err := SetAPIKey(cfg, "ollama", "x"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("ollama key: %v", err)
	}
}
