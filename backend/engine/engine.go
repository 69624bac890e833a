// Package engine assembles the knowledge base from configuration: the store,
// the searcher and whatever models are installed. Models are an upgrade,
// never a precondition: with none the store takes chunks (their vectors
// pending) and answers by keyword; when a model arrives, LoadModels picks it
// up without a restart and Backfill embeds what waited. The GUI, the tray
// scheduler and jarvis-cli all open it the same way, so they agree on models
// and on the store they share.
package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/models"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/vault"
	"github.com/jarvis-kb/jarvis/backend/zotero"
)

// Engine is an open knowledge base with the models it could load.
type Engine struct {
	Cfg      *config.Config
	Store    *kb.Store
	Searcher *kb.Searcher

	mu        sync.Mutex
	runtime   *embed.Runtime // made when the first model loads
	embedder  *embed.Embedder
	embedSpec string          // the setting embedder was loaded for
	query     *embed.Embedder // the store's active model while a switch to embedder fills in
	reranker  *embed.Reranker
	issues    map[string]error // role -> why that model is not loaded
}

// Model roles.
const (
	RoleEmbed  = "embed"
	RoleRerank = "rerank"
)

// ModelRef is a resolved model: where its files are and how to use them.
type ModelRef struct {
	ID      string
	Dir     string
	Pooling string
	// The prefixes the model was trained with (the manifest's; none for a
	// folder the manifest does not list).
	QueryPrefix, PassagePrefix string
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
		return ModelRef{}, errs.WithHint(errs.New(errs.NotFound, op, "model %s is not installed", m.ID),
			"download it in Settings → Models, or run `jarvis-cli models fetch` (needs Hugging Face or an HF_ENDPOINT mirror) or `jarvis-cli models install-offline --from DIR`")
	}
	return ModelRef{ID: m.ID, Dir: st.Dir, Pooling: poolingOf(st.Dir, m.Pooling), QueryPrefix: m.QueryPrefix, PassagePrefix: m.PassagePrefix}, nil
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

// Open opens the store and loads whatever models are installed. Only a
// store that cannot be opened is an error; a missing or broken model is
// recorded (Status) and the knowledge base runs without it.
func Open(cfg *config.Config) (*Engine, error) {
	store, err := kb.Open(cfg.RAG.Dir)
	if err != nil {
		return nil, err
	}
	e := &Engine{Cfg: cfg, Store: store, issues: map[string]error{}}
	e.Searcher = kb.NewSearcher(store, kb.SearchOptions{Hybrid: cfg.RAG.Hybrid, RerankTopN: cfg.RAG.RerankTopN}, nil)
	if err := e.LoadModels(context.Background()); err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return e, nil
}

// Reconfigure applies a change to the engine's configuration (shared with
// whoever opened it) while no model load is reading it: the window may
// choose a model while the background's backfill loads one.
func (e *Engine) Reconfigure(apply func() error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return apply()
}

// LoadModels (re)loads the configured models that are installed and not yet
// loaded — after a download, or when a setting changed — and points the
// searcher at them. A configured embedding model that differs from the
// store's starts a switch (Backfill fills it in while the old vectors
// serve). Model problems are recorded, not returned; the error is for the
// store.
func (e *Engine) LoadModels(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cfg := e.Cfg
	if cfg.RAG.EmbedModel == "" {
		e.embedder, e.query, e.embedSpec = nil, nil, ""
		e.issues[RoleEmbed] = nil
	} else if e.embedder == nil || e.embedSpec != cfg.RAG.EmbedModel {
		emb, err := e.loadEmbedder(cfg.RAG.EmbedModel)
		// A newly chosen model that is not installed yet (or does not load)
		// leaves the old one serving: choosing a model before downloading
		// it must not turn meaning-based search off meanwhile.
		if err == nil || e.embedder == nil {
			e.embedder, e.embedSpec = emb, cfg.RAG.EmbedModel
		}
		e.issues[RoleEmbed] = err
	}
	if cfg.RAG.RerankModel == "" {
		e.reranker, e.issues[RoleRerank] = nil, nil
	} else if e.reranker == nil {
		var err error
		e.reranker, err = e.loadReranker(cfg.RAG.RerankModel)
		e.issues[RoleRerank] = err
	}
	if e.embedder != nil {
		stored, err := e.Store.UseModel(ctx, e.embedder.Info())
		if err != nil {
			return err
		}
		// While a switch fills in, queries for the old vectors need the old
		// model; a manifest model that is still installed can serve them.
		e.query = nil
		if !stored.Target.IsZero() && !stored.Active.IsZero() {
			if old, err := e.loadEmbedder(stored.Active.ID); err == nil && old.Info() == stored.Active {
				e.query = old
			}
		}
	}
	e.Searcher.SetModels(asReranker(e.reranker), asEmbedder(e.embedder), asEmbedder(e.query))
	return nil
}

func (e *Engine) rt() (*embed.Runtime, error) {
	if e.runtime == nil {
		rt, err := embed.NewRuntimeWith(embed.RuntimeOptions{IdleRelease: time.Duration(e.Cfg.RAG.ModelIdleMinutes) * time.Minute, CacheDir: e.Cfg.ModelCacheDir(), LinkUnder: e.Cfg.RAG.ModelsDir})
		if err != nil {
			return nil, err
		}
		e.runtime = rt
	}
	return e.runtime, nil
}

func (e *Engine) loadEmbedder(spec string) (*embed.Embedder, error) {
	ref, rt, err := e.resolve(spec)
	if err != nil {
		return nil, err
	}
	// rag.query_prefix, when set, replaces the model's own query prefix.
	return rt.Embedder(embed.EmbedderOptions{ID: ref.ID, Dir: ref.Dir, Pooling: ref.Pooling,
		QueryPrefix: cmp.Or(e.Cfg.RAG.QueryPrefix, ref.QueryPrefix), PassagePrefix: ref.PassagePrefix})
}

func (e *Engine) loadReranker(spec string) (*embed.Reranker, error) {
	ref, rt, err := e.resolve(spec)
	if err != nil {
		return nil, err
	}
	return rt.RerankerWith(embed.RerankerOptions{Dir: ref.Dir, MaxPairTokens: e.Cfg.RAG.RerankMaxTokens, Int8: e.Cfg.RAG.RerankPrecision == "int8"})
}

// resolve finds a configured model's files and the runtime to load them on.
func (e *Engine) resolve(spec string) (ModelRef, *embed.Runtime, error) {
	ref, err := Resolve(e.Cfg.RAG.ModelsDir, spec)
	if err != nil {
		return ref, nil, err
	}
	rt, err := e.rt()
	return ref, rt, err
}

// asEmbedder and asReranker keep a nil model a nil interface (a typed nil
// pointer inside an interface would look present).
func asEmbedder(m *embed.Embedder) kb.Embedder {
	if m == nil {
		return nil
	}
	return m
}

func asReranker(m *embed.Reranker) kb.Reranker {
	if m == nil {
		return nil
	}
	return m
}

// Embedder is the configured embedding model, or nil when it is not
// installed (chunks are then stored with pending vectors).
func (e *Engine) Embedder() kb.Embedder {
	e.mu.Lock()
	defer e.mu.Unlock()
	return asEmbedder(e.embedder)
}

// Backend names the inference backend of the loaded models ("" when none).
func (e *Engine) Backend() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.runtime == nil {
		return ""
	}
	return e.runtime.Backend()
}

// Status is what every surface shows about the knowledge base's models.
type Status struct {
	Embed, Rerank ModelStatus
	Store         kb.Models
	Pending       int // chunks waiting for a vector of the configured model
	Chunks        int
	Backend       string
	// BackendDetail names the ONNX Runtime library in use, or says why the
	// pure-Go backend runs instead.
	BackendDetail string
}

// ModelStatus is one configured model.
type ModelStatus struct {
	Spec   string `json:"spec"`              // as configured; "" = switched off
	Loaded bool   `json:"loaded"`            // serving
	Issue  error  `json:"-"`                 // why not (not installed, failed to load)
	Dims   int    `json:"dims,omitempty"`    // embedding models
	Backed string `json:"backend,omitempty"` // inference backend
	Detail string `json:"detail,omitempty"`  // how it runs: "int8, pairs up to 128 tokens"
}

// Mode is the search mode the knowledge base runs in right now.
func (s Status) Mode() string {
	m := "keyword"
	switch {
	case s.Embed.Loaded && s.Pending == 0:
		m = "hybrid (keyword + dense)"
	case s.Embed.Loaded && s.Pending < s.Chunks:
		m = fmt.Sprintf("hybrid; %d of %d chunks still waiting for their vectors", s.Pending, s.Chunks)
	case s.Embed.Loaded:
		m = fmt.Sprintf("keyword until the vectors arrive (%d chunks waiting)", s.Pending)
	}
	if s.Rerank.Loaded {
		m += " + rerank"
	}
	return m
}

// Status reports models and backfill state.
func (e *Engine) Status(ctx context.Context) (Status, error) {
	e.mu.Lock()
	st := Status{
		Embed:  ModelStatus{Spec: e.Cfg.RAG.EmbedModel, Loaded: e.embedder != nil, Issue: e.issues[RoleEmbed]},
		Rerank: ModelStatus{Spec: e.Cfg.RAG.RerankModel, Loaded: e.reranker != nil, Issue: e.issues[RoleRerank]},
	}
	if e.embedder != nil {
		st.Embed.Dims = e.embedder.Info().Dims
	}
	if e.reranker != nil {
		st.Rerank.Detail = e.reranker.Detail()
	}
	if e.runtime != nil {
		st.Backend, st.BackendDetail = e.runtime.Backend(), e.runtime.Detail()
		st.Embed.Backed, st.Rerank.Backed = st.Backend, st.Backend
	}
	emb := e.embedder
	e.mu.Unlock()
	var err error
	if st.Store, err = e.Store.Models(ctx); err != nil {
		return st, err
	}
	model := ""
	if emb != nil {
		model = emb.Info().ID
	}
	st.Pending, st.Chunks, err = e.Store.PendingCount(ctx, model)
	return st, err
}

// ReanalyseLex brings a store written by an older analyser to the current
// one in the background (see kb.ReanalyseLex); search serves throughout.
func (e *Engine) ReanalyseLex(ctx context.Context, progress func(done, total int)) (int, error) {
	return kb.ReanalyseLex(ctx, e.Store, progress)
}

// Backfill embeds every chunk still waiting for a vector of the configured
// model (see kb.Backfill). Without an embedding model there is nothing to do.
func (e *Engine) Backfill(ctx context.Context, o kb.BackfillOptions) (kb.BackfillResult, error) {
	emb := e.Embedder()
	if emb == nil {
		return kb.BackfillResult{}, nil
	}
	res, err := kb.Backfill(ctx, e.Store, emb, o)
	if err == nil && res.Swapped {
		// The switch finished: the old model no longer serves queries.
		e.mu.Lock()
		e.query = nil
		e.Searcher.SetModels(asReranker(e.reranker), asEmbedder(e.embedder))
		e.mu.Unlock()
	}
	return res, err
}

// Refresher syncs the configured vault into this engine's store. Notes are
// stored with pending vectors (found by keyword at once); Backfill embeds
// them.
func (e *Engine) Refresher() *vault.Refresher { return e.refresher(false) }

// BackgroundRefresher is Refresher for background work (the tray): the
// OCR of vault images runs at low priority, yielding to the window.
func (e *Engine) BackgroundRefresher() *vault.Refresher { return e.refresher(true) }

func (e *Engine) refresher(background bool) *vault.Refresher {
	r := &vault.Refresher{Root: e.Cfg.Vault.Path, PrivateDirs: e.Cfg.Vault.PrivateDirs, Exclude: e.Cfg.Vault.Exclude,
		Store: e.Store, ChunkSize: e.Cfg.RAG.ChunkSize, ChunkOverlap: e.Cfg.RAG.ChunkOverlap}
	if e.Cfg.Vault.IndexImages {
		// Without OCR the images stay unindexed, as with the setting off;
		// doctor says why.
		if eng, err := e.OCR(); err == nil {
			eng.Background = background
			r.ReadImage = ingest.ImageText(eng, e.Cfg.ImagesDir())
		}
	}
	return r
}

// Tools are the knowledge-base operations over this engine's store, with
// the configured vault: what the chat, MCP, the window and the CLI call.
func (e *Engine) Tools() *kbtools.KB {
	return &kbtools.KB{Searcher: e.Searcher, Store: e.Store, VaultRoot: e.Cfg.Vault.Path, PrivateDirs: e.Cfg.Vault.PrivateDirs, NResults: e.Cfg.RAG.NResults, ImagesDir: e.Cfg.ImagesDir()}
}

// OCR is the Tesseract engine [pdf] asks for, or nil with the reason:
// looked up at each call (a few tens of ms), so installing Tesseract or a
// language takes effect without a restart.
func (e *Engine) OCR() (*ocr.Engine, error) { return ingest.OCRFor(e.Cfg.PDF) }

// Adder adds local files (PDFs, notes) with the configured limits; model
// serves summaries, metadata inference and captions (nil: full text only).
// A single add is embedded at once when a model is loaded.
func (e *Engine) Adder(model ingest.Model) *ingest.Adder {
	o := ingest.OptionsFrom(e.Cfg)
	o.Model = model
	return &ingest.Adder{Store: e.Store, Embed: e.Embedder(), Vault: e.Refresher(), Opts: o}
}

// ZoteroSync syncs the Zotero library in zotero.data_dir (nil when none is
// chosen). Items are stored for keyword search at once; their vectors are
// left to the backfill, as a vault sync's are. The private collections are
// read at this call (PrivateCollections): a sync never runs with a list
// older than the one on disk.
func (e *Engine) ZoteroSync() (*ingest.ZoteroSync, error) {
	if e.Cfg.Zotero.DataDir == "" {
		return nil, nil
	}
	private, err := PrivateCollections(e.Cfg)
	if err != nil {
		return nil, err
	}
	return &ingest.ZoteroSync{Store: e.Store, Opts: ingest.OptionsFrom(e.Cfg), Dir: e.Cfg.Zotero.DataDir, PrivateCollections: private}, nil
}

// PrivateCollections is every Zotero collection that is private now: those
// cfg holds and those in config.toml at this moment (another process, the
// window or jarvis-cli, may have added one since cfg was loaded). A
// collection either names is private, so a stale copy can never publish an
// item; a file that cannot be read is an error, not an empty list.
func PrivateCollections(cfg *config.Config) ([]string, error) {
	list := slices.Clone(cfg.Zotero.PrivateCollections)
	if cfg.Home == "" {
		return list, nil
	}
	disk, err := config.LoadFrom(cfg.Home)
	if err != nil {
		return nil, err
	}
	for _, p := range disk.Zotero.PrivateCollections {
		if !slices.ContainsFunc(list, func(have string) bool { return zotero.CollectionKey(have) == zotero.CollectionKey(p) }) {
			list = append(list, p)
		}
	}
	return list, nil
}

// Close releases the store and the models.
func (e *Engine) Close() error {
	var err error
	if e.Store != nil {
		err = e.Store.Close()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.runtime != nil {
		err = errors.Join(err, e.runtime.Close())
	}
	return err
}
