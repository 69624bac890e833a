package embed

// Speed on graphs of the real models' size: random-weight BERTs with the
// exact shapes of bge-small-en-v1.5 and ms-marco-MiniLM-L6-v2
// (embedtest.BGESmallShape, embedtest.MiniLMRerankerShape), loaded through
// the same code path as a downloaded model. Never a search model.
//
// Cases: 16 chunks of 128, 256 and 512 tokens embedded (chunks/s), one
// query embedded (ms), 25 candidates of 256-token pairs reranked (ms). Each
// runs end to end on ONNX Runtime ("onnxruntime") and on the pure-Go
// backend ("go"), and as "onnxruntime-vs-node": the token batches the Go
// path makes, run by turns through its ONNX Runtime session and through
// the official onnxruntime-node binding (testdata/ort_reference.js) with
// the same thread count. The logs give the ratios against the targets.
//
//	JARVIS_SHAPE_GRAPHS=DIR go test -run '^$' -bench 'Shape/onnxruntime' -benchtime 10x ./backend/embed/
//	JARVIS_SHAPE_GRAPHS=DIR go test -run '^$' -bench 'Shape/go' -benchtime 1x -timeout 2h ./backend/embed/
//
// (the pure-Go backend needs minutes per embedding case). DIR receives the
// graphs on first use, about 220 MB. Optional: JARVIS_SHAPE_TOKENIZER, a
// real BERT-uncased tokenizer.json (30,522 tokens) instead of the synthetic
// vocabulary; JARVIS_ORT_NODE, the onnxruntime-node package directory
// (default: where build/scripts/setup.sh installs it). The library is found
// as at run time (JARVIS_ORT_LIB, ...).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
)

const (
	shapeGraphsEnv    = "JARVIS_SHAPE_GRAPHS"
	shapeTokenizerEnv = "JARVIS_SHAPE_TOKENIZER"
	ortNodeEnv        = "JARVIS_ORT_NODE"
)

// shapeSuite is shared by every benchmark of the run: the graphs, one
// runtime per backend and the models loaded on them.
type shapeSuite struct {
	embedDir, rerankDir string
	words               []string // single-token words of the vocabulary
	threads             int
	runtimes            map[string]*Runtime
	embedders           map[string]*Embedder
	rerankers           map[string]*Reranker
}

var (
	suiteOnce sync.Once
	suite     *shapeSuite
	suiteErr  error
)

func shapes(b *testing.B) *shapeSuite {
	b.Helper()
	root := os.Getenv(shapeGraphsEnv)
	if root == "" {
		b.Skipf("set %s to a directory for the real-shape graphs (about 220 MB, written on first use)", shapeGraphsEnv)
	}
	suiteOnce.Do(func() { suite, suiteErr = newShapeSuite(root) })
	if suiteErr != nil {
		b.Fatal(suiteErr)
	}
	return suite
}

func newShapeSuite(root string) (*shapeSuite, error) {
	s := &shapeSuite{
		embedDir: filepath.Join(root, "bge-small-shape"), rerankDir: filepath.Join(root, "msmarco-minilm-l6-shape"),
		threads:  runtime.NumCPU(),
		runtimes: map[string]*Runtime{}, embedders: map[string]*Embedder{}, rerankers: map[string]*Reranker{},
	}
	for dir, spec := range map[string]embedtest.BERT{s.embedDir: embedtest.BGESmallShape(), s.rerankDir: embedtest.MiniLMRerankerShape()} {
		if _, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx")); err != nil {
			if err := embedtest.WriteBERT(dir, spec); err != nil {
				return nil, err
			}
		}
		if tok := os.Getenv(shapeTokenizerEnv); tok != "" {
			data, err := os.ReadFile(tok)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	tok, err := loadTokenizer("bench", s.embedDir)
	if err != nil {
		return nil, err
	}
	for w := range tok.tk.GetVocab(false) {
		if len(w) >= 3 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
			s.words = append(s.words, w)
		}
	}
	slices.Sort(s.words)
	for _, backend := range []string{BackendORT, BackendGo} {
		rt, err := NewRuntimeWith(RuntimeOptions{Backend: backend, Threads: s.threads})
		if err != nil {
			return nil, err
		}
		s.runtimes[backend] = rt
	}
	return s, nil
}

func (s *shapeSuite) embedder(b *testing.B, backend string) *Embedder {
	if e := s.embedders[backend]; e != nil {
		return e
	}
	e, err := s.runtimes[backend].Embedder(EmbedderOptions{ID: "bge-small-shape", Dir: s.embedDir, Pooling: PoolCLS, QueryPrefix: BGEQueryPrefix})
	if err != nil {
		b.Fatal(err)
	}
	s.embedders[backend] = e
	return e
}

func (s *shapeSuite) reranker(b *testing.B, backend string) *Reranker {
	if r := s.rerankers[backend]; r != nil {
		return r
	}
	r, err := s.runtimes[backend].Reranker(s.rerankDir)
	if err != nil {
		b.Fatal(err)
	}
	s.rerankers[backend] = r
	return r
}

// text is `words` distinct-looking vocabulary words: exactly that many
// tokens. Seeded, so every run sees the same texts.
func (s *shapeSuite) text(seed uint64, words int) string {
	r := rand.New(rand.NewPCG(seed, 17))
	out := make([]string, words)
	for i := range out {
		out[i] = s.words[r.IntN(len(s.words))]
	}
	return strings.Join(out, " ")
}

// chunks are count texts of exactly n tokens, [CLS] and [SEP] included.
func (s *shapeSuite) chunks(b *testing.B, tok *textTokenizer, n, count int) []string {
	out := make([]string, count)
	for i := range out {
		out[i] = s.text(uint64(n*1000+i), n-2)
		if t, err := tok.single(out[i]); err != nil || len(t.ids) != n {
			b.Fatalf("chunk %d has %d tokens, want %d (%v)", i, len(t.ids), n, err)
		}
	}
	return out
}

// checkAgreement compares the pure-Go backend's vectors with ONNX
// Runtime's on the real-size graph.
func (s *shapeSuite) checkAgreement(b *testing.B, texts []string, pure [][]float32) {
	ort, err := s.embedder(b, BackendORT).EmbedDocuments(context.Background(), texts)
	if err != nil {
		b.Fatal(err)
	}
	worst := 1.0
	for i := range texts {
		var c float64
		for k := range ort[i] {
			c += float64(ort[i][k]) * float64(pure[i][k])
		}
		worst = min(worst, c)
	}
	if worst < 0.999 {
		b.Fatalf("the backends disagree: cosine %.6f", worst)
	}
	b.Logf("onnxruntime vs go: lowest cosine %.7f over %d chunks", worst, len(texts))
}

// chunksPerOp is how many chunks one embedding call gets: two batches at
// 128 tokens, eight at 512.
const chunksPerOp = 16

func BenchmarkShapeEmbed(b *testing.B) {
	s := shapes(b)
	sizes := []int{128, 256, 512}
	texts := map[int][]string{}
	rates := map[int]map[string]float64{}
	for _, n := range sizes {
		texts[n] = s.chunks(b, s.embedder(b, BackendORT).tok, n, chunksPerOp)
		rates[n] = map[string]float64{}
	}
	for _, backend := range []string{BackendORT, BackendGo} {
		b.Run(backend, func(b *testing.B) {
			for _, n := range sizes {
				b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
					e := s.embedder(b, backend)
					ctx := context.Background()
					// Warm-up: first-use allocations and, on the Go backend,
					// compiling the graph for these batch shapes.
					if _, err := e.EmbedDocuments(ctx, texts[n]); err != nil {
						b.Fatal(err)
					}
					var vecs [][]float32
					for b.Loop() {
						var err error
						if vecs, err = e.EmbedDocuments(ctx, texts[n]); err != nil {
							b.Fatal(err)
						}
					}
					rates[n][backend] = float64(len(texts[n])*b.N) / b.Elapsed().Seconds()
					b.ReportMetric(rates[n][backend], "chunks/s")
					if backend == BackendGo {
						s.checkAgreement(b, texts[n], vecs)
					}
				})
			}
		})
	}
	b.Run("onnxruntime-vs-node", func(b *testing.B) {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("tokens=%d", n), func(b *testing.B) {
				e := s.embedder(b, BackendORT)
				ort, node := s.versusNode(b, s.embedDir, &e.model, func() []tokens { return mustTokenize(b, texts[n], e.tok.single) })
				rates[n]["paired-ort"], rates[n]["node"] = len64(texts[n])/ort, len64(texts[n])/node
				b.ReportMetric(rates[n]["paired-ort"], "ort-chunks/s")
				b.ReportMetric(rates[n]["node"], "node-chunks/s")
				logRatios(b, fmt.Sprintf("embed %d tokens", n), rates[n])
			})
		}
	})
}

func BenchmarkShapeQuery(b *testing.B) {
	s := shapes(b)
	query := s.text(1, 8)
	rates := map[string]float64{}
	for _, backend := range []string{BackendORT, BackendGo} {
		b.Run(backend, func(b *testing.B) {
			e := s.embedder(b, backend)
			ctx := context.Background()
			if _, err := e.EmbedQuery(ctx, query); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := e.EmbedQuery(ctx, query); err != nil {
					b.Fatal(err)
				}
			}
			rates[backend] = float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/query")
		})
	}
	b.Run("onnxruntime-vs-node", func(b *testing.B) {
		e := s.embedder(b, BackendORT)
		ort, node := s.versusNode(b, s.embedDir, &e.model, func() []tokens {
			return mustTokenize(b, []string{BGEQueryPrefix + query}, e.tok.single)
		})
		rates["paired-ort"], rates["node"] = 1/ort, 1/node
		b.ReportMetric(ort*1000, "ort-ms/query")
		b.ReportMetric(node*1000, "node-ms/query")
		logRatios(b, "query", rates)
	})
}

// rerankCandidates is how many passages one search reranks (rag.rerank_top_n).
const rerankCandidates = 25

func BenchmarkShapeRerank(b *testing.B) {
	s := shapes(b)
	query := s.text(2, 8)
	passages := make([]string, rerankCandidates)
	for i := range passages {
		passages[i] = s.text(uint64(100+i), 245) // with the query: 256 tokens a pair
	}
	rates := map[string]float64{}
	for _, backend := range []string{BackendORT, BackendGo} {
		b.Run(backend, func(b *testing.B) {
			r := s.reranker(b, backend)
			ctx := context.Background()
			if _, err := r.Rerank(ctx, query, passages); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := r.Rerank(ctx, query, passages); err != nil {
					b.Fatal(err)
				}
			}
			rates[backend] = float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/rerank")
		})
	}
	b.Run("onnxruntime-vs-node", func(b *testing.B) {
		r := s.reranker(b, BackendORT)
		ort, node := s.versusNode(b, s.rerankDir, &r.model, func() []tokens {
			pairs := mustTokenize(b, passages, func(p string) (tokens, error) { return r.tok.pair(query, p) })
			if len(pairs[0].ids) != 256 {
				b.Fatalf("a pair has %d tokens, want 256", len(pairs[0].ids))
			}
			return pairs
		})
		rates["paired-ort"], rates["node"] = 1/ort, 1/node
		b.ReportMetric(ort*1000, "ort-ms/rerank")
		b.ReportMetric(node*1000, "node-ms/rerank")
		logRatios(b, fmt.Sprintf("rerank %d candidates", rerankCandidates), rates)
	})
}

func mustTokenize[T any](b *testing.B, items []T, tokenize func(T) (tokens, error)) []tokens {
	out, err := tokenizeAll("bench", items, tokenize)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func len64[T any](xs []T) float64 { return float64(len(xs)) }

// versusNode compares the Go ONNX Runtime path with onnxruntime-node on the
// same token batches: the batches m makes of tokenize's inputs run through
// m's session and through testdata/ort_reference.js by turns, each timed on
// its own and each first every other time, so load from elsewhere on the
// machine (and one runtime's threads still spinning when the other starts)
// weighs on both alike. Tokenising is timed apart ("tokenize-ms": the
// reference is handed ids). It returns the median seconds of each side's
// run and reports two speed ratios, node's time over the Go path's: the
// median of the per-turn ratios ("x-node") and the ratio of the fastest
// runs ("x-node-best", the least disturbed by other load).
func (s *shapeSuite) versusNode(b *testing.B, modelDir string, m *model, tokenize func() []tokens) (ort, node float64) {
	batches := plan(tokenize(), m.batch, m.tok.padID)
	w := startNode(b, modelDir, m, s.threads, batches)
	runORT := func() {
		for _, pb := range batches {
			if _, err := m.enc.run(pb); err != nil {
				b.Fatal(err)
			}
		}
	}
	runNode := func() { w.run(b) }
	timed := func(f func()) float64 {
		start := time.Now()
		f()
		return time.Since(start).Seconds()
	}
	runORT() // warm-up, as the reference had
	var tokTimes, ortTimes, nodeTimes, ratios []float64
	for i := 0; b.Loop(); i++ {
		tokTimes = append(tokTimes, timed(func() { tokenize() }))
		var o, n float64
		if i%2 == 0 {
			o, n = timed(runORT), timed(runNode)
		} else {
			n, o = timed(runNode), timed(runORT)
		}
		ortTimes, nodeTimes, ratios = append(ortTimes, o), append(nodeTimes, n), append(ratios, n/o)
	}
	b.ReportMetric(median(ratios), "x-node")
	b.ReportMetric(slices.Min(nodeTimes)/slices.Min(ortTimes), "x-node-best")
	b.ReportMetric(median(tokTimes)*1000, "tokenize-ms")
	return median(ortTimes), median(nodeTimes)
}

func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// logRatios prints the targets: ONNX Runtime against the pure-Go backend
// (each measured alone, tokenising included) and against onnxruntime-node
// (the same token batches, by turns).
// The node case runs last, so every rate of the case is in by then.
func logRatios(b *testing.B, what string, rates map[string]float64) {
	if ort, goRate := rates[BackendORT], rates[BackendGo]; ort > 0 && goRate > 0 {
		b.Logf("%s: onnxruntime %.1fx the pure-Go backend", what, ort/goRate)
	}
	if ort, node := rates["paired-ort"], rates["node"]; ort > 0 && node > 0 {
		b.Logf("%s: onnxruntime %.2fx onnxruntime-node (ratio of the medians, by turns)", what, ort/node)
	}
}

// nodeWorker is testdata/ort_reference.js running the batches the Go
// ONNX Runtime path makes of the same inputs.
type nodeWorker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startNode(b *testing.B, modelDir string, m *model, threads int, batches []*paddedBatch) *nodeWorker {
	module := os.Getenv(ortNodeEnv)
	if module == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			b.Fatal(err)
		}
		module = filepath.Join(cache, "jarvis", "onnxruntime-node-1.30.0", "node_modules", "onnxruntime-node")
	}
	if _, err := os.Stat(filepath.Join(module, "package.json")); err != nil {
		b.Skipf("onnxruntime-node is not installed at %s (build/scripts/setup.sh installs it; or set %s)", module, ortNodeEnv)
	}
	graph, err := graphPath("bench", modelDir)
	if err != nil {
		b.Fatal(err)
	}
	type jsonBatch struct {
		Rows          int     `json:"rows"`
		Seq           int     `json:"seq"`
		InputIDs      []int64 `json:"input_ids"`
		AttentionMask []int64 `json:"attention_mask"`
		TokenTypeIDs  []int64 `json:"token_type_ids"`
	}
	var js []jsonBatch
	for _, pb := range batches {
		js = append(js, jsonBatch{pb.rows, pb.seq, pb.ids, pb.mask, pb.types})
	}
	file := filepath.Join(b.TempDir(), "batches.json")
	data, err := json.Marshal(js)
	if err == nil {
		err = os.WriteFile(file, data, 0o600)
	}
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "ort_reference.js"), graph, file, fmt.Sprint(threads))
	cmd.Env = append(os.Environ(), "ORT_NODE="+module)
	cmd.Stderr = os.Stderr
	w := &nodeWorker{cmd: cmd}
	if w.in, err = cmd.StdinPipe(); err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	w.out = bufio.NewScanner(stdout)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = w.in.Close() // the script ends when its input does
		if err := cmd.Wait(); err != nil {
			b.Errorf("node reference: %v", err)
		}
	})
	w.expect(b, "ready")
	var info struct {
		Binding string    `json:"binding"`
		Sample  []float32 `json:"sample"`
	}
	if !w.out.Scan() || json.Unmarshal(w.out.Bytes(), &info) != nil {
		b.Fatalf("node reference: no sample line (%v)", w.out.Err())
	}
	// The same graph on the same batch must compute the same numbers.
	mine, err := m.enc.run(batches[0])
	if err != nil {
		b.Fatal(err)
	}
	for i, x := range info.Sample {
		if math.Abs(float64(x-mine.data[i])) > 1e-3 {
			b.Fatalf("node output %v differs from the Go ONNX Runtime path %v", info.Sample, mine.data[:len(info.Sample)])
		}
	}
	b.Logf("onnxruntime-node %s, %d batches", info.Binding, len(batches))
	return w
}

func (w *nodeWorker) run(b *testing.B) {
	if _, err := io.WriteString(w.in, "run\n"); err != nil {
		b.Fatal(err)
	}
	w.expect(b, "done")
}

func (w *nodeWorker) expect(b *testing.B, line string) {
	if !w.out.Scan() || w.out.Text() != line {
		b.Fatalf("node reference: got %q, want %q (%v)", w.out.Text(), line, w.out.Err())
	}
}

// BenchmarkShapeRerankOptions is the rerank case through ONNX Runtime with
// the levers a user can set: pairs capped at 192 or 128 tokens (the
// passage's window around the query's words) and the weights in int8.
// The 25 passages are 245 tokens long, as a 1,024-character chunk is.
func BenchmarkShapeRerankOptions(b *testing.B) {
	s := shapes(b)
	query := s.text(2, 8)
	passages := make([]string, rerankCandidates)
	for i := range passages {
		passages[i] = s.text(uint64(100+i), 245)
	}
	cases := []struct {
		name        string
		int8, plain bool
	}{{name: "float32"}, {name: "int8", int8: true}, {name: "int8-unfused", int8: true, plain: true}}
	for _, c := range cases {
		for _, limit := range []int{0, 256, 192, 128} {
			b.Run(fmt.Sprintf("%s/pair-%d", c.name, limit), func(b *testing.B) {
				if c.plain { // the int8 copy without fuse.go's fusions, for the same-run comparison
					quantize = func(m []byte, l float64) (net.Buffers, quantizeStats, error) {
						return quantizeGraphWith(m, l, quantizeOptions{noFuse: true, tableBytes: 1 << 20})
					}
					defer func() { quantize = quantizeGraph }()
				}
				rt, err := NewRuntimeWith(RuntimeOptions{Backend: BackendORT, CacheDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				defer rt.Close()
				r, err := rt.RerankerWith(RerankerOptions{Dir: s.rerankDir, MaxPairTokens: limit, Int8: c.int8})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				if _, err := r.Rerank(ctx, query, passages); err != nil {
					b.Fatal(err)
				}
				var took []time.Duration
				for b.Loop() {
					start := time.Now()
					if _, err := r.Rerank(ctx, query, passages); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/rerank")
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
			})
		}
	}
}
