package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
	"github.com/jarvis-kb/jarvis/backend/vaultwatch"
)

// These benchmarks time the knowledge base's own machinery around the
// models with the fixture embedder (a bag-of-words graph run through the
// real tokenizer and ONNX runtime): backfill throughput, search latency
// while a backfill runs, and the time from a note saved to it being found.
// The fixture is far cheaper than BGE; real-size inference speed is
// measured in backend/embed.

var benchWords = strings.Fields(`landlord deposit lease tomato garden prune compost kernel register cache attention
	token sparse window grant budget protein folding sequence cluster partition sourdough starter passport renewal
	insurance pension travel ferry glacier harbour crane kettle descale meeting onboarding reviewer ablation note`)

func benchVault(b *testing.B, notes int) (*config.Config, string) {
	b.Helper()
	cfg := configtest.New(b)
	cfg.Vault.Path = b.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	for i := range notes {
		var t strings.Builder
		fmt.Fprintf(&t, "# Note %d\n\n", i)
		for j := range 150 {
			if j > 0 && j%50 == 0 {
				t.WriteString("\n\n")
			}
			t.WriteString(benchWords[r.IntN(len(benchWords))] + " ")
		}
		p := filepath.Join(cfg.Vault.Path, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("n%05d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(t.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	model := filepath.Join(b.TempDir(), "bow")
	if err := embedtest.WriteEmbedder(model, benchWords); err != nil {
		b.Fatal(err)
	}
	cfg.RAG.RerankModel = ""
	return cfg, model
}

// BenchmarkBackfill embeds a 2,000-note vault stored with pending vectors.
func BenchmarkBackfill(b *testing.B) {
	cfg, model := benchVault(b, 2000)
	ctx := context.Background()
	cfg.RAG.EmbedModel = ""
	st, _ := openIndexed(b, cfg).Status(ctx)
	cfg.RAG.EmbedModel = model
	for b.Loop() {
		e, err := engine.Open(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := e.Store.ForgetVectors(ctx, e.Embedder().Info().ID); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := e.Backfill(ctx, kb.BackfillOptions{})
		if err != nil || res.Embedded != st.Chunks {
			b.Fatalf("%+v %v", res, err)
		}
		e.Close()
	}
	b.ReportMetric(float64(st.Chunks)*float64(b.N)/b.Elapsed().Seconds(), "chunks/s")
}

// openIndexed opens an engine on cfg and indexes its vault (vectors too
// when a model is configured).
func openIndexed(b *testing.B, cfg *config.Config) *engine.Engine {
	b.Helper()
	ctx := context.Background()
	e, err := engine.Open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if _, err := e.Refresher().Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := e.Backfill(ctx, kb.BackfillOptions{}); err != nil {
		b.Fatal(err)
	}
	return e
}

// BenchmarkSearchDuringBackfill reports keyword+dense search latency on an
// idle store and while another engine (as the tray would) backfills it.
func BenchmarkSearchDuringBackfill(b *testing.B) {
	cfg, model := benchVault(b, 2000)
	ctx := context.Background()
	cfg.RAG.EmbedModel = model
	e := openIndexed(b, cfg)
	queries := []string{"landlord deposit", "tomato garden compost", "kernel cache register", "grant budget meeting"}
	measure := func(b *testing.B) {
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			if _, err := e.Searcher.Search(ctx, queries[i%len(queries)], 8, kb.Filter{}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	}
	b.Run("idle", func(b *testing.B) { measure(b) })
	b.Run("backfilling", func(b *testing.B) {
		// A second engine on the same store re-embeds everything, one
		// committed batch at a time, while this one searches.
		other, err := engine.Open(cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer other.Close()
		if err := other.Store.ForgetVectors(ctx, other.Embedder().Info().ID); err != nil {
			b.Fatal(err)
		}
		stop, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for stop.Err() == nil { // start over whenever it completes, so it runs throughout
				if err := other.Store.ForgetVectors(ctx, other.Embedder().Info().ID); err != nil {
					return
				}
				other.Backfill(stop, kb.BackfillOptions{})
			}
		}()
		measure(b)
		cancel()
		<-done
	})
}

// BenchmarkSaveToFound reports the time from a note written into a watched
// vault of 2,000 notes to it being found by keyword search.
func BenchmarkSaveToFound(b *testing.B) {
	cfg, _ := benchVault(b, 2000)
	cfg.RAG.EmbedModel = ""
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := openIndexed(b, cfg)
	w := &vaultwatch.Watcher{Refresher: e.Refresher(), OnChange: func(vault.Result) {}}
	go w.Run(ctx)
	time.Sleep(500 * time.Millisecond) // the watcher's initial refresh
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		word := fmt.Sprintf("zqx%dmarker", i)
		start := time.Now()
		if err := os.WriteFile(filepath.Join(cfg.Vault.Path, "d00", fmt.Sprintf("saved%d.md", i)), []byte("# Saved\n\n"+word), 0o644); err != nil {
			b.Fatal(err)
		}
		for {
			hits, err := e.Store.BM25(ctx, word, kb.Filter{}, 1)
			if err != nil {
				b.Fatal(err)
			}
			if len(hits) == 1 {
				break
			}
			if time.Since(start) > 10*time.Second {
				b.Fatal("not found within 10 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Milliseconds()), "max-ms")
}
