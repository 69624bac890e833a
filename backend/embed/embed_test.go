package embed_test

import (
	"context"
	"errors"
	"math"
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

// shared runtime: one hugot session per test binary, as in the app.
var (
	rtOnce sync.Once
	rt     *embed.Runtime
	rtErr  error
)

func runtime(t *testing.T) *embed.Runtime {
	t.Helper()
	rtOnce.Do(func() { rt, rtErr = embed.NewRuntime() })
	if rtErr != nil {
		t.Fatal(rtErr)
	}
	return rt
}

func newEmbedder(t *testing.T, pooling string) *embed.Embedder {
	t.Helper()
	dir := t.TempDir()
	words := embedtest.Words(append(corpus, "which plants need sun", embed.BGEQueryPrefix)...)
	if err := embedtest.WriteEmbedder(dir, words); err != nil {
		t.Fatal(err)
	}
	e, err := runtime(t).Embedder(embed.EmbedderOptions{ID: "embedtest-bow", Dir: dir, Pooling: pooling, Batch: 3})
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
	for _, pooling := range []string{embed.PoolCLS, embed.PoolMean} {
		t.Run(pooling, func(t *testing.T) {
			e := newEmbedder(t, pooling)
			info := e.Info()
			if info.ID != "embedtest-bow" || info.Dims < 20 {
				t.Fatalf("info = %+v", info)
			}
			if e.Backend() != "go" {
				t.Fatalf("backend = %q", e.Backend())
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
			// Batching and padding must not change a text's vector.
			alone, err := e.EmbedDocuments(context.Background(), corpus[3:])
			if err != nil {
				t.Fatal(err)
			}
			if d := dot(alone[0], vecs[3]); d < 0.9999 {
				t.Fatalf("same text embedded alone vs in a padded batch: cosine %v", d)
			}
			// The two transformer texts share words; the bread text shares none with them.
			if s, o := dot(vecs[1], vecs[3]), dot(vecs[1], vecs[2]); s <= o {
				t.Fatalf("related texts cosine %v <= unrelated %v", s, o)
			}
		})
	}
}

func TestEmbedQueryUsesPrefix(t *testing.T) {
	dir := t.TempDir()
	if err := embedtest.WriteEmbedder(dir, embedtest.Words(corpus[0], embed.BGEQueryPrefix)); err != nil {
		t.Fatal(err)
	}
	bare, err := runtime(t).Embedder(embed.EmbedderOptions{ID: "a", Dir: dir, Pooling: embed.PoolMean})
	if err != nil {
		t.Fatal(err)
	}
	prefixed, err := runtime(t).Embedder(embed.EmbedderOptions{ID: "b", Dir: dir, Pooling: embed.PoolMean, QueryPrefix: embed.BGEQueryPrefix})
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
}

func TestEmbedderTruncatesLongInput(t *testing.T) {
	e := newEmbedder(t, embed.PoolMean)
	long := strings.Repeat("tomato ", 3*embedtest.MaxPositions)
	vecs, err := e.EmbedDocuments(context.Background(), []string{long})
	if err != nil {
		t.Fatalf("long input must be truncated, not fail: %v", err)
	}
	if len(vecs[0]) != e.Info().Dims {
		t.Fatal("bad vector")
	}
}

func TestEmbedderCancelled(t *testing.T) {
	e := newEmbedder(t, embed.PoolMean)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EmbedDocuments(ctx, corpus); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestMissingModelHasHint(t *testing.T) {
	_, err := runtime(t).Embedder(embed.EmbedderOptions{ID: "x", Dir: t.TempDir()})
	if !errs.Is(err, errs.NotFound) || !strings.Contains(errs.HintOf(err), "models fetch") {
		t.Fatalf("err = %v (hint %q)", err, errs.HintOf(err))
	}
	if _, err := runtime(t).Reranker(t.TempDir()); !errs.Is(err, errs.NotFound) {
		t.Fatalf("reranker err = %v", err)
	}
	if _, err := runtime(t).Embedder(embed.EmbedderOptions{ID: "x", Dir: t.TempDir(), Pooling: "max"}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("bad pooling err = %v", err)
	}
}

func TestRerankerScoresInPassageOrder(t *testing.T) {
	dir := t.TempDir()
	if err := embedtest.WriteReranker(dir, embedtest.Words(corpus...)); err != nil {
		t.Fatal(err)
	}
	rr, err := runtime(t).Reranker(dir)
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
}
