package embed

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// idleRuntime is an ONNX Runtime whose models are released after idle.
func idleRuntime(t *testing.T, idle time.Duration) *Runtime {
	t.Helper()
	return ortRuntimeWith(t, RuntimeOptions{IdleRelease: idle})
}

// ortRuntimeWith is an ONNX Runtime with opts, closed with the test; it
// skips (fails under JARVIS_REQUIRE_TOOLS) where the library is missing.
func ortRuntimeWith(t *testing.T, opts RuntimeOptions) *Runtime {
	t.Helper()
	opts.Backend = BackendORT
	rt, err := NewRuntimeWith(opts)
	if err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatalf("ONNX Runtime is required here: %v", err)
		}
		t.Skipf("ONNX Runtime not installed (%v)", err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// An idle model lets go of its ONNX Runtime session and opens it again on
// the next use, with the same results; runs in flight keep it open.
func TestIdleModelReleasesAndReloads(t *testing.T) {
	rt := idleRuntime(t, 50*time.Millisecond)
	texts := []string{"tomato plants need sun", "attention over tokens", "sun and tokens"}
	dir := t.TempDir()
	if err := embedtest.WriteEmbedder(dir, embedtest.Words(texts...)); err != nil {
		t.Fatal(err)
	}
	e, err := rt.Embedder(EmbedderOptions{ID: "bow", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	enc := e.enc.(*idleEncoder)
	released := func() bool {
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if open, _ := enc.resident(); !open {
				return true
			}
		}
		return false
	}
	if !released() {
		t.Fatal("the session is still open long after the idle time")
	}
	got, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("text %d after the reload: %v, want %v", i, got[i], want[i])
		}
	}
	if open, loads := enc.resident(); !open || loads != 2 {
		t.Fatalf("after the reload: open %v, %d sessions opened (want open, 2)", open, loads)
	}

	// Bursts of concurrent runs with idle gaps between them: no run fails
	// or sees another result, and each gap releases the session.
	for burst := range 3 {
		var wg sync.WaitGroup
		errc := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					v, err := e.EmbedDocuments(ctx, texts)
					if err == nil && !slices.Equal(v[1], want[1]) {
						err = errors.New("a run gave another vector than before the release")
					}
					if err != nil {
						errc <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatalf("burst %d: %v", burst, err)
		}
		if !released() {
			t.Fatalf("not released after burst %d", burst)
		}
	}
	if _, loads := enc.resident(); loads < 4 {
		t.Fatalf("%d sessions opened; want at least 4 (load, reload, one per burst after the first)", loads)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.EmbedDocuments(ctx, texts); err == nil {
		t.Fatal("a run after the runtime closed reopened the model")
	}
}

// A model file replaced while the session was released (a reinstall under
// the same id) is not reopened: the error says to restart, rather than
// vectors of two versions mixing in the store.
func TestIdleModelRefusesAReplacedFile(t *testing.T) {
	rt := idleRuntime(t, 20*time.Millisecond)
	dir := t.TempDir()
	if err := embedtest.WriteEmbedder(dir, embedtest.Words("tomato plants need sun")); err != nil {
		t.Fatal(err)
	}
	e, err := rt.Embedder(EmbedderOptions{ID: "bow", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	enc := e.enc.(*idleEncoder)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if open, _ := enc.resident(); !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not released")
		}
	}
	later := time.Now().Add(time.Minute) // a reinstall: another file, another time
	if err := embedtest.WriteEmbedder(dir, embedtest.Words("tomato plants need sun and water")); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(enc.graph, later, later)
	_, err = e.EmbedQuery(context.Background(), "sun")
	if !errs.Is(err, errs.RAG) || !strings.Contains(err.Error(), "changed since it was loaded") {
		t.Fatalf("a replaced model file was reopened: %v", err)
	}
}
