package setup

import (
	"cmp"
	"context"
	"slices"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/models"
)

// EmbeddingState is the choice of embedding model, with what the panel
// needs to suggest one: the languages the vault is written in.
type EmbeddingState struct {
	Options []EmbedOption `json:"options"`
	// Languages of a sample of the stored chunks, most first.
	Languages []LanguageShare `json:"languages"`
	Sampled   int             `json:"sampled"`
	// Suggest is the model the panel proposes, when it is not the one
	// chosen; Why says why in one sentence.
	Suggest string `json:"suggest,omitempty"`
	Why     string `json:"why,omitempty"`
	// RerankEnglishOnly: the configured reranker ranks English only and
	// the vault is not mostly English, which the panel says.
	RerankEnglishOnly bool `json:"rerank_english_only"`
}

// EmbedOption is one embedding model of the manifest.
type EmbedOption struct {
	ID           string `json:"id"`
	Multilingual bool   `json:"multilingual"`
	Note         string `json:"note,omitempty"`
	License      string `json:"license"`
	Installed    bool   `json:"installed"`
	Chosen       bool   `json:"chosen"`
}

// LanguageShare is how many sampled chunks are in one language.
type LanguageShare struct {
	Lang   string `json:"lang"` // "en", "zh", "de"…
	Chunks int    `json:"chunks"`
}

// languageSample is how many chunks the suggestion looks at: enough for a
// share to within a few percent, cheap enough for each panel refresh.
const languageSample = 400

// suggestBelow: when fewer than this share of the sampled chunks are
// English, the multilingual model is suggested. An English-only model
// embeds Chinese or Russian text as noise, so a quarter of the vault in
// other languages is already a quarter that meaning-based search misses.
const suggestBelow = 0.75

// minSample is the fewest chunks a suggestion is made on.
const minSample = 20

// inspectEmbedding fills the embedding choice; store may be nil.
func inspectEmbedding(ctx context.Context, cfg *config.Config, store *kb.Store) (EmbeddingState, error) {
	m, err := models.Load()
	if err != nil {
		return EmbeddingState{}, err
	}
	var st EmbeddingState
	multi := ""
	for _, model := range m.Models {
		if model.Role != "embed" {
			continue
		}
		o := EmbedOption{ID: model.ID, Multilingual: model.Languages == "multilingual", Note: model.Note, License: model.License,
			Installed: models.Inspect(cfg.RAG.ModelsDir, model).Installed, Chosen: model.ID == cfg.RAG.EmbedModel}
		if o.Multilingual && multi == "" {
			multi = model.ID
		}
		st.Options = append(st.Options, o)
	}
	if store == nil {
		return st, nil
	}
	counts, err := store.Languages(ctx, languageSample)
	if err != nil {
		return st, err
	}
	for l, n := range counts {
		st.Languages = append(st.Languages, LanguageShare{Lang: l, Chunks: n})
		st.Sampled += n
	}
	slices.SortFunc(st.Languages, func(a, b LanguageShare) int { return cmp.Or(b.Chunks-a.Chunks, cmp.Compare(a.Lang, b.Lang)) })
	english := float64(counts["en"]) / float64(max(st.Sampled, 1))
	if st.Sampled < minSample || english >= suggestBelow {
		return st, nil
	}
	if chosen, err := m.Find(cfg.RAG.EmbedModel); err != nil || chosen.Languages != "multilingual" {
		if multi != "" {
			st.Suggest = multi
			st.Why = "Much of your vault is not in English, and the English model finds it by keyword only: a multilingual model finds it by meaning too."
		}
	}
	if r, err := m.Find(cfg.RAG.RerankModel); err == nil && r.Languages == "en" {
		st.RerankEnglishOnly = true
	}
	return st, nil
}

// SetEmbedModel chooses the embedding model: a manifest id of role embed.
// The running engine switches when the model is installed (the old vectors
// serve until the new ones are filled in); the caller reloads the models.
func SetEmbedModel(cfg *config.Config, id string) error {
	const op = "setup.SetEmbedModel"
	m, err := models.Load()
	if err != nil {
		return err
	}
	model, err := m.Find(id)
	if err != nil {
		return err
	}
	if model.Role != "embed" {
		return errs.New(errs.Invalid, op, "%s is a %s model, not an embedding model", id, model.Role)
	}
	if err := config.SetIn(cfg.Home, "rag", "embed_model", id); err != nil {
		return err
	}
	cfg.RAG.EmbedModel = id
	return nil
}
