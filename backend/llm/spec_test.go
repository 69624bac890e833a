package llm

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestIsCloudFailsClosed(t *testing.T) {
	cases := map[string]bool{
		"ollama": false, "ollama:qwen3-vl:30b": false, "OLLAMA:x": false,
		"anthropic": true, "anthropic:claude-sonnet-4-6": true, "openrouter:meta/llama-4:free": true,
		"gemini": true, "": true, "ollamax": true,
	}
	for spec, want := range cases {
		if got := IsCloud(spec); got != want {
			t.Errorf("IsCloud(%q) = %v, want %v", spec, got, want)
		}
	}
}

func TestResolveAndSwitchValidation(t *testing.T) {
	cfg := config.Defaults()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if s, err := Resolve(&cfg, "ollama"); err != nil || s.Model != "qwen3-vl:30b" {
		t.Fatalf("%v %v", s, err)
	}
	if s := ParseSpec("openrouter:meta/llama-4:free"); s.Provider != "openrouter" || s.Model != "meta/llama-4:free" {
		t.Fatalf("split on first colon only: %+v", s)
	}
	if _, err := Resolve(&cfg, "openrouter"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("bare openrouter without a model must be refused: %v", err)
	}
	if _, err := ValidateSwitch(&cfg, "gemini:x", false, getenv); !errs.Is(err, errs.Invalid) {
		t.Fatalf("unknown provider: %v", err)
	}
	if _, err := ValidateSwitch(&cfg, "anthropic", false, getenv); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "API key") {
		t.Fatalf("missing credentials: %v", err)
	}
	env["ANTHROPIC_API_KEY"] = "sk-ant-0123456789"
	if _, err := ValidateSwitch(&cfg, "anthropic", false, getenv); err != nil {
		t.Fatalf("valid switch: %v", err)
	}
	if _, err := ValidateSwitch(&cfg, "anthropic", true, getenv); !errs.Is(err, errs.Privacy) {
		t.Fatalf("private session to cloud must be refused: %v", err)
	}
	if _, err := ValidateSwitch(&cfg, "ollama:llama3", true, getenv); err != nil {
		t.Fatalf("private session may use a local model: %v", err)
	}
}

func TestCatalogue(t *testing.T) {
	cfg := config.Defaults()
	cfg.Models = map[string][]string{"openrouter": {"a/b"}, "ollama": {"qwen3-vl:30b", "llama3:8b"}}
	got := Catalogue(&cfg, "ollama:llama3:8b", func(string) string { return "" })
	specs := map[string]CatalogueEntry{}
	for _, e := range got {
		specs[e.Spec] = e
	}
	if len(got) != 4 {
		t.Fatalf("duplicates must collapse: %+v", got)
	}
	if !specs["ollama:llama3:8b"].Current || !specs["ollama:llama3:8b"].Local {
		t.Fatalf("current/local flags: %+v", specs["ollama:llama3:8b"])
	}
	if specs["openrouter:a/b"].Available || specs["openrouter:a/b"].Local {
		t.Fatalf("openrouter without key must be unavailable and cloud: %+v", specs["openrouter:a/b"])
	}
}

func TestRedactSecrets(t *testing.T) {
	cfg := config.Defaults()
	cfg.Anthropic.APIKey = "sk-ant-config-key-1"
	env := map[string]string{"OPENROUTER_API_KEY": "sk-or-env-key-22", "HF_TOKEN": "short"}
	secrets := Secrets(&cfg, func(k string) string { return env[k] })
	msg := "401 for sk-ant-config-key-1 and sk-or-env-key-22; short stays"
	got := RedactSecrets(msg, secrets)
	if strings.Contains(got, "sk-ant-config-key-1") || strings.Contains(got, "sk-or-env-key-22") {
		t.Fatalf("secret leaked: %q", got)
	}
	if !strings.Contains(got, "short stays") {
		t.Fatalf("short values must be ignored: %q", got)
	}
	if RedactSecrets("abc", []string{"a"}) != "abc" {
		t.Fatal("one-character secrets must not blank text")
	}
	// Longer secret that contains a shorter one is removed whole.
	if got := RedactSecrets("k=ABCDEFGH-IJKLMNOP", []string{"ABCDEFGH", "ABCDEFGH-IJKLMNOP"}); got != "k="+Redacted {
		t.Fatalf("overlap: %q", got)
	}
}

func TestMakeProvider(t *testing.T) {
	cfg := config.Defaults()
	p, err := MakeProvider(&cfg, "ollama:llama3:8b", Options{Ledger: testLedger(t)})
	if err != nil || p.Name() != "ollama" || p.Model() != "llama3:8b" {
		t.Fatalf("%v %v", p, err)
	}
	if p.PopUsage() != nil {
		t.Fatal("local provider reports no cost")
	}
	if _, err := MakeProvider(&cfg, "nope", Options{Ledger: testLedger(t)}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("unknown provider: %v", err)
	}
}

// TestMain shortens the retry backoff: the policy's shape is under test,
// not its wall-clock waits.
func TestMain(m *testing.M) {
	retryPolicy.initial, retryPolicy.maxAt = 5*time.Millisecond, 20*time.Millisecond
	os.Exit(m.Run())
}
