// Package doctor implements `jarvis-cli doctor`: one command that says what
// is set up, what is missing and what to do about it.
package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/autostart"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/backend/prompts"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// New builds the doctor command.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check configuration, data directories, prompts, models, the knowledge base and the chat model",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return Run(io, load, getenv)
		},
	}
}

// Run performs the checks. Only what breaks the store, the configuration
// or the data dir fails it (non-zero exit); a missing optional model or an
// unreachable chat provider is a warning that names the mode Jarvis runs in
// without it.
func Run(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) error {
	problems := 0
	ok := func(format string, args ...any) { fmt.Fprintf(io.Out, "ok    "+format+"\n", args...) }
	warn := func(format string, args ...any) { fmt.Fprintf(io.Out, "warn  "+format+"\n", args...) }
	fail := func(format string, args ...any) {
		problems++
		fmt.Fprintf(io.Out, "FAIL  "+format+"\n", args...)
	}
	ctx := context.Background()

	cfg, err := load()
	if err != nil {
		fail("configuration: %v", err)
		return errs.New(errs.Invalid, "doctor", "configuration is invalid; fix it and run doctor again")
	}
	if _, err := os.Stat(cfg.File); err == nil {
		ok("configuration loaded from %s", cfg.File)
	} else {
		ok("configuration: built-in defaults (no %s yet; `jarvis-cli config set` or the window's Settings create it)", cfg.File)
	}
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

	// Installed models are checked against their recorded hashes; a missing
	// one only narrows what search can do.
	if manifest, err := models.Load(); err != nil {
		fail("model manifest: %v", err)
	} else {
		for _, spec := range []string{cfg.RAG.EmbedModel, cfg.RAG.RerankModel} {
			if spec == "" || filepath.IsAbs(spec) {
				continue
			}
			model, err := manifest.Find(spec)
			if err != nil {
				fail("%v", err)
				continue
			}
			if st := models.Inspect(cfg.RAG.ModelsDir, model); st.Installed {
				if err := models.Verify(cfg.RAG.ModelsDir, model); err != nil {
					fail("%v", err)
				}
			}
		}
	}

	// SQLite's own check of the store file, before anything opens it.
	switch err := kb.CheckIntegrity(ctx, kb.StorePath(cfg.RAG.Dir), false); {
	case errs.Is(err, errs.NotFound):
		warn("store integrity: no knowledge base yet in %s (created on first use)", cfg.RAG.Dir)
	case err != nil:
		fail("store integrity: %v", err)
	default:
		ok("store integrity: ok (PRAGMA integrity_check)")
	}

	e, err := engine.Open(cfg)
	if err != nil {
		fail("knowledge base: %v", err) // the error carries its hint
	} else {
		defer e.Close()
		checkKnowledgeBase(ctx, cfg, e, ok, warn, fail)
	}

	if st := agent.CheckProvider(ctx, cfg, getenv); st.Ready {
		where := "local"
		if st.Cloud {
			where = "cloud: private notes are never sent to it"
		}
		ok("chat model %s (%s)", st.Spec, where)
	} else {
		warn("chat model %s: %v — without it a question gets the best matching passages with their citations, no written answer", st.Spec, st.Problem)
	}

	if st, err := os.Stat(cfg.Vault.Path); err != nil || !st.IsDir() {
		warn("vault %s not found: nothing to index yet (choose it in the window, or set vault.path / VAULT_PATH)", cfg.Vault.Path)
	} else {
		ok("vault %s (private folders: %s)", cfg.Vault.Path, strings.Join(cfg.Vault.PrivateDirs, ", "))
	}

	checkOCR(cfg, ok, warn)
	checkAutostart(getenv, ok, warn)

	if problems > 0 {
		return errs.New(errs.Internal, "doctor", "%d problem(s) found", problems)
	}
	fmt.Fprintln(io.Out, "no problems found")
	return nil
}

// checkOCR reports whether scans and images can be read, and how to add
// what is missing.
func checkOCR(cfg *config.Config, ok, warn func(string, ...any)) {
	eng, err := ingest.OCRFor(cfg.PDF)
	if err != nil {
		warn("OCR: %v — scanned pages and images are not read", err)
		return
	}
	ok("OCR: %s (installed: %s; add a language with apt install tesseract-ocr-<lang>)", eng, strings.Join(eng.Installed, ", "))
}

// checkKnowledgeBase reports the store, the models that serve search, the
// backfill state and a probe search.
func checkKnowledgeBase(ctx context.Context, cfg *config.Config, e *engine.Engine, ok, warn, fail func(string, ...any)) {
	st, err := e.Status(ctx)
	if err != nil {
		fail("store: %v", err)
		return
	}
	for _, m := range []struct {
		role, without string
		st            engine.ModelStatus
	}{
		{"embedding model", "search is keyword-only (stemmed BM25) until it is installed", st.Embed},
		{"reranker", "results are fused but not reranked", st.Rerank},
	} {
		switch {
		case m.st.Spec == "":
			warn("%s: switched off — %s", m.role, m.without)
		case m.st.Loaded && m.st.Dims > 0:
			ok("%s %s: %d dims, %s backend", m.role, m.st.Spec, m.st.Dims, m.st.Backed)
		case m.st.Loaded:
			ok("%s %s: %s backend", m.role, m.st.Spec, m.st.Backed)
		default:
			warn("%s %s not loaded: %v — %s", m.role, m.st.Spec, m.st.Issue, m.without)
		}
	}
	if c, err := e.Store.Count(ctx); err != nil {
		fail("store: %v", err)
	} else {
		ok("store %s: %d documents, %d chunks (%d private)", cfg.RAG.Dir, c.Documents, c.Chunks, c.Private)
	}
	switch {
	case st.Embed.Loaded && st.Pending > 0:
		warn("%d of %d chunks wait for their vectors (dense search covers the rest): `jarvis-cli kb embed` or the tray fills them in", st.Pending, st.Chunks)
	case !st.Store.Target.IsZero():
		warn("embedding model switch under way: %s", st.Store)
	}
	if st.BackendDetail != "" {
		ok("inference: %s backend (%s)", st.Backend, st.BackendDetail)
	}
	ok("search mode: %s", st.Mode())
	start := time.Now()
	if res, err := e.Searcher.Search(ctx, "probe", 1, kb.Filter{}); err != nil {
		fail("probe search: %v", err)
	} else {
		ok("probe search (%s): %d hit(s) in %s", res.Mode, len(res.Hits), time.Since(start).Round(time.Millisecond))
	}
}

// checkAutostart says whether the tray starts at login (the tray keeps the
// vault, the inbox and the digest in sync while the window is closed).
func checkAutostart(getenv func(string) string, ok, warn func(string, ...any)) {
	e, err := autostart.Default(getenv, "")
	if err != nil {
		warn("autostart: %v", err)
		return
	}
	st, err := e.Read()
	switch {
	case err != nil:
		warn("autostart: %v", err)
	case st == autostart.On:
		ok("autostart: on — the tray starts at login (%s)", e.Path)
	case st == autostart.Off:
		ok("autostart: off — turned off in Settings; sync runs only while Jarvis is open (%s)", e.Path)
	default:
		warn("autostart: not set up — the tray starts at login once a vault is chosen in the window's setup panel")
	}
}
