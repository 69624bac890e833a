package llm

import (
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Spec is a parsed "provider[:model]" string.
type Spec struct {
	Provider string
	Model    string
}

// ParseSpec splits on the first colon only: Ollama tags ("qwen3-vl:30b") and
// OpenRouter ids ("meta/llama-4:free") carry colons of their own.
func ParseSpec(spec string) Spec {
	name, model, _ := strings.Cut(strings.TrimSpace(spec), ":")
	return Spec{Provider: strings.ToLower(name), Model: model}
}

func (s Spec) String() string {
	if s.Model == "" {
		return s.Provider
	}
	return s.Provider + ":" + s.Model
}

// IsCloud reports whether a provider spec sends data off the machine. It is
// the single privacy predicate: everything that is not Ollama is cloud, and
// an unknown or empty name fails closed.
func IsCloud(spec string) bool {
	return ParseSpec(spec).Provider != "ollama"
}

// Resolve fills in a spec's model from the configuration when it has none.
func Resolve(cfg *config.Config, spec string) (Spec, error) {
	s := ParseSpec(spec)
	if !slices.Contains(config.KnownProviders, s.Provider) {
		return s, errs.New(errs.Invalid, "llm", "unknown provider %q (known: %s)", s.Provider, strings.Join(config.KnownProviders, ", "))
	}
	if s.Model != "" {
		return s, nil
	}
	switch s.Provider {
	case "ollama":
		s.Model = cfg.Chat.OllamaModel
	case "anthropic":
		s.Model = cfg.Chat.AnthropicModel
	case "openrouter":
		s.Model = cfg.OpenRouter.Model
		if s.Model == "" {
			return s, errs.WithHint(errs.New(errs.Invalid, "llm", "openrouter needs a model: there is no sensible default for a broker"),
				"set openrouter.model, OPENROUTER_MODEL, or pick openrouter:<model>")
		}
	}
	return s, nil
}

// CatalogueEntry is one switchable model for the picker.
type CatalogueEntry struct {
	Spec      string `json:"spec"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Local     bool   `json:"local"`
	Available bool   `json:"available"` // credentials present (always true for local)
	Current   bool   `json:"current"`
}

// Catalogue lists the user's [models] entries plus each provider's configured
// default. It reads config only: opening the picker makes no request.
func Catalogue(cfg *config.Config, current string, getenv func(string) string) []CatalogueEntry {
	seen := map[string]bool{}
	var out []CatalogueEntry
	add := func(provider, model string) {
		if model == "" {
			return
		}
		s := Spec{Provider: provider, Model: model}.String()
		if seen[s] {
			return
		}
		seen[s] = true
		out = append(out, CatalogueEntry{
			Spec: s, Provider: provider, Model: model, Local: !IsCloud(s),
			Available: HasCredentials(cfg, provider, getenv), Current: s == current,
		})
	}
	add("ollama", cfg.Chat.OllamaModel)
	add("anthropic", cfg.Chat.AnthropicModel)
	add("openrouter", cfg.OpenRouter.Model)
	for _, p := range config.KnownProviders {
		for _, m := range cfg.Models[p] {
			add(p, m)
		}
	}
	return out
}

// HasCredentials reports whether provider can be called: a key in the
// config or the environment for a cloud provider; Ollama needs none.
func HasCredentials(cfg *config.Config, provider string, getenvFn func(string) string) bool {
	switch provider {
	case "ollama":
		return true
	case "anthropic":
		return firstNonEmpty(cfg.Anthropic.APIKey, getenv(getenvFn, "ANTHROPIC_API_KEY")) != ""
	case "openrouter":
		return firstNonEmpty(cfg.OpenRouter.APIKey, getenv(getenvFn, "OPENROUTER_API_KEY")) != ""
	}
	return false
}

// ValidateSwitch checks a model switch for a session: the provider must be
// known and have credentials, and a private session may never move to a
// cloud model, because its transcript already holds private content.
func ValidateSwitch(cfg *config.Config, spec string, sessionPrivate bool, getenv func(string) string) (Spec, error) {
	s, err := Resolve(cfg, spec)
	if err != nil {
		return s, err
	}
	if sessionPrivate && IsCloud(s.String()) {
		return s, errs.New(errs.Privacy, "llm.switch", "this session contains private notes and cannot move to the cloud model %s", s)
	}
	if !HasCredentials(cfg, s.Provider, getenv) {
		return s, errs.WithHint(errs.New(errs.Invalid, "llm.switch", "no API key configured for %s", s.Provider),
			"set "+strings.ToUpper(s.Provider)+"_API_KEY or ["+s.Provider+"] api_key")
	}
	return s, nil
}
