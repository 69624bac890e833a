package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
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
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Vault.Path = t.TempDir()
	notes := map[string]string{
		"sun.md":   "Tomato plants need full sun and regular watering.",
		"bread.md": "Sourdough bread rises slowly with wild yeast and needs warmth.",
		"heads.md": "Attention heads compare every token with every other token, and need memory.",
	}
	var texts []string
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(cfg.Vault.Path, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
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
		e.Close()
		cached, _ := filepath.Glob(filepath.Join(cfg.ModelCacheDir(), "*.onnx"))
		want := 0
		if precision == "int8" {
			want = 1
		}
		if len(cached) != want {
			t.Fatalf("%s: the model cache holds %v, want %d graph(s)", precision, cached, want)
		}
	}
}
