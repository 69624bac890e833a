// Package engine assembles the knowledge base from configuration: the
// embedding model, the optional reranker, the store and the searcher. The
// GUI, the tray scheduler and jarvis-cli all open it the same way, so they
// agree on models and on the store they share.
package engine

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// Engine is an open knowledge base with its models.
type Engine struct {
	Cfg      *config.Config
	Runtime  *embed.Runtime
	Embedder *embed.Embedder
	Reranker *embed.Reranker // nil when rag.rerank_model is empty
	Store    *kb.Store
	Searcher *kb.Searcher
}

// ModelRef is a resolved model: where its files are and how to use them.
type ModelRef struct {
	ID      string
	Dir     string
	Pooling string
}

// Resolve finds a model named in config. A manifest id resolves under the
// models dir and must be installed; an absolute path names a model folder
// directly (for models the manifest does not list).
func Resolve(modelsDir, spec string) (ModelRef, error) {
	const op = "engine.Resolve"
	if filepath.IsAbs(spec) {
		st, err := os.Stat(spec)
		if err != nil || !st.IsDir() {
			return ModelRef{}, errs.New(errs.NotFound, op, "model folder %s does not exist", spec)
		}
		return ModelRef{ID: "local:" + filepath.Base(spec), Dir: spec, Pooling: poolingOf(spec, "")}, nil
	}
	manifest, err := models.Load()
	if err != nil {
		return ModelRef{}, err
	}
	m, err := manifest.Find(spec)
	if err != nil {
		return ModelRef{}, errs.WithHint(err, "set rag.embed_model / rag.rerank_model to a manifest id or an absolute model folder")
	}
	st := models.Inspect(modelsDir, m)
	if !st.Installed {
		return ModelRef{}, errs.WithHint(errs.New(errs.NotFound, op, "model %s is not installed in %s (missing %v)", m.ID, st.Dir, st.Missing),
			"run `jarvis-cli models fetch` (needs network once) or `jarvis-cli models install-offline --from DIR`")
	}
	return ModelRef{ID: m.ID, Dir: st.Dir, Pooling: poolingOf(st.Dir, m.Pooling)}, nil
}

// poolingOf reads the sentence-transformers pooling config when the model
// ships one (1_Pooling/config.json), else falls back to the manifest's
// value, else mean pooling.
func poolingOf(dir, fallback string) string {
	var pc struct {
		CLS  bool `json:"pooling_mode_cls_token"`
		Mean bool `json:"pooling_mode_mean_tokens"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "1_Pooling", "config.json")); err == nil && json.Unmarshal(b, &pc) == nil {
		switch {
		case pc.CLS:
			return embed.PoolCLS
		case pc.Mean:
			return embed.PoolMean
		}
	}
	if fallback != "" {
		return fallback
	}
	return embed.PoolMean
}

// LoadEmbedder loads the configured embedding model on rt.
func LoadEmbedder(rt *embed.Runtime, cfg *config.Config) (*embed.Embedder, error) {
	ref, err := Resolve(cfg.RAG.ModelsDir, cfg.RAG.EmbedModel)
	if err != nil {
		return nil, err
	}
	return rt.Embedder(embed.EmbedderOptions{ID: ref.ID, Dir: ref.Dir, Pooling: ref.Pooling, QueryPrefix: cfg.RAG.QueryPrefix})
}

// Open loads the models and opens the store. The store refuses to open when
// it was built with another embedding model (the error names `kb reindex`).
func Open(cfg *config.Config) (*Engine, error) {
	rt, err := embed.NewRuntime()
	if err != nil {
		return nil, err
	}
	e := &Engine{Cfg: cfg, Runtime: rt}
	if err := e.open(); err != nil {
		return nil, errors.Join(err, rt.Close())
	}
	return e, nil
}

func (e *Engine) open() error {
	emb, err := LoadEmbedder(e.Runtime, e.Cfg)
	if err != nil {
		return err
	}
	e.Embedder = emb
	if e.Cfg.RAG.RerankModel != "" {
		ref, err := Resolve(e.Cfg.RAG.ModelsDir, e.Cfg.RAG.RerankModel)
		if err != nil {
			return err
		}
		if e.Reranker, err = e.Runtime.Reranker(ref.Dir); err != nil {
			return err
		}
	}
	if e.Store, err = kb.Open(e.Cfg.RAG.Dir, emb.Info()); err != nil {
		return err
	}
	e.Searcher = &kb.Searcher{
		Store: e.Store, Index: kb.NewDenseIndex(), Embed: emb,
		Opts: kb.SearchOptions{Hybrid: e.Cfg.RAG.Hybrid, RerankTopN: e.Cfg.RAG.RerankTopN},
	}
	if e.Reranker != nil {
		e.Searcher.Rerank = e.Reranker
	}
	return nil
}

// Refresher syncs the configured vault into this engine's store.
func (e *Engine) Refresher() *vault.Refresher {
	return &vault.Refresher{Root: e.Cfg.Vault.Path, PrivateDirs: e.Cfg.Vault.PrivateDirs, Store: e.Store,
		Embed: e.Embedder, ChunkSize: e.Cfg.RAG.ChunkSize, ChunkOverlap: e.Cfg.RAG.ChunkOverlap}
}

// Adder adds local files (PDFs, notes) with the configured limits; model
// serves summaries, metadata inference and captions (nil: full text only).
func (e *Engine) Adder(model ingest.Model) *ingest.Adder {
	o := ingest.OptionsFrom(e.Cfg.RAG)
	o.Model = model
	return &ingest.Adder{Store: e.Store, Embed: e.Embedder, Vault: e.Refresher(), Opts: o}
}

// Close releases the store and the models.
func (e *Engine) Close() error {
	var err error
	if e.Store != nil {
		err = e.Store.Close()
	}
	return errors.Join(err, e.Runtime.Close())
}
