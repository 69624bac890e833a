package llm

import (
	"net/http"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Options are the collaborators a provider may need beyond config.
type Options struct {
	Getenv        func(string) string
	SummaryPrompt func() (string, error)
	ConvertPDF    func(path string) (string, error)
	HTTPClient    *http.Client
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
	redact := Redactor(Secrets(cfg, opt.Getenv)).Redact
	switch s.Provider {
	case "ollama":
		return &Ollama{BaseURL: cfg.Chat.OllamaURL, ModelID: s.Model, Client: client, Redact: redact,
			SummaryPrompt: opt.SummaryPrompt, ConvertPDF: opt.ConvertPDF}, nil
	default:
		// Resolve accepted the name, so this is a known cloud provider whose
		// adapter has not landed yet: refuse clearly rather than guess.
		return nil, errs.New(errs.Invalid, "llm.MakeProvider", "the %s adapter is not available in this build yet; use ollama", s.Provider)
	}
}
