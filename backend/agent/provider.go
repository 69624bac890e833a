package agent

import (
	"context"
	"net/http"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// ProviderStatus says whether the configured chat model can answer, for
// doctor and the window's setup panel.
type ProviderStatus struct {
	Spec      string   `json:"spec"`
	Provider  string   `json:"provider"`
	Model     string   `json:"model"`
	Cloud     bool     `json:"cloud"`
	Ready     bool     `json:"ready"`
	Problem   error    `json:"-"`
	Installed []string `json:"installed,omitempty"` // Ollama: the models pulled
}

// CheckProvider checks the default chat model: for Ollama that the server
// answers at the configured address and has the model pulled (one local
// request, a few seconds at most); for a cloud provider that its key is set
// (no request is made).
func CheckProvider(ctx context.Context, cfg *config.Config, getenv func(string) string) ProviderStatus {
	spec, err := llm.Resolve(cfg, cfg.Chat.Provider)
	st := ProviderStatus{Spec: spec.String(), Provider: spec.Provider, Model: spec.Model, Cloud: llm.IsCloud(spec.String())}
	if err != nil {
		st.Problem = err
		return st
	}
	if st.Cloud {
		if _, err := llm.ValidateSwitch(cfg, st.Spec, false, getenv); err != nil {
			st.Problem = err
			return st
		}
		st.Ready = true
		return st
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	st.Installed, st.Problem = llm.InstalledModels(ctx, &http.Client{}, cfg.Chat.OllamaURL)
	if st.Problem != nil {
		return st
	}
	if !llm.HasModel(st.Installed, st.Model) {
		st.Problem = errs.WithHint(errs.New(errs.NotFound, "ollama", "Ollama runs at %s but the model %s is not pulled", cfg.Chat.OllamaURL, st.Model),
			"run `ollama pull "+st.Model+"`, or pick one of the installed models")
		return st
	}
	st.Ready = true
	return st
}
