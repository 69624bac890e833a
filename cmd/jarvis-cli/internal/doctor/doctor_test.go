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
	err = Run(io, func() (*config.Config, error) { return cfg, nil })
	for _, want := range []string{"embedder local:bow:", rt.Backend() + " backend", "store ", "0 documents", "probe search: 0 hit(s)", "all checks passed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out.String())
		}
	}
	if err != nil {
		t.Fatalf("doctor failed: %v", err)
	}

	// A configured but missing model is a failure that names the fix.
	cfg.RAG.EmbedModel = "BAAI/bge-small-en-v1.5"
	io, _, out, _ = iostreams.Test()
	if err := Run(io, func() (*config.Config, error) { return cfg, nil }); err == nil {
		t.Fatal("doctor passed without the model")
	}
	if !strings.Contains(out.String(), "FAIL  knowledge base") || !strings.Contains(out.String(), "models fetch") {
		t.Fatalf("output:\n%s", out.String())
	}
}
