package llm

import (
	"net/http"
	"os"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// Options are the collaborators a provider may need beyond config.
type Options struct {
	Getenv        func(string) string
	SummaryPrompt func() (string, error)
	ConvertPDF    func(path string) (string, error)
	HTTPClient    *http.Client
	// Ledger records every request; a provider is not built without one.
	Ledger *ledger.Ledger
}

// MakeProvider builds the provider for a "provider[:model]" spec.
func MakeProvider(cfg *config.Config, spec string, opt Options) (Provider, error) {
	s, err := Resolve(cfg, spec)
	if err != nil {
		return nil, err
	}
	client := opt.HTTPClient
	if client == nil {
		// No overall timeout: a turn streams for as long as the model talks.
		// Stopping is the cancel token's job.
		client = &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 10 * time.Minute, Proxy: http.ProxyFromEnvironment}}
	}
	if opt.Ledger == nil {
		return nil, errs.New(errs.Internal, "llm.MakeProvider", "no ledger to record requests in")
	}
	redact := Redactor(Secrets(cfg, opt.Getenv)).Redact
	switch s.Provider {
	case "ollama":
		return &Ollama{BaseURL: cfg.Chat.OllamaURL, ModelID: s.Model, Client: client, Redact: redact, Ledger: opt.Ledger,
			SummaryPrompt: opt.SummaryPrompt, ConvertPDF: opt.ConvertPDF}, nil
	case "anthropic":
		key := firstNonEmpty(cfg.Anthropic.APIKey, getenv(opt.Getenv, "ANTHROPIC_API_KEY"))
		if key == "" {
			return nil, errs.WithHint(errs.New(errs.Invalid, "llm.MakeProvider", "no Anthropic API key"), "set ANTHROPIC_API_KEY or [anthropic] api_key")
		}
		return &Anthropic{BaseURL: cfg.Anthropic.BaseURL, APIKey: key, ModelID: s.Model, Client: client, Redact: redact, Ledger: opt.Ledger,
			SummaryPrompt: opt.SummaryPrompt}, nil
	default: // openrouter: Resolve admits only known providers
		key := firstNonEmpty(cfg.OpenRouter.APIKey, getenv(opt.Getenv, "OPENROUTER_API_KEY"))
		if key == "" {
			return nil, errs.WithHint(errs.New(errs.Invalid, "llm.MakeProvider", "no OpenRouter API key"), "set OPENROUTER_API_KEY or [openrouter] api_key")
		}
		return &OpenRouter{BaseURL: cfg.OpenRouter.BaseURL, APIKey: key, ModelID: s.Model, Client: client, Redact: redact, Ledger: opt.Ledger,
			Routing:       Routing{DataCollection: cfg.OpenRouter.DataCollection, AllowFallbacks: cfg.OpenRouter.AllowFallbacks, Only: cfg.OpenRouter.Only},
			SummaryPrompt: opt.SummaryPrompt, ConvertPDF: opt.ConvertPDF}, nil
	}
}

func getenv(fn func(string) string, name string) string {
	if fn == nil {
		return os.Getenv(name)
	}
	return fn(name)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
