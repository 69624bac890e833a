package embed_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
)

// ranks gives each score its rank (0 = highest).
func ranks(scores []float64) []float64 {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, len(scores))
	for r, i := range order {
		out[i] = float64(r)
	}
	return out
}

// spearman is the rank correlation of two score lists.
func spearman(a, b []float64) float64 {
	ra, rb := ranks(a), ranks(b)
	n := float64(len(a))
	var d2 float64
	for i := range ra {
		d2 += (ra[i] - rb[i]) * (ra[i] - rb[i])
	}
	return 1 - 6*d2/(n*(n*n-1))
}

// The int8 reranker ranks as the float32 one does on a transformer whose
// scores depend on the whole text: the same winner, rank correlation of
// 0.95 or more over 40 passages, each score within 0.05. The int8 graph
// is written once into the cache directory (owner-only) and reused.
func TestInt8RerankerKeepsTheRanking(t *testing.T) {
	words := embedtest.Words(append(corpus, "which plants need sun")...)
	spec := embedtest.BERT{Words: words, Hidden: 96, Layers: 3, Heads: 4, FFN: 192, Positions: embedtest.MaxPositions, CrossEncoder: true, Seed: 11, Std: 0.12}
	dir := t.TempDir()
	if err := embedtest.WriteBERT(dir, spec); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	// dir stands for the downloaded models' folder, whose weights may be linked.
	rt, err := embed.NewRuntimeWith(embed.RuntimeOptions{Backend: embed.BackendORT, CacheDir: cache, LinkUnder: dir})
	if err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatalf("ONNX Runtime is required here: %v", err)
		}
		t.Skipf("ONNX Runtime not installed (%v)", err)
	}
	defer rt.Close()
	f32, err := rt.RerankerWith(embed.RerankerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	q8, err := rt.RerankerWith(embed.RerankerOptions{Dir: dir, Int8: true})
	if err != nil {
		t.Fatal(err)
	}
	if f32.Detail() != "float32" || q8.Detail() != "int8" {
		t.Fatalf("details %q and %q", f32.Detail(), q8.Detail())
	}
	rng := rand.New(rand.NewPCG(3, 4))
	passages := make([]string, 40)
	for i := range passages {
		n := 5 + rng.IntN(30)
		p := make([]string, n)
		for j := range p {
			p[j] = words[rng.IntN(len(words))]
		}
		passages[i] = strings.Join(p, " ")
	}
	ctx := context.Background()
	a, err := f32.Rerank(ctx, "which plants need sun", passages)
	if err != nil {
		t.Fatal(err)
	}
	b, err := q8.Rerank(ctx, "which plants need sun", passages)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := slices.Min(a), slices.Max(a); hi-lo < 0.2 {
		t.Fatalf("float32 scores span %.3f..%.3f: the model is degenerate, the comparison says nothing", lo, hi)
	}
	rho := spearman(a, b)
	t.Logf("float32 scores %.3f..%.3f; rank correlation with int8 %.4f", slices.Min(a), slices.Max(a), rho)
	if rho < 0.95 {
		t.Errorf("rank correlation %.3f between float32 and int8", rho)
	}
	best := func(s []float64) int { return slices.Index(s, slices.Max(s)) }
	if best(a) != best(b) {
		t.Errorf("the winner changed: passage %d (float32) vs %d (int8)", best(a), best(b))
	}
	for i := range a {
		if d := a[i] - b[i]; d > 0.05 || d < -0.05 {
			t.Errorf("passage %d: %.4f (float32) vs %.4f (int8)", i, a[i], b[i])
		}
	}
	// The cache holds two graphs, the int8 copy and the float32 model's
	// mapped copy, each reading its weights from a .weights file: the int8
	// graph, and for float32 the source itself, linked.
	src, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	var graphs, int8s []os.FileInfo
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case filepath.Ext(e.Name()) == ".onnx":
			graphs = append(graphs, fi)
		case filepath.Ext(e.Name()) == ".weights" && !os.SameFile(fi, src):
			int8s = append(int8s, fi)
		}
	}
	if len(entries) != 4 || len(graphs) != 2 || len(int8s) != 1 {
		t.Fatalf("cache holds %v, want one int8 graph and one mapped float32 copy", entries)
	}
	for _, fi := range append(graphs, int8s...) {
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("the cached %s has mode %v", fi.Name(), fi.Mode().Perm())
		}
	}
	if fi := int8s[0]; fi.Size() >= src.Size() {
		t.Errorf("the int8 graph (%d bytes) is not smaller than the float32 one", fi.Size())
	}
	again, err := rt.RerankerWith(embed.RerankerOptions{Dir: dir, Int8: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := again.Rerank(ctx, "which plants need sun", passages)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b, c) {
		t.Errorf("the reused int8 graph scores differently")
	}
	for _, fi := range append(graphs, int8s...) {
		if fi2, err := os.Stat(filepath.Join(cache, fi.Name())); err != nil || !fi2.ModTime().Equal(fi.ModTime()) {
			t.Errorf("the cached %s was written again (%v)", fi.Name(), err)
		}
	}
}

func statSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
