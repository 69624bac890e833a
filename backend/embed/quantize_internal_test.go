package embed

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
)

func smallCrossEncoder(t *testing.T) string {
	t.Helper()
	return writeSpec(t, embedtest.BERT{Words: embedtest.Words("which plants need sun", "tomato plants need full sun"), Hidden: 32, Layers: 2, Heads: 4, FFN: 64,
		Positions: embedtest.MaxPositions, CrossEncoder: true, Seed: 9, Std: 0.2})
}

// writeSpec writes the model of spec into a new folder and returns it.
func writeSpec(t *testing.T, spec embedtest.BERT) string {
	t.Helper()
	dir := t.TempDir()
	if err := embedtest.WriteBERT(dir, spec); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An int8 copy ONNX Runtime refuses leaves the reranker in float32, said
// so, scoring as float32 does, and the refused copy is not kept.
func TestARefusedInt8CopyFallsBackToFloat32(t *testing.T) {
	dir := smallCrossEncoder(t)
	cache := filepath.Join(t.TempDir(), "cache")
	rt := ortRuntimeWith(t, RuntimeOptions{CacheDir: cache})
	quantize = func([]byte, float64) (net.Buffers, quantizeStats, error) {
		return net.Buffers{[]byte("not an ONNX model")}, quantizeStats{Weights: 1}, nil
	}
	defer func() { quantize = quantizeGraph }()
	q8, err := rt.RerankerWith(RerankerOptions{Dir: dir, Int8: true})
	if err != nil {
		t.Fatalf("a refused int8 copy must not take the reranker away: %v", err)
	}
	if q8.Detail() != "float32" {
		t.Fatalf("detail %q, want float32", q8.Detail())
	}
	f32, err := rt.RerankerWith(RerankerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	passages := []string{"tomato plants need full sun", "which plants", "sun"}
	a, err := f32.Rerank(context.Background(), "which plants need sun", passages)
	if err != nil {
		t.Fatal(err)
	}
	b, err := q8.Rerank(context.Background(), "which plants need sun", passages)
	if err != nil || !slices.Equal(a, b) {
		t.Fatalf("fallback scores %v (%v), float32 %v", b, err, a)
	}
	src, err := graphPath("test", dir)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, copyPrefix(src, "")+"*")); len(left) != 0 {
		t.Fatalf("the refused copy was kept: %v", left)
	}
}

// The int8 copy is the same bytes every time (reproducible, and a cached
// copy matches a fresh one); a newer source replaces its older copy.
func TestInt8CopyIsReproducibleAndReplacesItsOlderSelf(t *testing.T) {
	dir := smallCrossEncoder(t)
	model, err := os.ReadFile(filepath.Join(dir, "onnx", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for range 5 {
		q, st, err := quantizeGraph(model, 127)
		if err != nil || st.Weights == 0 {
			t.Fatalf("%+v %v", st, err)
		}
		var b bytes.Buffer
		q.WriteTo(&b)
		if first == nil {
			first = b.Bytes()
		} else if !bytes.Equal(first, b.Bytes()) {
			t.Fatal("two quantizations of one graph differ")
		}
	}
	cache := t.TempDir()
	src := filepath.Join(dir, "onnx", "model.onnx")
	p1, _, err := int8Graph(src, cache)
	if err != nil {
		t.Fatal(err)
	}
	later := statTime(t, src).Add(time.Second)
	if err := os.Chtimes(src, later, later); err != nil {
		t.Fatal(err)
	}
	p2, _, err := int8Graph(src, cache)
	if err != nil || p2 == p1 {
		t.Fatalf("a changed source must get a new copy: %s %s %v", p1, p2, err)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*.onnx")); !slices.Equal(left, []string{p2}) {
		t.Fatalf("cache holds %v, want only %s", left, p2)
	}
}

func statTime(t *testing.T, p string) time.Time {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// The int8 copy folds every projection's bias into its int8 MatMul and
// writes every exact GELU as one Gelu node, in both ways an export writes
// GELU, and scores exactly as the copy without those fusions does.
func TestInt8FusionsKeepTheScores(t *testing.T) {
	passages := []string{"tomato plants need full sun", "which plants", "sun", "need plants tomato"}
	for _, torch := range []bool{false, true} {
		dir := t.TempDir()
		spec := embedtest.BERT{Words: embedtest.Words("which plants need sun", "tomato plants need full sun"), Hidden: 32, Layers: 2, Heads: 4, FFN: 64,
			Positions: embedtest.MaxPositions, CrossEncoder: true, Seed: 9, Std: 0.2, TorchGELU: torch}
		if err := embedtest.WriteBERT(dir, spec); err != nil {
			t.Fatal(err)
		}
		model, err := os.ReadFile(filepath.Join(dir, "onnx", "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := quantizeGraph(model, 127)
		if err != nil || st.MatMuls == 0 || st.Biases != st.MatMuls || st.Gelus != spec.Layers {
			t.Fatalf("torch GELU %v: %+v (%v); want every bias folded and %d GELUs", torch, st, err, spec.Layers)
		}
		scores := func(fuse bool) []float64 {
			quantize = func(m []byte, limit float64) (net.Buffers, quantizeStats, error) {
				return quantizeGraphWith(m, limit, quantizeOptions{noFuse: !fuse, tableBytes: 1 << 20})
			}
			defer func() { quantize = quantizeGraph }()
			rt := ortRuntimeWith(t, RuntimeOptions{CacheDir: t.TempDir()})
			r, err := rt.RerankerWith(RerankerOptions{Dir: dir, Int8: true})
			if err != nil || r.Detail() == "float32" {
				t.Fatalf("int8 reranker (fuse %v): %v, %q", fuse, err, r.Detail())
			}
			s, err := r.Rerank(context.Background(), "which plants need sun", passages)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		plain, fused := scores(false), scores(true)
		for i := range plain {
			if math.Abs(plain[i]-fused[i]) > 1e-5 {
				t.Fatalf("torch GELU %v: fused scores %v, unfused %v", torch, fused, plain)
			}
		}
		if slices.Max(plain)-slices.Min(plain) < 1e-3 {
			t.Fatalf("the scores %v do not depend on the passage: the comparison proves nothing", plain)
		}
	}
}

// A vocabulary table of 1 MB or more is stored in int8, one scale per row,
// and the reranker still picks the float32 winner with every score close
// to float32's and to the int8 copy's without the table quantized.
func TestInt8WordTableKeepsTheScores(t *testing.T) {
	words := embedtest.SyntheticWords(3000) // 3,000 x 96 floats: over 1 MB
	spec := embedtest.BERT{Words: words, Hidden: 96, Layers: 2, Heads: 4, FFN: 192, Positions: embedtest.MaxPositions, CrossEncoder: true, Seed: 5, Std: 0.12}
	dir := t.TempDir()
	if err := embedtest.WriteBERT(dir, spec); err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile(filepath.Join(dir, "onnx", "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if _, st, err := quantizeGraph(model, 127); err != nil || st.Tables != 1 || st.Int8Bytes >= st.FloatBytes/3 {
		t.Fatalf("%+v %v: want the word table in int8", st, err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	passages := make([]string, 30)
	for i := range passages {
		p := make([]string, 5+rng.IntN(25))
		for j := range p {
			p[j] = words[rng.IntN(200)]
		}
		passages[i] = strings.Join(p, " ")
	}
	query := strings.Join(words[:4], " ")
	scores := func(int8 bool, o quantizeOptions) []float64 {
		quantize = func(m []byte, limit float64) (net.Buffers, quantizeStats, error) {
			return quantizeGraphWith(m, limit, o)
		}
		defer func() { quantize = quantizeGraph }()
		r, err := ortRuntimeWith(t, RuntimeOptions{CacheDir: t.TempDir()}).RerankerWith(RerankerOptions{Dir: dir, Int8: int8})
		if err != nil || int8 && r.Detail() == "float32" {
			t.Fatalf("reranker (int8 %v): %v; it runs %q", int8, err, r.Detail())
		}
		s, err := r.Rerank(context.Background(), query, passages)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	f32 := scores(false, quantizeOptions{})
	whole := scores(true, quantizeOptions{tableBytes: math.MaxInt})
	tabled := scores(true, quantizeOptions{tableBytes: 1 << 20})
	if slices.Max(f32)-slices.Min(f32) < 0.1 {
		t.Fatalf("float32 scores %v hardly differ: the comparison proves nothing", f32)
	}
	best := func(s []float64) int { return slices.Index(s, slices.Max(s)) }
	if best(tabled) != best(f32) {
		t.Fatalf("the winner changed: %d (int8 table) vs %d (float32)", best(tabled), best(f32))
	}
	for i := range f32 {
		if math.Abs(tabled[i]-f32[i]) > 0.05 || math.Abs(tabled[i]-whole[i]) > 0.02 {
			t.Fatalf("passage %d: %.4f with the int8 table, %.4f without, %.4f float32", i, tabled[i], whole[i], f32[i])
		}
	}
}

// A GELU constant is one float of rank 0 or 1: a [1,1,1,1] one broadcasts
// what it multiplies to four dimensions, which the fused Gelu would not.
func TestAGELUConstantOfHigherRankIsNotAScalar(t *testing.T) {
	half := floatBytes([]float32{0.5})
	for dims, want := range map[string]bool{"": true, "1": true, "1,1,1,1": false} {
		var shape []int64
		for _, d := range strings.Split(dims, ",") {
			if d != "" {
				shape = append(shape, 1)
			}
		}
		fs, err := fields(tensorProto("half", onnxFloat, shape, half))
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := floatScalar(fs); ok != want || ok && v != 0.5 {
			t.Errorf("dims [%s]: %v %v, want a scalar: %v", dims, v, ok, want)
		}
	}
}
