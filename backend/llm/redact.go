package llm

import (
	"sort"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/config"
)

// minSecretLen: shorter values are ignored so a one-character "key" cannot
// blank out whole messages.
const minSecretLen = 8

// Redacted replaces a secret in text.
const Redacted = "[REDACTED]"

// secretEnv lists variables that may hold credentials even when config does
// not: SDK clients read them straight from the environment.
var secretEnv = []string{"ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "HF_TOKEN"}

// Secrets collects every credential Jarvis knows of, from config and the
// environment.
func Secrets(cfg *config.Config, getenv func(string) string) []string {
	var out []string
	if cfg != nil {
		out = append(out, cfg.Anthropic.APIKey, cfg.OpenRouter.APIKey)
	}
	if getenv != nil {
		for _, name := range secretEnv {
			out = append(out, getenv(name))
		}
	}
	return out
}

// RedactSecrets blanks every secret out of text. Longer secrets are replaced
// first so one that contains another is removed whole.
func RedactSecrets(text string, secrets []string) string {
	keep := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if len(s) >= minSecretLen {
			keep = append(keep, s)
		}
	}
	sort.Slice(keep, func(i, j int) bool { return len(keep[i]) > len(keep[j]) })
	for _, s := range keep {
		text = strings.ReplaceAll(text, s, Redacted)
	}
	return text
}

// Redactor is RedactSecrets bound to a fixed secret list.
type Redactor []string

// Redact applies the bound secrets.
func (r Redactor) Redact(text string) string { return RedactSecrets(text, r) }
