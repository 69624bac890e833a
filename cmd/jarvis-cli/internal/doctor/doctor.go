// Package doctor implements `jarvis-cli doctor`: one command that says what
// is set up, what is missing and what to do about it.
package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/backend/prompts"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// New builds the doctor command.
func New(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check configuration, data directories, prompts and models",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return Run(io, load)
		},
	}
}

// Run performs the checks and returns an error when any of them failed.
func Run(io *iostreams.IO, load func() (*config.Config, error)) error {
	problems := 0
	ok := func(format string, args ...any) { fmt.Fprintf(io.Out, "ok    "+format+"\n", args...) }
	warn := func(format string, args ...any) { fmt.Fprintf(io.Out, "warn  "+format+"\n", args...) }
	fail := func(format string, args ...any) {
		problems++
		fmt.Fprintf(io.Out, "FAIL  "+format+"\n", args...)
	}

	cfg, err := load()
	if err != nil {
		fail("configuration: %v", err)
		return errs.New(errs.Invalid, "doctor", "configuration is invalid; fix it and run doctor again")
	}
	ok("configuration loaded from %s", cfg.File)
	for _, w := range cfg.Warnings {
		warn("%s", w)
	}

	if st, err := os.Stat(cfg.Home); err != nil {
		warn("data dir %s does not exist yet (created on first use)", cfg.Home)
	} else if st.Mode().Perm()&0o077 != 0 {
		warn("data dir %s has mode %#o; it holds private notes, consider chmod 700", cfg.Home, st.Mode().Perm())
	} else {
		ok("data dir %s (mode %#o)", cfg.Home, st.Mode().Perm())
	}

	store := prompts.Store{Dir: cfg.PromptsDir()}
	if list, err := store.List(); err != nil {
		fail("prompts: %v", err)
	} else {
		for _, p := range list {
			state := "default"
			if p.Modified {
				state = "edited"
			}
			ok("prompt %s (%s)", p.Name, state)
		}
	}

	manifest, err := models.Load()
	if err != nil {
		fail("model manifest: %v", err)
	} else {
		ids := []string{cfg.RAG.EmbedModel}
		if cfg.RAG.RerankModel != "" {
			ids = append(ids, cfg.RAG.RerankModel)
		} else {
			warn("reranking disabled (rag.rerank_model is empty)")
		}
		for _, id := range ids {
			if filepath.IsAbs(id) {
				ok("model folder %s (not in the manifest; not hash-checked)", id)
				continue
			}
			model, err := manifest.Find(id)
			if err != nil {
				fail("%v", err)
				continue
			}
			if st := models.Inspect(cfg.RAG.ModelsDir, model); !st.Installed {
				fail("model %s not installed in %s: run `jarvis-cli models fetch` or `jarvis-cli models install-offline --from DIR`", id, st.Dir)
			} else if err := models.Verify(cfg.RAG.ModelsDir, model); err != nil {
				fail("%v", err)
			} else {
				ok("model %s (%s)", id, model.Role)
			}
		}
	}

	// Load the models and the store for real, and run one probe search.
	if e, err := engine.Open(cfg); err != nil {
		fail("knowledge base: %v", err) // the error carries its hint
	} else {
		info := e.Embedder.Info()
		ok("embedder %s: %d dims, %s backend", info.ID, info.Dims, e.Embedder.Backend())
		if e.Reranker != nil {
			ok("reranker %s", cfg.RAG.RerankModel)
		}
		if c, err := e.Store.Count(context.Background()); err != nil {
			fail("store: %v", err)
		} else {
			ok("store %s: %d documents, %d chunks (%d private)", cfg.RAG.Dir, c.Documents, c.Chunks, c.Private)
		}
		start := time.Now()
		if hits, err := e.Searcher.Search(context.Background(), "probe", 1, kb.Filter{}); err != nil {
			fail("probe search: %v", err)
		} else {
			ok("probe search: %d hit(s) in %s", len(hits), time.Since(start).Round(time.Millisecond))
		}
		e.Close()
	}

	// SQLite's own check of the store file, without the models.
	switch err := kb.CheckIntegrity(context.Background(), kb.StorePath(cfg.RAG.Dir), false); {
	case errs.Is(err, errs.NotFound):
		warn("store integrity: no knowledge base yet in %s", cfg.RAG.Dir)
	case err != nil:
		fail("store integrity: %v", err)
	default:
		ok("store integrity: ok (PRAGMA integrity_check)")
	}

	if _, err := os.Stat(cfg.Vault.Path); err != nil {
		warn("vault %s not found (set vault.path or VAULT_PATH)", cfg.Vault.Path)
	} else {
		ok("vault %s", cfg.Vault.Path)
	}

	if problems > 0 {
		return errs.New(errs.Internal, "doctor", "%d problem(s) found", problems)
	}
	fmt.Fprintln(io.Out, "all checks passed")
	return nil
}
