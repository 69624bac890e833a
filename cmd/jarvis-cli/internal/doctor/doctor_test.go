package doctor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func TestDoctorReportsBackendModelAndProbe(t *testing.T) {
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "bow")
	if err := embedtest.WriteEmbedder(dir, embedtest.Words("probe words here")); err != nil {
		t.Fatal(err)
	}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = dir, ""
	cfg.Vault.Path = t.TempDir()
	io, _, out, _ := iostreams.Test()
	// The backend is ONNX Runtime where its library is installed, else Go.
	rt, err := embed.NewRuntime()
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	noEnv := func(string) string { return "" }
	err = Run(io, func() (*config.Config, error) { return cfg, nil }, noEnv)
	for _, want := range []string{"embedding model " + dir + ":", rt.Backend() + " backend", "inference: " + rt.Backend() + " backend (", "store ", "0 documents", "probe search (keyword): 0 hit(s)", "no problems found"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	if err != nil {
		t.Fatalf("doctor failed: %v", err)
	}

	// A configured but missing model is a warning that names the fix and
	// the mode the knowledge base runs in meanwhile; doctor still passes.
	cfg.RAG.EmbedModel = "BAAI/bge-small-en-v1.5"
	io, _, out, _ = iostreams.Test()
	if err := Run(io, func() (*config.Config, error) { return cfg, nil }, noEnv); err != nil {
		t.Fatalf("a missing optional model failed doctor: %v\n%s", err, out.String())
	}
	for _, want := range []string{"warn  embedding model BAAI/bge-small-en-v1.5 not loaded", "models fetch", "keyword-only", "search mode: keyword"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
