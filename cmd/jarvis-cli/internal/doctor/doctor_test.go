package doctor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func TestDoctorReportsBackendModelAndProbe(t *testing.T) {
	cfg := configtest.New(t)
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

// OCR is a capability: present, doctor names the languages; absent (no
// tesseract on PATH), a warning with the command that installs it, and
// doctor still passes.
func TestDoctorReportsOCR(t *testing.T) {
	cfg := configtest.New(t)
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = "", ""
	cfg.Vault.Path = t.TempDir()
	load := func() (*config.Config, error) { return cfg, nil }
	noEnv := func(string) string { return "" }
	if _, err := ocr.Lookup(nil); err == nil {
		io, _, out, _ := iostreams.Test()
		Run(io, load, noEnv)
		if !strings.Contains(out.String(), "ok    OCR: tesseract (") || !strings.Contains(out.String(), "eng") {
			t.Errorf("with Tesseract:\n%s", out.String())
		}
	}
	t.Setenv("PATH", t.TempDir())
	io, _, out, _ := iostreams.Test()
	if err := Run(io, load, noEnv); err != nil {
		t.Fatalf("missing OCR failed doctor: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "warn  OCR: ") || !strings.Contains(out.String(), "apt install tesseract-ocr") {
		t.Errorf("without Tesseract:\n%s", out.String())
	}
}
