package doctor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kb/kbtest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func TestDoctorRunsTheIntegrityCheck(t *testing.T) {
	cfg := configtest.New(t)
	doctor := func() string {
		io, _, out, _ := iostreams.Test()
		Run(io, func() (*config.Config, error) { return cfg, nil }, func(string) string { return "" }) // only the integrity line matters here
		return out.String()
	}
	if out := doctor(); !strings.Contains(out, "warn  store integrity: no knowledge base yet") {
		t.Fatalf("no store yet:\n%s", out)
	}

	s, err := kb.Open(cfg.RAG.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []kb.Chunk
	for i := range 200 {
		text := fmt.Sprintf("chunk %d of filler text", i)
		chunks = append(chunks, kb.Chunk{Content: text, EmbedText: text,
			Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: "a.md"}})
	}
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if out := doctor(); !strings.Contains(out, "ok    store integrity: ok") {
		t.Fatalf("healthy store:\n%s", out)
	}

	if err := kbtest.Damage(kb.StorePath(cfg.RAG.Dir)); err != nil {
		t.Fatal(err)
	}
	if out := doctor(); !strings.Contains(out, "FAIL  store integrity:") {
		t.Fatalf("damaged store:\n%s", out)
	}
}
