// Package embed runs the text encoders in-process: a sentence embedder (BGE
// by default) and a cross-encoder reranker. Inference goes through ONNX
// Runtime (github.com/yalue/onnxruntime_go) when its shared library loads,
// and through hugot's pure-Go session otherwise; tokenising, batching and
// pooling are Jarvis's own and the same on both. It is the only package
// that imports hugot or onnxruntime_go; kb sees the kb.Embedder and
// kb.Reranker interfaces.
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/knights-analytics/hugot"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// BGEQueryPrefix is the retrieval instruction BGE v1.5 expects on queries
// (documents are embedded bare).
const BGEQueryPrefix = "Represent this sentence for searching relevant passages: "

// Pooling modes.
const (
	PoolCLS  = "cls"
	PoolMean = "mean"
)

// Inference backends, as Backend reports them.
const (
	BackendORT = "onnxruntime"
	BackendGo  = "go"
)

// DefaultBatch is how many texts go through the model at once (fewer when
// they are long: see maxBatchTokens). Texts are grouped by length first, so
// a batch pads little.
const DefaultBatch = 16

// RuntimeOptions choose the inference backend.
type RuntimeOptions struct {
	// Backend is "" (ONNX Runtime when its library loads, else pure Go),
	// BackendORT (an error when the library does not load) or BackendGo.
	Backend string
	// ORTLibrary is the path of libonnxruntime.so.1. Empty: $JARVIS_ORT_LIB,
	// then the data directory's lib/, then beside the executable.
	ORTLibrary string
	// Threads is ONNX Runtime's intra-op thread count; 0 lets ONNX Runtime
	// choose (one per physical core).
	Threads int
	// IdleRelease: an ONNX Runtime model unused this long releases its
	// session and opens it again on its next use; 0 keeps it open.
	IdleRelease time.Duration
	// CacheDir keeps derived graphs (a reranker's int8 copy) between runs;
	// empty: they are derived again on every load.
	CacheDir string
	// LinkUnder is the folder of the models Jarvis downloads, which are
	// only ever replaced by rename: the mapped copies of graphs under it
	// hard-link their weights; those of other graphs (a model of the
	// user's own, which may be rewritten in place) copy them.
	LinkUnder string
}

// Runtime owns the inference backend; every model of the process shares it.
type Runtime struct {
	mu      sync.Mutex
	backend string
	detail  string
	threads int
	idle    time.Duration
	cache   string
	link    string         // RuntimeOptions.LinkUnder
	session *hugot.Session // the pure-Go backend only
	closers []func() error // ONNX Runtime sessions
	n       int
	closed  bool
}

// NewRuntime picks the backend on its own: ONNX Runtime when
// libonnxruntime.so.1 is found and loads, hugot's pure-Go session otherwise
// (Detail says why).
func NewRuntime() (*Runtime, error) { return NewRuntimeWith(RuntimeOptions{}) }

// NewRuntimeWith opens a runtime with explicit options.
func NewRuntimeWith(opts RuntimeOptions) (*Runtime, error) {
	const op = "embed.NewRuntime"
	if opts.Backend != "" && opts.Backend != BackendORT && opts.Backend != BackendGo {
		return nil, errs.New(errs.Invalid, op, "unknown inference backend %q (want %s or %s)", opts.Backend, BackendORT, BackendGo)
	}
	detail := "pure Go (chosen)"
	if opts.Backend != BackendGo {
		loc := locateORT(opts.ORTLibrary, ortSearchDirs())
		var why string
		switch {
		case loc.off:
			why = ORTLibraryEnv + "=off"
		case loc.path == "":
			why = "no " + ORTLibraryName + " at " + strings.Join(loc.searched, ", ")
		default:
			path, version, err := initORT(loc.path)
			if err == nil {
				return &Runtime{backend: BackendORT, detail: fmt.Sprintf("ONNX Runtime %s (%s)", version, path), threads: opts.Threads, idle: opts.IdleRelease, cache: opts.CacheDir, link: opts.LinkUnder}, nil
			}
			why = fmt.Sprintf("%s did not load: %v", loc.path, err)
		}
		if opts.Backend == BackendORT {
			return nil, errs.WithHint(errs.New(errs.RAG, op, "ONNX Runtime is not available: %s", why),
				"run build/scripts/setup.sh, which installs "+ORTLibraryName+", or set "+ORTLibraryEnv+" to its path")
		}
		detail = "pure Go; ONNX Runtime not used: " + why
	}
	s, err := hugot.NewGoSession()
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	return &Runtime{session: s, backend: BackendGo, detail: detail}, nil
}

// Backend names the inference backend: BackendORT or BackendGo.
func (r *Runtime) Backend() string { return r.backend }

// Detail says which library the backend runs on, or why ONNX Runtime was
// not used, for doctor and verbose output.
func (r *Runtime) Detail() string { return r.detail }

// Close releases every model loaded on the runtime.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	var errList []error
	for _, c := range r.closers {
		errList = append(errList, c())
	}
	r.closers = nil
	if r.session != nil {
		errList = append(errList, r.session.Destroy())
		r.session = nil
	}
	return errors.Join(errList...)
}

// modelKind selects the hugot pipeline a graph is loaded as on the Go path.
type modelKind int

const (
	kindEmbedder modelKind = iota
	kindReranker
)

// load opens the graph of the model in dir on the runtime's backend.
// With int8 set, an ONNX Runtime model runs its int8 copy where one can be
// made and loads, and int8 says whether it does.
func (r *Runtime) load(op, dir string, kind modelKind, int8 *atomic.Bool) (encoder, error) {
	graph, err := graphPath(op, dir)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errs.New(errs.Internal, op, "the runtime is closed")
	}
	if r.backend == BackendORT {
		threads, cache, link := r.threads, r.cache, r.mayLink(graph)
		open := func() (*ortEncoder, error) { return openMapped(graph, cache, link, threads) }
		if int8 != nil {
			open = func() (*ortEncoder, error) {
				if e := openInt8(graph, cache, threads); e != nil {
					int8.Store(true)
					return e, nil
				}
				int8.Store(false)
				return openMapped(graph, cache, link, threads)
			}
		}
		e, err := newIdleEncoder(graph, r.idle, open)
		if err != nil {
			return nil, errs.Wrapf(errs.RAG, op, err, "load %s", graph)
		}
		r.closers = append(r.closers, e.close)
		return e, nil
	}
	view, cleanup, err := modelView(op, dir, graph)
	if err != nil {
		return nil, err
	}
	// hugot reads every file while building the pipeline; the view is not
	// needed afterwards.
	defer cleanup()
	r.n++
	name := fmt.Sprintf("model-%d", r.n)
	switch kind {
	case kindReranker:
		p, err := hugot.NewPipeline(r.session, hugot.CrossEncoderConfig{ModelPath: view, Name: name, OnnxFilename: "model.onnx"})
		if err != nil {
			return nil, errs.Wrapf(errs.RAG, op, err, "load %s", graph)
		}
		return &goEncoder{pipe: p.BasePipeline}, nil
	default:
		p, err := hugot.NewPipeline(r.session, hugot.FeatureExtractionConfig{ModelPath: view, Name: name, OnnxFilename: "model.onnx"})
		if err != nil {
			return nil, errs.Wrapf(errs.RAG, op, err, "load %s", graph)
		}
		return &goEncoder{pipe: p.BasePipeline, output: p.OutputIndex}, nil
	}
}

// graphPath checks a model directory in Hugging Face ONNX layout and returns
// its graph: model.onnx at the top, or onnx/model.onnx as exported.
func graphPath(op, dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return "", errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "no tokenizer.json in %s", dir),
			"download the model with `jarvis-cli models fetch` (or `jarvis-cli models install-offline --from DIR`)")
	}
	graph := filepath.Join(dir, "model.onnx")
	if _, err := os.Stat(graph); err == nil {
		return graph, nil
	}
	graph = filepath.Join(dir, "onnx", "model.onnx")
	if _, err := os.Stat(graph); err != nil {
		return "", errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "no ONNX model in %s", dir),
			"download it with `jarvis-cli models fetch`; the download is incomplete")
	}
	return graph, nil
}

// modelView returns a directory hugot can load. hugot resolves graphs in
// subfolders relative to the working directory (and refuses folders with
// several graphs), so a model whose graph is at onnx/model.onnx is
// presented through a private folder of symlinks: the graph and the
// top-level files, nothing copied. The returned cleanup removes that folder.
func modelView(op, dir, graph string) (string, func(), error) {
	noop := func() {}
	if graph == filepath.Join(dir, "model.onnx") {
		return dir, noop, nil
	}
	view, err := os.MkdirTemp("", "jarvis-model-")
	if err != nil {
		return "", noop, errs.Wrap(errs.Internal, op, err)
	}
	cleanup := func() {
		if err := os.RemoveAll(view); err != nil {
			logs.L().Warn("cannot remove the model view", "dir", view, "err", err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		cleanup()
		return "", noop, errs.Wrap(errs.RAG, op, err)
	}
	links := map[string]string{"model.onnx": graph}
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".onnx") {
			links[e.Name()] = filepath.Join(dir, e.Name())
		}
	}
	for name, target := range links {
		abs, err := filepath.Abs(target)
		if err == nil {
			err = os.Symlink(abs, filepath.Join(view, name))
		}
		if err != nil {
			cleanup()
			return "", noop, errs.Wrap(errs.Internal, op, err)
		}
	}
	return view, cleanup, nil
}

// model is a loaded graph with its tokenizer. Calls may overlap: an ONNX
// Runtime session runs concurrent calls, the Go backend takes them a batch
// at a time, so a search query waits at most one batch of an indexing run.
type model struct {
	enc   encoder
	tok   *textTokenizer
	batch int
}

// forEachBatch runs the inputs through the graph in length-sorted batches
// and hands each batch's output to use; a cancelled context stops between
// batches. Inference panics (the Go backend reports some graph errors so)
// become errors.
func (m *model) forEachBatch(ctx context.Context, op string, inputs []tokens, use func(*paddedBatch, graphOutput)) (err error) {
	defer recoverInto(op, &err)
	for _, b := range plan(inputs, m.batch, m.tok.padID) {
		if err := ctx.Err(); err != nil {
			return err
		}
		out, err := m.enc.run(b)
		if err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
		use(b, out)
	}
	return nil
}

// EmbedderOptions describe one embedding model.
type EmbedderOptions struct {
	ID          string // recorded in the store; a different ID means reindex
	Dir         string // model directory (onnx/model.onnx, tokenizer.json, config.json)
	Pooling     string // PoolCLS (BGE) or PoolMean (sentence-transformers)
	QueryPrefix string
	// PassagePrefix goes before every document text (E5's "passage: ").
	PassagePrefix string
	Batch         int
}

// Embedder is a kb.Embedder.
type Embedder struct {
	model
	opts    EmbedderOptions
	dims    int
	backend string
}

// Embedder loads a sentence embedder.
func (r *Runtime) Embedder(opts EmbedderOptions) (*Embedder, error) {
	const op = "embed.Embedder"
	if opts.Pooling == "" {
		opts.Pooling = PoolCLS
	}
	if opts.Pooling != PoolCLS && opts.Pooling != PoolMean {
		return nil, errs.New(errs.Invalid, op, "unknown pooling %q (want cls or mean)", opts.Pooling)
	}
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	enc, err := r.load(op, opts.Dir, kindEmbedder, nil)
	if err != nil {
		return nil, err
	}
	tok, err := loadTokenizer(op, opts.Dir)
	if err != nil {
		return nil, err
	}
	e := &Embedder{model: model{enc: enc, tok: tok, batch: opts.Batch}, opts: opts, backend: r.backend}
	probe, err := e.embed(context.Background(), []string{"probe"})
	if err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "run embedding model %s", opts.ID)
	}
	e.dims = len(probe[0])
	return e, nil
}

// Info implements kb.Embedder.
func (e *Embedder) Info() kb.ModelInfo { return kb.ModelInfo{ID: e.opts.ID, Dims: e.dims} }

// Backend implements kb.Embedder: BackendORT or BackendGo.
func (e *Embedder) Backend() string { return e.backend }

// EmbedQuery implements kb.Embedder: the query carries the model's prefix.
func (e *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	v, err := e.embed(ctx, []string{e.opts.QueryPrefix + query})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// EmbedDocuments implements kb.Embedder.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if e.opts.PassagePrefix != "" {
		prefixed := make([]string, len(texts))
		for i, t := range texts {
			prefixed[i] = e.opts.PassagePrefix + t
		}
		texts = prefixed
	}
	return e.embed(ctx, texts)
}

// embed tokenises, runs the batches, then pools and L2-normalises each
// vector into its text's position. Pooling is done here, not in a
// pipeline: BGE was trained with the [CLS] vector.
func (e *Embedder) embed(ctx context.Context, texts []string) ([][]float32, error) {
	const op = "embed.Embed"
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inputs, err := tokenizeAll(op, texts, e.tok.single)
	if err != nil {
		return nil, err
	}
	vecs := make([][]float32, len(texts))
	err = e.forEachBatch(ctx, op, inputs, func(b *paddedBatch, out graphOutput) {
		for i, at := range b.index {
			v := pool(out, b, i, e.opts.Pooling)
			normalize(v)
			vecs[at] = v
		}
	})
	if err != nil {
		return nil, err
	}
	return vecs, nil
}

// tokenizeAll tokenises every item on all cores, before inference needs
// them: the tokenizer spends about 8 ms of CPU on a 512-token text, a tenth
// of what ONNX Runtime spends on it. Its panics become errors.
func tokenizeAll[T any](op string, items []T, tokenize func(T) (tokens, error)) ([]tokens, error) {
	out := make([]tokens, len(items))
	workers := min(len(items), runtime.GOMAXPROCS(0))
	failed := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			defer recoverInto(op, &failed[w])
			for i := w; i < len(items); i += workers {
				var err error
				if out[i], err = tokenize(items[i]); err != nil {
					failed[w] = errs.Wrap(errs.RAG, op, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range failed {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pool reduces a row's output to one vector: the model's own pooled output,
// the first ([CLS]) token, or the mean of the row's real tokens.
func pool(out graphOutput, b *paddedBatch, i int, mode string) []float32 {
	v := make([]float32, out.width)
	if !out.tokenLevel || mode == PoolCLS {
		copy(v, out.row(b, i))
		return v
	}
	n := b.lens[i]
	for j := range n {
		for k, x := range out.token(b, i, j) {
			v[k] += x
		}
	}
	if n > 0 {
		for k := range v {
			v[k] /= float32(n)
		}
	}
	return v
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// recoverInto turns a panic inside the inference backend or the tokenizer
// into an error for this call.
func recoverInto(op string, err *error) {
	if r := recover(); r != nil {
		*err = errs.New(errs.RAG, op, "inference failed: %v", r)
	}
}

// Reranker is a kb.Reranker backed by a cross-encoder: one logit per
// (query, passage) pair.
type Reranker struct {
	model
	maxPair int          // tokens a pair may have; 0: the model's limit
	int8    *atomic.Bool // nil: float32 asked for; else whether the int8 copy runs
}

// RerankerOptions says how a cross-encoder is loaded.
type RerankerOptions struct {
	Dir string
	// MaxPairTokens caps a (query, passage) pair, special tokens included;
	// a longer passage is cut to the window that holds most of the query's
	// words. 0 keeps the model's own limit (512 for BERT).
	MaxPairTokens int
	// Int8 runs the model's weight matrices in int8 (ONNX Runtime only;
	// the pure-Go backend keeps float32).
	Int8 bool
}

// Reranker loads a cross-encoder from dir with the model's own limits, in
// float32.
func (r *Runtime) Reranker(dir string) (*Reranker, error) {
	return r.RerankerWith(RerankerOptions{Dir: dir})
}

// RerankerWith loads a cross-encoder as opts say.
func (r *Runtime) RerankerWith(opts RerankerOptions) (*Reranker, error) {
	const op = "embed.Reranker"
	var int8 *atomic.Bool
	if opts.Int8 && r.backend == BackendORT {
		int8 = new(atomic.Bool)
	}
	enc, err := r.load(op, opts.Dir, kindReranker, int8)
	if err != nil {
		return nil, err
	}
	tok, err := loadTokenizer(op, opts.Dir)
	if err != nil {
		return nil, err
	}
	rr := &Reranker{model: model{enc: enc, tok: tok, batch: DefaultBatch}, maxPair: max(opts.MaxPairTokens, 0), int8: int8}
	if _, err := rr.Rerank(context.Background(), "probe", []string{"probe"}); err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "run reranker from %s", opts.Dir)
	}
	return rr, nil
}

// Detail says how the reranker runs ("int8, pairs up to 128 tokens"):
// what runs, which is float32 where the int8 copy could not be used.
func (rr *Reranker) Detail() string {
	d := "float32"
	if rr.int8 != nil && rr.int8.Load() {
		d = "int8"
	}
	if rr.maxPair > 0 && rr.maxPair < rr.tok.maxTokens {
		d += fmt.Sprintf(", pairs up to %d tokens", rr.maxPair)
	}
	return d
}

// Rerank implements kb.Reranker: one relevance score in (0, 1) per passage
// (the sigmoid of the model's logit), in the passages' order.
func (rr *Reranker) Rerank(ctx context.Context, query string, passages []string) ([]float64, error) {
	const op = "embed.Rerank"
	if len(passages) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inputs, err := tokenizeAll(op, passages, func(p string) (tokens, error) { return rr.tok.pairWithin(query, p, rr.maxPair) })
	if err != nil {
		return nil, err
	}
	scores := make([]float64, len(passages))
	var shapeErr error
	err = rr.forEachBatch(ctx, op, inputs, func(b *paddedBatch, out graphOutput) {
		if out.tokenLevel || out.width != 1 {
			shapeErr = errs.New(errs.RAG, op, "the reranker gives %d values per pair (token level: %v); a cross-encoder gives one logit", out.width, out.tokenLevel)
			return
		}
		for i, at := range b.index {
			scores[at] = 1 / (1 + math.Exp(-float64(out.row(b, i)[0])))
		}
	})
	if err != nil {
		return nil, err
	}
	if shapeErr != nil {
		return nil, shapeErr
	}
	return scores, nil
}

// mayLink reports whether graph lies under the downloaded models' folder,
// whose files are replaced by rename only (RuntimeOptions.LinkUnder).
func (r *Runtime) mayLink(graph string) bool {
	if r.link == "" {
		return false
	}
	rel, err := filepath.Rel(r.link, graph)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
