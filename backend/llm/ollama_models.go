package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// InstalledModels lists the models pulled into the Ollama server at
// baseURL (GET /api/tags), for the setup panel's picker and doctor.
func InstalledModels(ctx context.Context, client *http.Client, baseURL string) ([]string, error) {
	const op = "ollama.models"
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/api/tags", nil)
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, op, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, errs.WithHint(errs.Wrapf(errs.LLM, op, err, "Ollama is not running at %s", baseURL),
			"install it from https://ollama.com, then start it with `ollama serve` (or open the Ollama app)")
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errs.New(errs.LLM, op, "Ollama at %s answered %s", baseURL, resp.Status)
	}
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return nil, errs.Wrapf(errs.LLM, op, err, "Ollama at %s sent an unreadable model list", baseURL)
	}
	out := make([]string, 0, len(tags.Models))
	for _, m := range tags.Models {
		name := m.Name
		if name == "" {
			name = m.Model
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out, nil
}

// HasModel reports whether name is among installed, where Ollama's
// implicit ":latest" tag makes "llama3" and "llama3:latest" the same.
func HasModel(installed []string, name string) bool {
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	for _, m := range installed {
		if norm(m) == norm(name) {
			return true
		}
	}
	return false
}
