package engine_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// golden is testdata/golden.json: a vault and graded queries we wrote.
type golden struct {
	Notes   map[string]string `json:"notes"`
	Queries []struct {
		Q   string         `json:"q"`
		Rel map[string]int `json:"rel"`
	} `json:"queries"`
}

func loadGolden(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// ndcg10 is nDCG@10 of a ranked list of note paths (duplicates count once).
func ndcg10(ranked []string, rel map[string]int) float64 {
	var dcg float64
	seen := map[string]bool{}
	pos := 0
	for _, p := range ranked {
		if seen[p] || pos >= 10 {
			continue
		}
		seen[p] = true
		dcg += float64(rel[p]) / math.Log2(float64(pos+2))
		pos++
	}
	var ideal []int
	for _, g := range rel {
		ideal = append(ideal, g)
	}
	slices.Sort(ideal)
	slices.Reverse(ideal)
	var idcg float64
	for i, g := range ideal {
		if i < 10 {
			idcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	return dcg / idcg
}

// TestGoldenSet measures retrieval on our own golden set in keyword mode
// (no models: what every user has from the first launch) and hybrid with the
// fixture models, and holds keyword mode to finding every query's best
// answer first: inflected forms, names, acronyms, numbers, diacritics.
func TestGoldenSet(t *testing.T) {
	g := loadGolden(t)
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	var texts []string
	for rel, text := range g.Notes {
		p := filepath.Join(cfg.Vault.Path, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, text)
	}
	models := t.TempDir()
	words := embedtest.Words(texts...)
	if err := embedtest.WriteEmbedder(filepath.Join(models, "bow"), words); err != nil {
		t.Fatal(err)
	}
	if err := embedtest.WriteReranker(filepath.Join(models, "rr"), words); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(name, embedModel, rerankModel string) float64 {
		cfg.RAG.EmbedModel, cfg.RAG.RerankModel = embedModel, rerankModel
		e, err := engine.Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Refresher().Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Backfill(ctx, kb.BackfillOptions{}); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, q := range g.Queries {
			res, err := e.Searcher.Search(ctx, q.Q, 10, kb.Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var ranked []string
			for _, h := range res.Hits {
				ranked = append(ranked, h.Chunk.Meta.FilePath)
			}
			score := ndcg10(ranked, q.Rel)
			sum += score
			if name == "keyword" && (len(ranked) == 0 || q.Rel[ranked[0]] != 2) {
				t.Errorf("keyword: %q ranks %v first (want a grade-2 note of %v)", q.Q, ranked, q.Rel)
			}
		}
		mean := sum / float64(len(g.Queries))
		t.Logf("%-30s nDCG@10 = %.3f over %d queries", name, mean, len(g.Queries))
		return mean
	}
	kw := run("keyword", "", "")
	run("keyword + rerank (fixture)", "", filepath.Join(models, "rr"))
	hy := run("hybrid (fixture models)", filepath.Join(models, "bow"), "")
	run("hybrid + rerank (fixture)", filepath.Join(models, "bow"), filepath.Join(models, "rr"))
	if kw < 0.9 {
		t.Errorf("keyword nDCG@10 %.3f below 0.9", kw)
	}
	if hy < 0.85 {
		t.Errorf("hybrid nDCG@10 %.3f below 0.85", hy)
	}
}
