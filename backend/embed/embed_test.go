package embed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

var corpus = []string{
	"Tomato plants need full sun and regular watering.",
	"The transformer architecture uses attention over tokens.",
	"Sourdough bread rises slowly with wild yeast.",
	"Attention heads in a transformer compare every token with every other token.",
}

// One runtime per backend for the whole test binary, as in the app.
var (
	rtOnce   sync.Once
	runtimes map[string]*embed.Runtime
	ortErr   error // why ONNX Runtime is not available
	goErr    error
)

// forEachBackend runs f on the pure-Go backend and on ONNX Runtime. Without
// the library the ONNX Runtime half is skipped — unless
// JARVIS_REQUIRE_TOOLS is set (CI), where it must run.
func forEachBackend(t *testing.T, f func(t *testing.T, rt *embed.Runtime)) {
	t.Helper()
	rtOnce.Do(func() {
		runtimes = map[string]*embed.Runtime{}
		var rt *embed.Runtime
		if rt, goErr = embed.NewRuntimeWith(embed.RuntimeOptions{Backend: embed.BackendGo}); goErr == nil {
			runtimes[embed.BackendGo] = rt
		}
		if rt, ortErr = embed.NewRuntimeWith(embed.RuntimeOptions{Backend: embed.BackendORT}); ortErr == nil {
			runtimes[embed.BackendORT] = rt
		}
	})
	if goErr != nil {
		t.Fatal(goErr)
	}
	for _, backend := range []string{embed.BackendGo, embed.BackendORT} {
		t.Run(backend, func(t *testing.T) {
			rt := runtimes[backend]
			if rt == nil {
				requireORT(t)
			}
			f(t, rt)
		})
	}
}

func requireORT(t *testing.T) {
	t.Helper()
	if ortErr == nil {
		return
	}
	if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
		t.Fatalf("ONNX Runtime is required here: %v", ortErr)
	}
	t.Skipf("ONNX Runtime not installed (%v)", ortErr)
}

func newEmbedder(t *testing.T, rt *embed.Runtime, pooling string) *embed.Embedder {
	t.Helper()
	dir := t.TempDir()
	words := embedtest.Words(append(corpus, "which plants need sun", embed.BGEQueryPrefix)...)
	if err := embedtest.WriteEmbedder(dir, words); err != nil {
		t.Fatal(err)
	}
	e, err := rt.Embedder(embed.EmbedderOptions{ID: "embedtest-bow", Dir: dir, Pooling: pooling, Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedderShapesNormsAndBatching(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		for _, pooling := range []string{embed.PoolCLS, embed.PoolMean} {
			t.Run(pooling, func(t *testing.T) {
				e := newEmbedder(t, rt, pooling)
				info := e.Info()
				if info.ID != "embedtest-bow" || info.Dims < 20 {
					t.Fatalf("info = %+v", info)
				}
				if e.Backend() != rt.Backend() {
					t.Fatalf("embedder backend %q on a %q runtime", e.Backend(), rt.Backend())
				}
				// 4 texts with batch size 3 = two batches of different padded lengths.
				vecs, err := e.EmbedDocuments(context.Background(), corpus)
				if err != nil {
					t.Fatal(err)
				}
				if len(vecs) != len(corpus) {
					t.Fatalf("got %d vectors for %d texts", len(vecs), len(corpus))
				}
				for i, v := range vecs {
					if len(v) != info.Dims {
						t.Fatalf("vector %d has %d dims, want %d", i, len(v), info.Dims)
					}
					if n := math.Sqrt(dot(v, v)); math.Abs(n-1) > 1e-4 {
						t.Fatalf("vector %d norm %v, want 1", i, n)
					}
				}
				// Batching, sorting by length and padding must not change a
				// text's vector nor its place in the result.
				for i, text := range corpus {
					alone, err := e.EmbedDocuments(context.Background(), []string{text})
					if err != nil {
						t.Fatal(err)
					}
					if d := dot(alone[0], vecs[i]); d < 0.9999 {
						t.Fatalf("text %d embedded alone vs in a padded batch: cosine %v", i, d)
					}
				}
				// The two transformer texts share words; the bread text shares none with them.
				if s, o := dot(vecs[1], vecs[3]), dot(vecs[1], vecs[2]); s <= o {
					t.Fatalf("related texts cosine %v <= unrelated %v", s, o)
				}
			})
		}
	})
}

func TestEmbedQueryUsesPrefix(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		dir := t.TempDir()
		if err := embedtest.WriteEmbedder(dir, embedtest.Words(corpus[0], embed.BGEQueryPrefix)); err != nil {
			t.Fatal(err)
		}
		bare, err := rt.Embedder(embed.EmbedderOptions{ID: "a", Dir: dir, Pooling: embed.PoolMean})
		if err != nil {
			t.Fatal(err)
		}
		prefixed, err := rt.Embedder(embed.EmbedderOptions{ID: "b", Dir: dir, Pooling: embed.PoolMean, QueryPrefix: embed.BGEQueryPrefix})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		q1, _ := bare.EmbedQuery(ctx, "tomato plants")
		q2, err := prefixed.EmbedQuery(ctx, "tomato plants")
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := bare.EmbedDocuments(ctx, []string{"tomato plants"})
		if dot(q1, doc[0]) < 0.9999 {
			t.Fatal("without a prefix the query and the identical document must embed the same")
		}
		if dot(q2, doc[0]) > 0.99 {
			t.Fatal("the query prefix was not applied")
		}
	})
}

// E5 models are trained with "query: " before queries and "passage: "
// before documents: with both set, a query and the identical document
// embed alike again, and each differs from its bare form.
func TestEmbedPassageUsesPrefix(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		dir := t.TempDir()
		if err := embedtest.WriteEmbedder(dir, embedtest.Words(corpus[0], "query: passage:")); err != nil {
			t.Fatal(err)
		}
		bare, err := rt.Embedder(embed.EmbedderOptions{ID: "a", Dir: dir, Pooling: embed.PoolMean})
		if err != nil {
			t.Fatal(err)
		}
		e5, err := rt.Embedder(embed.EmbedderOptions{ID: "b", Dir: dir, Pooling: embed.PoolMean, QueryPrefix: "query: ", PassagePrefix: "passage: "})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		doc, err := e5.EmbedDocuments(ctx, []string{"tomato plants"})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := bare.EmbedDocuments(ctx, []string{"passage: tomato plants"})
		plain, _ := bare.EmbedDocuments(ctx, []string{"tomato plants"})
		if dot(doc[0], want[0]) < 0.9999 || dot(doc[0], plain[0]) > 0.99 {
			t.Fatalf("the passage prefix was not applied: cosine %v to the prefixed text, %v to the bare one", dot(doc[0], want[0]), dot(doc[0], plain[0]))
		}
		q, _ := e5.EmbedQuery(ctx, "tomato plants")
		wantQ, _ := bare.EmbedQuery(ctx, "query: tomato plants")
		if dot(q, wantQ[:]) < 0.9999 {
			t.Fatal("the query prefix was not applied")
		}
	})
}

func TestEmbedderTruncatesLongInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		e := newEmbedder(t, rt, embed.PoolMean)
		ctx := context.Background()
		// The model has 512 positions: a longer text is cut there, so what
		// follows position 512 cannot change its vector.
		head := strings.Repeat("tomato ", embedtest.MaxPositions)
		vecs, err := e.EmbedDocuments(ctx, []string{head + strings.Repeat("bread ", 2*embedtest.MaxPositions), head})
		if err != nil {
			t.Fatalf("long input must be truncated, not fail: %v", err)
		}
		if d := dot(vecs[0], vecs[1]); d < 0.9999 {
			t.Fatalf("text beyond the position limit changed the vector: cosine %v", d)
		}
	})
}

// An exported tokenizer.json may truncate at 128 tokens and pad every input
// to 128 (all-MiniLM-L6-v2's does); Jarvis truncates at the model's
// position limit instead and pads per batch.
func TestExportedTokenizerLimitsAreOverridden(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		dir := t.TempDir()
		if err := embedtest.WriteEmbedder(dir, embedtest.Words(corpus...)); err != nil {
			t.Fatal(err)
		}
		if err := embedtest.SetExportLimits(dir, 8, 16); err != nil {
			t.Fatal(err)
		}
		e, err := rt.Embedder(embed.EmbedderOptions{ID: "limits", Dir: dir, Pooling: embed.PoolMean})
		if err != nil {
			t.Fatal(err)
		}
		// Same first 9 words; they differ only after token 8.
		shared := "tomato plants need full sun and regular watering tomato "
		vecs, err := e.EmbedDocuments(context.Background(), []string{shared + "sourdough bread rises slowly", shared + "attention heads compare tokens"})
		if err != nil {
			t.Fatal(err)
		}
		if d := dot(vecs[0], vecs[1]); d > 0.99 {
			t.Fatalf("texts that differ after token 8 embed alike (cosine %v): the exported truncation was applied", d)
		}
	})
}

func TestEmbedderCancelled(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		e := newEmbedder(t, rt, embed.PoolMean)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := e.EmbedDocuments(ctx, corpus); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestMissingModelHasHint(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		_, err := rt.Embedder(embed.EmbedderOptions{ID: "x", Dir: t.TempDir()})
		if !errs.Is(err, errs.NotFound) || !strings.Contains(errs.HintOf(err), "models fetch") {
			t.Fatalf("err = %v (hint %q)", err, errs.HintOf(err))
		}
		if _, err := rt.Reranker(t.TempDir()); !errs.Is(err, errs.NotFound) {
			t.Fatalf("reranker err = %v", err)
		}
		if _, err := rt.Embedder(embed.EmbedderOptions{ID: "x", Dir: t.TempDir(), Pooling: "max"}); !errs.Is(err, errs.Invalid) {
			t.Fatalf("bad pooling err = %v", err)
		}
	})
}

func TestRerankerScoresInPassageOrder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		dir := t.TempDir()
		if err := embedtest.WriteReranker(dir, embedtest.Words(corpus...)); err != nil {
			t.Fatal(err)
		}
		rr, err := rt.Reranker(dir)
		if err != nil {
			t.Fatal(err)
		}
		scores, err := rr.Rerank(context.Background(), "transformer attention tokens", corpus)
		if err != nil {
			t.Fatal(err)
		}
		if len(scores) != len(corpus) {
			t.Fatalf("%d scores", len(scores))
		}
		// Passages 1 and 3 share words with the query; 0 and 2 share none.
		for _, rel := range []int{1, 3} {
			for _, irr := range []int{0, 2} {
				if scores[rel] <= scores[irr] {
					t.Fatalf("scores %v: relevant passage %d not above unrelated %d", scores, rel, irr)
				}
			}
		}
		if none, _ := rr.Rerank(context.Background(), "q", nil); none != nil {
			t.Fatal("no passages, no scores")
		}
	})
}

func TestRerankerRejectsAnEmbedder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		dir := t.TempDir()
		if err := embedtest.WriteEmbedder(dir, embedtest.Words(corpus...)); err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Reranker(dir); !errs.Is(err, errs.RAG) {
			t.Fatalf("an embedding model loaded as a reranker: err = %v", err)
		}
	})
}

// Searches embed queries while indexing embeds documents: calls overlap.
func TestConcurrentCalls(t *testing.T) {
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		e := newEmbedder(t, rt, embed.PoolCLS)
		dir := t.TempDir()
		if err := embedtest.WriteReranker(dir, embedtest.Words(corpus...)); err != nil {
			t.Fatal(err)
		}
		rr, err := rt.Reranker(dir)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		want, err := e.EmbedDocuments(ctx, corpus)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		failures := make(chan string, 30)
		for g := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					switch g % 3 {
					case 0:
						got, err := e.EmbedDocuments(ctx, corpus)
						if err != nil || dot(got[2], want[2]) < 0.9999 {
							failures <- fmt.Sprintf("documents: %v", err)
						}
					case 1:
						got, err := e.EmbedQuery(ctx, corpus[1])
						if err != nil || dot(got, want[1]) < 0.9999 {
							failures <- fmt.Sprintf("query: %v", err)
						}
					default:
						if _, err := rr.Rerank(ctx, "transformer", corpus); err != nil {
							failures <- fmt.Sprintf("rerank: %v", err)
						}
					}
				}
			}()
		}
		wg.Wait()
		close(failures)
		for f := range failures {
			t.Error(f)
		}
	})
}

func TestModelsFailAfterTheRuntimeCloses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, shared *embed.Runtime) {
		rt, err := embed.NewRuntimeWith(embed.RuntimeOptions{Backend: shared.Backend()})
		if err != nil {
			t.Fatal(err)
		}
		e := newEmbedder(t, rt, embed.PoolCLS)
		if err := rt.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.EmbedQuery(context.Background(), "tomato"); !errs.Is(err, errs.RAG) {
			t.Fatalf("embedding on a closed runtime: err = %v", err)
		}
		if err := rt.Close(); err != nil {
			t.Fatalf("second close: %v", err)
		}
		dir := t.TempDir()
		if err := embedtest.WriteEmbedder(dir, embedtest.Words(corpus...)); err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Embedder(embed.EmbedderOptions{ID: "late", Dir: dir}); !errs.Is(err, errs.Internal) {
			t.Fatalf("loading on a closed runtime: err = %v", err)
		}
	})
}
