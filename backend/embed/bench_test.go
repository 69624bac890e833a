package embed_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
)

// BenchmarkEmbedPipeline measures what Jarvis adds around a model —
// tokenising, padding, batching, pooling — with the one-layer fixture graph,
// on the backend NewRuntime picks. It is not a BGE number: see
// BenchmarkShapeEmbed for graphs of the real size.
func BenchmarkEmbedPipeline(b *testing.B) {
	rt, err := embed.NewRuntime()
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	dir := b.TempDir()
	text := strings.Repeat("the transformer compares every token with every other token ", 12) // ~130 words, a typical chunk
	if err := embedtest.WriteEmbedder(dir, embedtest.Words(text)); err != nil {
		b.Fatal(err)
	}
	e, err := rt.Embedder(embed.EmbedderOptions{ID: "fixture", Dir: dir, Pooling: embed.PoolCLS})
	if err != nil {
		b.Fatal(err)
	}
	batch := make([]string, 64)
	for i := range batch {
		batch[i] = fmt.Sprintf("%s %d", text, i)
	}
	n := 0
	for b.Loop() {
		if _, err := e.EmbedDocuments(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}
