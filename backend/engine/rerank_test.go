package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// The configured precision reaches the reranker: "int8" leaves one int8
// graph in the model cache and reranks with it; "float32" derives none.
func TestRerankPrecisionFromSettings(t *testing.T) {
	if os.Getenv("JARVIS_ORT_LIB") == "" && os.Getenv("JARVIS_REQUIRE_TOOLS") == "" {
		t.Skip("ONNX Runtime not configured (JARVIS_ORT_LIB)")
	}
	cfg, texts := vaultOf(t, map[string]string{
		"sun.md":   "Tomato plants need full sun and regular watering.",
		"bread.md": "Sourdough bread rises slowly with wild yeast and needs warmth.",
		"heads.md": "Attention heads compare every token with every other token, and need memory.",
	})
	rr := filepath.Join(t.TempDir(), "rr")
	spec := embedtest.BERT{Words: embedtest.Words(texts...), Hidden: 32, Layers: 2, Heads: 4, FFN: 64, Positions: embedtest.MaxPositions, CrossEncoder: true, Seed: 5, Std: 0.2}
	if err := embedtest.WriteBERT(rr, spec); err != nil {
		t.Fatal(err)
	}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = "", rr
	for _, precision := range []string{"float32", "int8"} {
		cfg.RAG.RerankPrecision = precision
		e, err := engine.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := e.Refresher().Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := e.Searcher.Search(ctx, "need", 3, kb.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Mode.Rerank || len(res.Hits) != 3 {
			t.Fatalf("%s: mode %+v, %d hits; want three reranked hits", precision, res.Mode, len(res.Hits))
		}
		st, err := e.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := precision + ", pairs up to 128 tokens"; st.Rerank.Detail != want {
			t.Errorf("status says the reranker runs %q, want %q", st.Rerank.Detail, want)
		}
		e.Close()
		// int8 copies are named <12 hex>-…; the mapped float32 copy every
		// precision may keep beside them is <12 hex>f-….
		cached, _ := filepath.Glob(filepath.Join(cfg.ModelCacheDir(), "????????????-*.onnx"))
		want := 0
		if precision == "int8" {
			want = 1
		}
		if len(cached) != want {
			t.Fatalf("%s: the model cache holds the int8 graphs %v, want %d", precision, cached, want)
		}
	}
}

// Capping the reranker's pairs keeps the winner on long notes whose answer
// sits deep inside: the passage is read in its window about the query's
// words, not from its start. Ranked with the fixture cross-encoder
// (word overlap between query and passage), every query's first note is
// the same at the default cap as with no cap.
func TestCappedRerankKeepsTheWinnerOnLongNotes(t *testing.T) {
	filler := func(seed int) string {
		words := []string{"weekly", "summary", "various", "topics", "discussed", "agenda", "items", "review", "follow", "notes"}
		var b []byte
		for i := range 150 {
			b = append(b, words[(i*7+seed)%len(words)]...)
			b = append(b, ' ')
		}
		return string(b)
	}
	notes := map[string]string{
		"grant.md":      filler(1) + "The grant renewal deadline moved to March and the budget needs a new justification. " + filler(2),
		"cytometry.md":  filler(3) + filler(4) + "Flow cytometry gating was redone with the new compensation matrix. " + filler(5),
		"sequencing.md": "Single-cell sequencing libraries were pooled. " + filler(6) + filler(7),
		"meeting.md":    filler(8) + "Met Dr. Tanaka about the cytometry core and the grant budget. " + filler(9),
	}
	queries := []string{"grant renewal deadline budget", "flow cytometry gating compensation", "single-cell sequencing libraries", "Tanaka cytometry core"}
	cfg, texts := vaultOf(t, notes)
	rr := filepath.Join(t.TempDir(), "rr")
	if err := embedtest.WriteReranker(rr, embedtest.Words(append(texts, queries...)...)); err != nil {
		t.Fatal(err)
	}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = "", rr
	if cfg.RAG.RerankMaxTokens == 0 || cfg.RAG.RerankMaxTokens >= 256 {
		t.Fatalf("the default cap %d does not cut these notes (about 1,000 words each)", cfg.RAG.RerankMaxTokens)
	}
	firsts := map[int][]string{}
	for _, limit := range []int{0, cfg.RAG.RerankMaxTokens} {
		cfg.RAG.RerankMaxTokens = limit
		e, err := engine.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := e.Refresher().Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		for _, q := range queries {
			res, err := e.Searcher.Search(ctx, q, 4, kb.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Mode.Rerank || len(res.Hits) == 0 {
				t.Fatalf("cap %d, %q: mode %+v, %d hits", limit, q, res.Mode, len(res.Hits))
			}
			firsts[limit] = append(firsts[limit], filepath.Base(res.Hits[0].Chunk.Meta.FilePath))
		}
		e.Close()
	}
	want := []string{"grant.md", "cytometry.md", "sequencing.md", "meeting.md"}
	for limit, got := range firsts {
		if !slices.Equal(got, want) {
			t.Errorf("cap %d: first notes %v, want %v", limit, got, want)
		}
	}
}

// vaultOf is a configuration in a fresh JARVIS_HOME whose vault holds notes
// (name -> text), and the notes' texts.
func vaultOf(t *testing.T, notes map[string]string) (*config.Config, []string) {
	t.Helper()
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	var texts []string
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(cfg.Vault.Path, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
	return cfg, texts
}
