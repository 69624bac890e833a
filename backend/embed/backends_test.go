package embed_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
)

// A small random-weight BERT: attention, the additive padding mask,
// LayerNormalization and erf GELU, so the backends are compared on the
// operations of a real transformer rather than on a bag of words.
func smallBERT(crossEncoder bool) embedtest.BERT {
	return embedtest.BERT{
		Words:  embedtest.Words(append(corpus, "which plants need sun", embed.BGEQueryPrefix)...),
		Hidden: 32, Layers: 2, Heads: 4, FFN: 64, Positions: embedtest.MaxPositions,
		CrossEncoder: crossEncoder, Seed: 7, Std: 0.3,
	}
}

// texts of very different lengths, so batches pad.
var mixedLengths = append([]string{
	"sun",
	strings.Repeat("tomato plants need full sun and regular watering ", 9),
}, corpus...)

func writeBERT(t *testing.T, crossEncoder bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := embedtest.WriteBERT(dir, smallBERT(crossEncoder)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// On the same inputs ONNX Runtime and the pure-Go backend must produce the
// same vectors (cosine >= 0.999) and the same reranking scores.
func TestBackendsAgree(t *testing.T) {
	vectors := map[string]map[string][][]float32{} // pooling -> backend -> vectors
	scores := map[string][]float64{}
	embedDir, rerankDir := writeBERT(t, false), writeBERT(t, true)
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		for _, pooling := range []string{embed.PoolCLS, embed.PoolMean} {
			e, err := rt.Embedder(embed.EmbedderOptions{ID: "bert", Dir: embedDir, Pooling: pooling, Batch: 4})
			if err != nil {
				t.Fatal(err)
			}
			vs, err := e.EmbedDocuments(context.Background(), mixedLengths)
			if err != nil {
				t.Fatal(err)
			}
			if vectors[pooling] == nil {
				vectors[pooling] = map[string][][]float32{}
			}
			vectors[pooling][rt.Backend()] = vs
		}
		rr, err := rt.Reranker(rerankDir)
		if err != nil {
			t.Fatal(err)
		}
		if scores[rt.Backend()], err = rr.Rerank(context.Background(), "which plants need sun", mixedLengths); err != nil {
			t.Fatal(err)
		}
	})
	if len(scores) < 2 {
		requireORT(t) // the ONNX Runtime half did not run
	}
	for pooling, byBackend := range vectors {
		ort, pure := byBackend[embed.BackendORT], byBackend[embed.BackendGo]
		for i := range mixedLengths {
			if c := dot(ort[i], pure[i]); c < 0.999 {
				t.Errorf("%s pooling, text %d: cosine %.6f between the backends", pooling, i, c)
			}
		}
		// Not a trivial agreement: the texts get distinct vectors.
		if c := dot(ort[0], ort[1]); c > 0.99 {
			t.Errorf("%s pooling: unrelated texts have cosine %v; the model is degenerate", pooling, c)
		}
	}
	for i := range mixedLengths {
		if d := math.Abs(scores[embed.BackendORT][i] - scores[embed.BackendGo][i]); d > 1e-3 {
			t.Errorf("passage %d: scores %v (onnxruntime) vs %v (go)", i, scores[embed.BackendORT][i], scores[embed.BackendGo][i])
		}
	}
}

// Padding must be invisible: through real attention, a text's vector and
// score are the same alone and in a batch padded to a much longer text.
func TestTransformerIgnoresPadding(t *testing.T) {
	embedDir, rerankDir := writeBERT(t, false), writeBERT(t, true)
	forEachBackend(t, func(t *testing.T, rt *embed.Runtime) {
		ctx := context.Background()
		e, err := rt.Embedder(embed.EmbedderOptions{ID: "bert", Dir: embedDir, Pooling: embed.PoolMean})
		if err != nil {
			t.Fatal(err)
		}
		batched, err := e.EmbedDocuments(ctx, mixedLengths)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := rt.Reranker(rerankDir)
		if err != nil {
			t.Fatal(err)
		}
		query := "which plants need sun"
		scores, err := rr.Rerank(ctx, query, mixedLengths)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range mixedLengths {
			alone, err := e.EmbedDocuments(ctx, []string{text})
			if err != nil {
				t.Fatal(err)
			}
			if c := dot(alone[0], batched[i]); c < 0.9999 {
				t.Errorf("text %d: cosine %v alone vs padded in a batch", i, c)
			}
			one, err := rr.Rerank(ctx, query, []string{text})
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(one[0] - scores[i]); d > 1e-5 {
				t.Errorf("passage %d: score %v alone vs %v in a batch", i, one[0], scores[i])
			}
		}
	})
}
