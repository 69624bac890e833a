// Package embed runs the text encoders in-process through hugot: a
// sentence embedder (BGE by default) and a cross-encoder reranker. It is the
// only package that imports hugot; kb sees the kb.Embedder and kb.Reranker
// interfaces.
package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/knights-analytics/hugot"
	"github.com/knights-analytics/hugot/backends"
	"github.com/knights-analytics/hugot/pipelines"

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

// DefaultBatch is how many texts go through the model at once: large enough
// to amortise the graph call, small enough that one padded batch of long
// chunks stays well under a gigabyte.
const DefaultBatch = 16

// Runtime owns one hugot session; every model of the process shares it.
type Runtime struct {
	mu      sync.Mutex
	session *hugot.Session
	backend string
	n       int
}

// NewRuntime opens a session on hugot's pure-Go backend, which needs no
// shared library and works on every machine.
func NewRuntime() (*Runtime, error) {
	s, err := hugot.NewGoSession()
	if err != nil {
		return nil, errs.Wrap(errs.RAG, "embed.NewRuntime", err)
	}
	return &Runtime{session: s, backend: "go"}, nil
}

// Backend names the inference backend ("go"; "onnxruntime" once the ORT
// build is wired).
func (r *Runtime) Backend() string { return r.backend }

// Close releases the session and every pipeline made from it.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session == nil {
		return nil
	}
	err := r.session.Destroy()
	r.session = nil
	return err
}

// nextName gives each pipeline a unique name inside the session.
func (r *Runtime) nextName(kind string) string {
	r.n++
	return fmt.Sprintf("%s-%d", kind, r.n)
}

// modelView checks a model directory and returns one hugot can load. A
// Hugging Face export keeps the graph at onnx/model.onnx, but hugot resolves
// graphs in subfolders relative to the working directory (and refuses folders
// with several graphs), so such a model is presented through a private
// folder of symlinks: the graph and the top-level files, nothing copied.
// The returned cleanup removes that folder.
func modelView(op, dir string) (string, func(), error) {
	noop := func() {}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return "", noop, errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "no tokenizer.json in %s", dir),
			"download the model with `jarvis-cli models fetch` (or `jarvis-cli models install-offline --from DIR`)")
	}
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err == nil {
		return dir, noop, nil
	}
	graph := filepath.Join(dir, "onnx", "model.onnx")
	if _, err := os.Stat(graph); err != nil {
		return "", noop, errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "no ONNX model in %s", dir),
			"download it with `jarvis-cli models fetch`; the download is incomplete")
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

// EmbedderOptions describe one embedding model.
type EmbedderOptions struct {
	ID          string // recorded in the store; a different ID means reindex
	Dir         string // model directory (onnx/model.onnx, tokenizer.json, config.json)
	Pooling     string // PoolCLS (BGE) or PoolMean (sentence-transformers)
	QueryPrefix string
	Batch       int
}

// Embedder is a kb.Embedder backed by a hugot feature-extraction pipeline.
type Embedder struct {
	mu      sync.Mutex
	p       *pipelines.FeatureExtractionPipeline
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
	dir, cleanup, err := modelView(op, opts.Dir)
	if err != nil {
		return nil, err
	}
	// hugot reads every file while building the pipeline; the view is not
	// needed afterwards.
	defer cleanup()
	r.mu.Lock()
	p, err := hugot.NewPipeline(r.session, hugot.FeatureExtractionConfig{ModelPath: dir, Name: r.nextName("embed"), OnnxFilename: "model.onnx"})
	r.mu.Unlock()
	if err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "load embedding model %s", opts.ID)
	}
	e := &Embedder{p: p, opts: opts, backend: r.backend}
	probe, err := e.run([]string{"probe"})
	if err != nil {
		return nil, err
	}
	e.dims = len(probe[0])
	return e, nil
}

// Info implements kb.Embedder.
func (e *Embedder) Info() kb.ModelInfo { return kb.ModelInfo{ID: e.opts.ID, Dims: e.dims} }

// Backend implements kb.Embedder.
func (e *Embedder) Backend() string { return e.backend }

// EmbedQuery implements kb.Embedder: the query carries the model's prefix.
func (e *Embedder) EmbedQuery(ctx context.Context, query string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := e.run([]string{e.opts.QueryPrefix + query})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// EmbedDocuments implements kb.Embedder, batch by batch; a cancelled context
// stops between batches.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.opts.Batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		vs, err := e.run(texts[start:min(start+e.opts.Batch, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// run tokenises and runs one batch, then pools and L2-normalises. Pooling is
// done here rather than in hugot, which only mean-pools: BGE was trained
// with the [CLS] vector.
func (e *Embedder) run(texts []string) (vecs [][]float32, err error) {
	const op = "embed.Embed"
	e.mu.Lock()
	defer e.mu.Unlock()
	defer recoverInto(op, &err)
	batch := backends.NewBatch(len(texts))
	defer func() { err = errors.Join(err, batch.Destroy()) }()
	if err := e.p.Preprocess(batch, texts); err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	if err := e.p.Forward(batch); err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	switch out := batch.OutputValues[e.p.OutputIndex].(type) {
	case [][]float32: // the model pools itself (sentence_embedding output)
		vecs = out
	case [][][]float32:
		vecs = make([][]float32, len(out))
		for i, tokens := range out {
			vecs[i] = pool(tokens, batch.Input[i].AttentionMask, e.opts.Pooling)
		}
	default:
		return nil, errs.New(errs.RAG, op, "model output has unsupported type %T", out)
	}
	for _, v := range vecs {
		normalize(v)
	}
	return vecs, nil
}

// pool reduces token vectors to one: the first ([CLS]) token, or the mean
// of the tokens the attention mask keeps.
func pool(tokens [][]float32, mask []uint32, mode string) []float32 {
	out := make([]float32, len(tokens[0]))
	if mode == PoolCLS {
		copy(out, tokens[0])
		return out
	}
	n := 0
	for j, tok := range tokens {
		if j < len(mask) && mask[j] == 0 || j >= len(mask) {
			continue
		}
		n++
		for k, x := range tok {
			out[k] += x
		}
	}
	if n > 0 {
		for k := range out {
			out[k] /= float32(n)
		}
	}
	return out
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

// recoverInto turns a panic inside the inference backend (the Go backend
// reports some graph errors by panicking) into an error for this call.
func recoverInto(op string, err *error) {
	if r := recover(); r != nil {
		*err = errs.New(errs.RAG, op, "inference failed: %v", r)
	}
}

// Reranker is a kb.Reranker backed by a hugot cross-encoder pipeline.
type Reranker struct {
	mu sync.Mutex
	p  *pipelines.CrossEncoderPipeline
}

// Reranker loads a cross-encoder from dir.
func (r *Runtime) Reranker(dir string) (*Reranker, error) {
	const op = "embed.Reranker"
	view, cleanup, err := modelView(op, dir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	r.mu.Lock()
	p, err := hugot.NewPipeline(r.session, hugot.CrossEncoderConfig{
		ModelPath: view, Name: r.nextName("rerank"), OnnxFilename: "model.onnx",
		Options: []backends.PipelineOption[*pipelines.CrossEncoderPipeline]{
			pipelines.WithBatchSize(DefaultBatch), pipelines.WithSortResults(false),
		},
	})
	r.mu.Unlock()
	if err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "load reranker from %s", dir)
	}
	return &Reranker{p: p}, nil
}

// Rerank implements kb.Reranker: one relevance score per passage, in the
// passages' order.
func (rr *Reranker) Rerank(ctx context.Context, query string, passages []string) (scores []float64, err error) {
	const op = "embed.Rerank"
	if len(passages) == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rr.mu.Lock()
	defer rr.mu.Unlock()
	defer recoverInto(op, &err)
	out, err := rr.p.RunPipeline(query, passages)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	if len(out.Results) != len(passages) {
		return nil, errs.New(errs.RAG, op, "reranker scored %d of %d passages", len(out.Results), len(passages))
	}
	scores = make([]float64, len(passages))
	for _, res := range out.Results {
		scores[res.Index] = float64(res.Score)
	}
	return scores, nil
}
