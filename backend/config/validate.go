package config

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

var weekdays = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// Validate checks every constraint a later component relies on and reports
// the first problem, naming the key in the user's terms ("rag.chunk_size").
// The digest's settings count only while the digest is enabled: a stale
// [digest] section of a digest that is off must not stop everything else
// (Load turns its problems into a warning instead).
func (c *Config) Validate() error {
	if c.Digest.Enabled {
		if err := c.ValidateDigest(); err != nil {
			return err
		}
	}
	checks := []struct {
		key string
		bad bool
		msg string
	}{
		// The servers are checked even with the digest off: the chat's
		// add_document tool fetches arXiv papers from the same address.
		{"digest.arxiv_url", !isHTTPURL(c.Digest.ArxivURL), "must be an http(s) URL"},
		{"digest.biorxiv_url", !isHTTPURL(c.Digest.BiorxivURL), "must be an http(s) URL"},
		{"rag.dir", strings.TrimSpace(c.RAG.Dir) == "", "must not be empty"},
		{"rag.embed_model", strings.TrimSpace(c.RAG.EmbedModel) == "", "must name an embedding model"},
		{"rag.chunk_size", c.RAG.ChunkSize < 64, "must be at least 64 characters"},
		{"rag.chunk_overlap", c.RAG.ChunkOverlap < 0 || c.RAG.ChunkOverlap >= c.RAG.ChunkSize, "must be at least 0 and smaller than rag.chunk_size"},
		{"rag.rerank_top_n", c.RAG.RerankTopN < 1, "must be at least 1"},
		{"rag.rerank_max_tokens", c.RAG.RerankMaxTokens != 0 && c.RAG.RerankMaxTokens < 32, "must be 0 (the model's own limit) or at least 32"},
		{"rag.rerank_precision", c.RAG.RerankPrecision != "int8" && c.RAG.RerankPrecision != "float32", `must be "int8" or "float32"`},
		{"rag.model_idle_minutes", c.RAG.ModelIdleMinutes < 0, "must be 0 (keep the models loaded) or more"},
		{"rag.n_results", c.RAG.NResults < 1, "must be at least 1"},
		{"rag.figure_max_per_doc", c.RAG.FigureMaxPerDoc < 0, "must not be negative"},
		{"rag.figure_min_pixels", c.RAG.FigureMinPixels < 0, "must not be negative"},
		{"chat.compact_after_tokens", c.Chat.CompactAfterTokens < 1000, "must be at least 1000"},
		{"chat.compact_keep_exchanges", c.Chat.CompactKeepExchanges < 1, "must be at least 1"},
		{"chat.max_iterations", c.Chat.MaxIterations < 1 || c.Chat.MaxIterations > 100, "must be between 1 and 100"},
		{"chat.auto_continue", c.Chat.AutoContinue < 0 || c.Chat.AutoContinue > 3, "must be between 0 (always ask) and 3"},
		{"chat.ollama_url", !isHTTPURL(c.Chat.OllamaURL), "must be an http(s) URL"},
		{"anthropic.base_url", !isHTTPURL(c.Anthropic.BaseURL), "must be an http(s) URL"},
		{"openrouter.base_url", !isHTTPURL(c.OpenRouter.BaseURL), "must be an http(s) URL"},
		{"openrouter.data_collection", c.OpenRouter.DataCollection != "deny" && c.OpenRouter.DataCollection != "allow", `must be "deny" or "allow"`},
		{"vault.path", strings.TrimSpace(c.Vault.Path) == "", "must not be empty"},
		{"sync.pdf_watch_minutes", c.Sync.PDFWatchMinutes < 1, "must be at least 1"},
		{"sync.vault_refresh_minutes", c.Sync.VaultRefreshMinutes < 1, "must be at least 1"},
		{"drafts.dir", strings.TrimSpace(c.Drafts.Dir) == "", "must not be empty"},
		{"drafts.max_file_bytes", c.Drafts.MaxFileBytes < 1, "must be at least 1"},
		{"drafts.retention_days", c.Drafts.RetentionDays < 0, "must be 0 (never sweep) or more"},
		{"ledger.keep_days", c.Ledger.KeepDays < 0, "must be 0 (keep no request bodies) or more"},
		{"drafts.gc_hour", c.Drafts.GCHour < 0 || c.Drafts.GCHour > 23, "must be an hour from 0 to 23"},
		{"drafts.compile_timeout_seconds", c.Drafts.CompileTimeoutSeconds < 1, "must be at least 1"},
		{"drafts.pdf_margin", strings.TrimSpace(c.Drafts.PDFMargin) == "", "must be a length such as 2cm"},
	}
	for _, ch := range checks {
		if ch.bad {
			return errs.New(errs.Invalid, "config", "%s %s", ch.key, ch.msg)
		}
	}
	if err := validateProvider(c.Chat.Provider); err != nil {
		return err
	}
	for _, d := range c.Vault.PrivateDirs {
		if d == "" || strings.ContainsAny(d, `/\`) || d == "." || d == ".." {
			return errs.New(errs.Invalid, "config", "vault.private_dirs: %q must be a single top-level folder name", d)
		}
	}
	for _, col := range c.Zotero.PrivateCollections {
		if strings.Trim(col, "/ ") == "" {
			return errs.New(errs.Invalid, "config", "zotero.private_collections: %q must name a collection, e.g. \"Grants\" or \"Lab/Reviews\"", col)
		}
	}
	for _, l := range c.PDF.OCRLanguages {
		if l == "" || strings.ContainsAny(l, `/\ +.`) {
			return errs.New(errs.Invalid, "config", "pdf.ocr_languages: %q must be a Tesseract language code such as eng, deu or chi_sim", l)
		}
	}
	for _, pat := range c.Vault.Exclude {
		if strings.TrimSpace(pat) == "" || strings.HasPrefix(pat, "/") || strings.Contains(pat, `\`) {
			return errs.New(errs.Invalid, "config", "vault.exclude: %q must be a vault-relative folder or glob using /", pat)
		}
		if _, err := path.Match(pat, ""); err != nil {
			return errs.New(errs.Invalid, "config", "vault.exclude: %q is not a valid glob", pat)
		}
	}
	for _, ext := range c.Drafts.Extensions {
		if !strings.HasPrefix(ext, ".") || len(ext) < 2 || strings.ContainsAny(ext, `/\ `) {
			return errs.New(errs.Invalid, "config", "drafts.extensions: %q must look like .md", ext)
		}
	}
	for provider := range c.Models {
		if !slices.Contains(KnownProviders, provider) {
			return errs.New(errs.Invalid, "config", "models.%s: unknown provider (known: %s)", provider, strings.Join(KnownProviders, ", "))
		}
	}
	return nil
}

// ValidateDigest checks the [digest] settings: Validate when the digest is
// enabled, and anything that runs a digest anyway (`digest run --force`).
func (c *Config) ValidateDigest() error {
	if p := c.digestProblems(); len(p) > 0 {
		return p[0].err
	}
	return nil
}

// keyProblem is one invalid setting.
type keyProblem struct {
	key string
	err error
}

// digestProblems lists every invalid [digest] setting.
func (c *Config) digestProblems() []keyProblem {
	var out []keyProblem
	bad := func(key, format string, args ...any) {
		out = append(out, keyProblem{key, errs.New(errs.Invalid, "config", "%s "+format, append([]any{key}, args...)...)})
	}
	if c.Digest.MaxResults < 1 {
		bad("digest.max_results", "must be at least 1")
	}
	if c.Digest.BiorxivDays < 1 {
		bad("digest.biorxiv_days", "must be at least 1")
	}
	if !slices.Contains(weekdays, strings.ToLower(c.Digest.Day)) {
		bad("digest.day", "must be one of %s", strings.Join(weekdays, ", "))
	}
	if c.Digest.Hour < 0 || c.Digest.Hour > 23 {
		bad("digest.hour", "must be an hour from 0 to 23")
	}
	for key, q := range map[string][]Quota{"digest.arxiv_categories": c.Digest.ArxivCategories,
		"digest.biorxiv_categories": c.Digest.BiorxivCategories, "digest.biorxiv_keywords": c.Digest.BiorxivKeywords} {
		for _, item := range q {
			if strings.TrimSpace(item.Name) == "" || item.Limit < 1 {
				bad(key, "entry %q: needs a name and a limit of at least 1", item.Name)
			}
		}
	}
	return out
}

func validateProvider(spec string) error {
	name := ProviderName(spec)
	if !slices.Contains(KnownProviders, name) {
		return errs.New(errs.Invalid, "config", "chat.provider %q: unknown provider (known: %s; optionally provider:model)",
			spec, strings.Join(KnownProviders, ", "))
	}
	return nil
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Summary is a human-readable digest of the effective settings with secrets
// reduced to "set"/"not set", for `doctor` and the settings screen.
func (c *Config) Summary() []string {
	secret := func(s string) string {
		if s == "" {
			return "not set"
		}
		return "set"
	}
	return []string{
		fmt.Sprintf("config file: %s", c.File),
		fmt.Sprintf("data dir: %s", c.Home),
		fmt.Sprintf("provider: %s", c.Chat.Provider),
		fmt.Sprintf("ollama: %s (%s)", c.Chat.OllamaModel, c.Chat.OllamaURL),
		fmt.Sprintf("anthropic: %s, key %s", c.Chat.AnthropicModel, secret(c.Anthropic.APIKey)),
		fmt.Sprintf("openrouter: model %q, key %s, data_collection=%s", c.OpenRouter.Model, secret(c.OpenRouter.APIKey), c.OpenRouter.DataCollection),
		fmt.Sprintf("vault: %s (private: %s)", c.Vault.Path, strings.Join(c.Vault.PrivateDirs, ", ")),
		fmt.Sprintf("knowledge base: %s (embed %s, rerank %q, hybrid %v)", c.RAG.Dir, c.RAG.EmbedModel, c.RAG.RerankModel, c.RAG.Hybrid),
		fmt.Sprintf("digest: enabled=%v", c.Digest.Enabled),
		fmt.Sprintf("drafts: %s (retention %d days)", c.Drafts.Dir, c.Drafts.RetentionDays),
		fmt.Sprintf("zotero: %s (private collections: %s)", cmp.Or(c.Zotero.DataDir, "not chosen"), cmp.Or(strings.Join(c.Zotero.PrivateCollections, ", "), "none")),
		fmt.Sprintf("ocr: %v (languages: %s)", c.PDF.OCR, cmp.Or(strings.Join(c.PDF.OCRLanguages, "+"), "all installed")),
	}
}
