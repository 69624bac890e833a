package embed

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
)

// mappableBERT writes a small BERT whose feed-forward matrices (64x512
// floats, 128 KiB) are large enough to be read from outside the graph.
func mappableBERT(t *testing.T) string {
	t.Helper()
	dir := writeSpec(t, embedtest.BERT{Words: embedtest.Words("which plants need sun", "tomato plants need full sun"), Hidden: 64, Layers: 2, Heads: 4, FFN: 512,
		Positions: embedtest.MaxPositions, Seed: 5, Std: 0.2})
	src, err := graphPath("test", dir)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// outputOf runs one fixed batch through the graph at path.
func outputOf(t *testing.T, open func() (*ortEncoder, error)) []float32 {
	t.Helper()
	e, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	b := &paddedBatch{rows: 2, seq: 4,
		ids:   []int64{1, 5, 6, 2, 1, 7, 2, 0},
		mask:  []int64{1, 1, 1, 1, 1, 1, 1, 0},
		types: make([]int64, 8)}
	out, err := e.run(b)
	if err != nil {
		t.Fatal(err)
	}
	return out.data
}

// A float graph opens through a small copy that reads its weights from the
// source file itself (linked into the cache): the same outputs to the bit,
// the copy reused while the source is unchanged.
func TestAMappedGraphComputesTheSame(t *testing.T) {
	ortRuntimeWith(t, RuntimeOptions{})
	src := mappableBERT(t)
	cache := t.TempDir()
	want := outputOf(t, func() (*ortEncoder, error) { return newORTEncoder(src, 1) })
	got := outputOf(t, func() (*ortEncoder, error) { return openMapped(src, cache, true, 1) })
	if !slices.Equal(got, want) {
		t.Fatalf("the mapped graph computes %v, the source %v", got[:4], want[:4])
	}
	graphs, _ := filepath.Glob(filepath.Join(cache, copyPrefix(src, "f")+"*.onnx"))
	if len(graphs) != 1 {
		t.Fatalf("cache holds %v, want one mapped graph", graphs)
	}
	g, w := statOf(t, graphs[0]), statOf(t, graphs[0][:len(graphs[0])-len(".onnx")]+".weights")
	if !os.SameFile(w, statOf(t, src)) {
		t.Error("the weights are not the source linked")
	}
	if g.Size()*4 > w.Size() {
		t.Errorf("the mapped graph is %d bytes of a %d-byte model: its weights stayed inside", g.Size(), w.Size())
	}
	again := outputOf(t, func() (*ortEncoder, error) { return openMapped(src, cache, true, 1) })
	if !slices.Equal(again, want) || !statOf(t, graphs[0]).ModTime().Equal(g.ModTime()) {
		t.Error("the cached mapped graph was not reused as it was")
	}
}

// Where the source cannot be linked (the cache on another file system) the
// weights are a copy of it; the outputs stay the same.
func TestAMappedGraphCopiesWhatItCannotLink(t *testing.T) {
	ortRuntimeWith(t, RuntimeOptions{})
	linkFile = func(string, string) error { return errors.New("invalid cross-device link") }
	defer func() { linkFile = os.Link }()
	src, cache := mappableBERT(t), t.TempDir()
	opensOverCopiedWeights(t, src, cache, true, "f")
	if left, _ := filepath.Glob(filepath.Join(cache, "*.tmp")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// A cached copy ONNX Runtime refuses (its weights cut short) gives way to
// the source, and is deleted so the next load writes it afresh.
func TestARefusedMappedCopyFallsBackToTheSource(t *testing.T) {
	ortRuntimeWith(t, RuntimeOptions{})
	linkFile = func(string, string) error { return errors.New("no links here") } // so cutting the weights leaves the source whole
	defer func() { linkFile = os.Link }()
	src := mappableBERT(t)
	cache := t.TempDir()
	want := outputOf(t, func() (*ortEncoder, error) { return openMapped(src, cache, true, 1) })
	weights, _ := filepath.Glob(filepath.Join(cache, "*.weights"))
	if len(weights) != 1 {
		t.Fatalf("weights %v", weights)
	}
	if err := os.Truncate(weights[0], 1000); err != nil {
		t.Fatal(err)
	}
	got := outputOf(t, func() (*ortEncoder, error) { return openMapped(src, cache, true, 1) })
	if !slices.Equal(got, want) {
		t.Fatal("the fallback computes differently")
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "*")); len(left) != 0 {
		t.Fatalf("the refused copy was kept: %v", left)
	}
}

// A graph that already keeps its data outside is not rewritten: the
// locations it names are relative to where it lies.
func TestExternalizeLeavesExternalDataAlone(t *testing.T) {
	model, err := os.ReadFile(mappableBERT(t))
	if err != nil {
		t.Fatal(err)
	}
	once, moved, err := externalize(model, "w")
	if err != nil || moved == 0 {
		t.Fatalf("moved %d (%v)", moved, err)
	}
	var b bytes.Buffer
	once.WriteTo(&b)
	twice, moved, err := externalize(b.Bytes(), "w")
	if err != nil || moved != 0 || len(twice) != 1 || !bytes.Equal(twice[0], b.Bytes()) {
		t.Fatalf("an external graph was rewritten: moved %d (%v)", moved, err)
	}
}

// opensOverCopiedWeights opens src mapped (link as given) and checks that
// it computes as src does over one copy of src's bytes, of kind, in cache.
func opensOverCopiedWeights(t *testing.T, src, cache string, link bool, kind string) {
	t.Helper()
	want := outputOf(t, func() (*ortEncoder, error) { return newORTEncoder(src, 1) })
	got := outputOf(t, func() (*ortEncoder, error) { return openMapped(src, cache, link, 1) })
	if !slices.Equal(got, want) {
		t.Fatal("the mapped graph over copied weights computes differently")
	}
	weights, _ := filepath.Glob(filepath.Join(cache, copyPrefix(src, kind)+"*.weights"))
	if len(weights) != 1 || os.SameFile(statOf(t, weights[0]), statOf(t, src)) {
		t.Fatalf("weights %v: want one copy, not a link", weights)
	}
	a, _ := os.ReadFile(weights[0])
	b, _ := os.ReadFile(src)
	if !bytes.Equal(a, b) {
		t.Fatal("the copied weights differ from the source")
	}
}

func statOf(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// A graph outside the downloaded models' folder (a model of the user's
// own, which may be rewritten in place) never has its weights linked: a
// rewrite would change them, or cut them short (SIGBUS), under the
// session. Its copy has a name of its own.
func TestAGraphOfTheUsersOwnHasItsWeightsCopied(t *testing.T) {
	ortRuntimeWith(t, RuntimeOptions{})
	src, cache := mappableBERT(t), t.TempDir()
	opensOverCopiedWeights(t, src, cache, false, "c")
	if linked, _ := filepath.Glob(filepath.Join(cache, copyPrefix(src, "f")+"*")); len(linked) != 0 {
		t.Fatalf("a linked copy was made too: %v", linked)
	}

	r := &Runtime{link: filepath.Join(t.TempDir(), "models")}
	for graph, want := range map[string]bool{
		filepath.Join(r.link, "bge", "onnx", "model.onnx"):   true,
		filepath.Join(r.link, "..", "models2", "model.onnx"): false,
		filepath.Join(r.link+"2", "model.onnx"):              false,
		src:                                                  false,
	} {
		if got := r.mayLink(graph); got != want {
			t.Errorf("mayLink(%s) = %v, want %v", graph, got, want)
		}
	}
}

// A model replaced by rename (a re-download) gets a fresh copy even when
// the new file has the old one's size and modification time: the cached
// copy's weights were the old file's.
func TestAModelReplacedAtTheSameSizeAndTimeGetsAFreshCopy(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(src, []byte("old bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	before, err := cachedCopy(src, cache, "f", mappedFormat)
	if err != nil {
		t.Fatal(err)
	}
	stamp := statOf(t, src).ModTime()
	next := filepath.Join(dir, "next.onnx")
	if err := os.WriteFile(next, []byte("new bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(next, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, src); err != nil {
		t.Fatal(err)
	}
	after, err := cachedCopy(src, cache, "f", mappedFormat)
	if err != nil {
		t.Fatal(err)
	}
	if after.base == before.base {
		t.Fatal("the replaced model would reuse the old model's copy")
	}
}

// The weights a crashed process was linking are swept once stale; the
// cache's finished copies stay.
func TestStaleTemporaryWeightsAreSwept(t *testing.T) {
	cache := t.TempDir()
	keep := filepath.Join(cache, "abc-f-1.weights")
	crashed := filepath.Join(cache, "abc-f-1.weights.4242.tmp")
	for _, p := range []string{keep, crashed} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	sweepTemps(cache) // fresh: a live process may be writing it
	if _, err := os.Stat(crashed); err != nil {
		t.Fatal("a fresh temporary file was swept")
	}
	staleTemp = 0
	defer func() { staleTemp = time.Hour }()
	sweepTemps(cache)
	if _, err := os.Stat(crashed); !os.IsNotExist(err) {
		t.Fatal("the stale temporary file stayed")
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal("a finished copy was swept")
	}
}

// A tensor holding its data in two places (raw_data and typed data, or
// raw_data twice) stays inline: moved, ONNX Runtime might refuse it, and
// the copy would be rebuilt on every start. A plain large one moves.
func TestExternalizeKeepsTensorsWithDataInTwoPlacesInline(t *testing.T) {
	raw := make([]byte, externalMinBytes)
	tensor := func(name string, extra func([]byte) []byte) []byte {
		b := appendVarint(nil, tensorDims, uint64(len(raw)/4))
		b = appendVarint(b, tensorDataType, onnxFloat)
		b = appendString(b, tensorName, name)
		b = appendBytes(b, tensorRaw, raw)
		return extra(b)
	}
	model := func(t1 []byte) []byte {
		g := appendBytes(nil, graphInitializer, t1)
		return appendBytes(nil, modelGraph, g)
	}
	for _, c := range []struct {
		name  string
		extra func([]byte) []byte
		moved int
	}{
		{"plain", func(b []byte) []byte { return b }, 1},
		{"typed too", func(b []byte) []byte { return appendBytes(b, tensorFloat, []byte{0, 0, 128, 63}) }, 0},
		{"raw twice", func(b []byte) []byte { return appendBytes(b, tensorRaw, raw) }, 0},
	} {
		m := model(tensor(c.name, c.extra))
		out, moved, err := externalize(m, "w")
		if err != nil || moved != c.moved {
			t.Errorf("%s: moved %d, want %d (%v)", c.name, moved, c.moved, err)
			continue
		}
		if moved == 0 && (len(out) != 1 || !bytes.Equal(out[0], m)) {
			t.Errorf("%s: the graph was rewritten", c.name)
		}
	}
}
