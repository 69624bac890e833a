package inboxcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func run(t *testing.T, cfg *config.Config, args ...string) (string, error) {
	t.Helper()
	io, _, out, _ := iostreams.Test()
	cmd := New(io, func() (*config.Config, error) { return cfg, nil }, func(string) string { return "" })
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// From the terminal as in the Sync panel: a damaged PDF is listed as
// failed with its reason once it was tried, a retry of the replaced file
// indexes it, and a retry cannot reach outside the inbox.
func TestInboxListsFailuresAndRetriesAFile(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Sync.PDFWatchDir = t.TempDir()
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = "", ""
	cfg.Chat.OllamaURL = "http://127.0.0.1:1" // no model: metadata inference degrades, ingest goes on
	broken := filepath.Join(cfg.Sync.PDFWatchDir, "broken.pdf")
	copyFile(t, pdftest.Truncated(t, "../../../../backend/pdf/testdata/paper.pdf", 1000), broken)

	out, err := run(t, cfg, "list")
	if err != nil || !strings.Contains(out, "waiting") || !strings.Contains(out, "broken.pdf") {
		t.Fatalf("before any scan: %v\n%s", err, out)
	}
	if _, err := run(t, cfg, "retry", "broken.pdf"); !errs.Is(err, errs.Conversion) {
		t.Fatalf("retrying a damaged file: %v", err)
	}
	out, err = run(t, cfg, "list", "--json")
	var rows []ingest.InboxFile
	if err != nil || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].State != ingest.InboxFailed || rows[0].Error == "" {
		t.Fatalf("after the failed retry: %v\n%s", err, out)
	}
	copyFile(t, "../../../../backend/pdf/testdata/paper.pdf", broken)
	if out, err := run(t, cfg, "retry", "broken.pdf"); err != nil || !strings.Contains(out, "broken.pdf: added") {
		t.Fatalf("retry after the fix: %v\n%s", err, out)
	}
	if out, err := run(t, cfg, "list"); err != nil || !strings.Contains(out, "indexed") {
		t.Fatalf("after the fix: %v\n%s", err, out)
	}
	if _, err := run(t, cfg, "retry", "../outside.pdf"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a retry outside the inbox: %v", err)
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
