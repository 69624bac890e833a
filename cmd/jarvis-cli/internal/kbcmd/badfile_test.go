package kbcmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/convertcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// A bad file fails with the same class, and so the same exit status, from
// `kb add` as from `convert-pdf`: scripts can tell a damaged PDF from bad
// arguments whichever command met it.
func TestBadPDFExitsAsConvertPDFDoes(t *testing.T) {
	cfg, _ := e2e(t)
	dir := t.TempDir()
	paper, err := os.ReadFile("../../../../backend/pdf/testdata/paper.pdf")
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{"truncated.pdf": paper[:1000], "notreally.pdf": []byte("%PDF-1.4 not really")}
	for name, data := range bad {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		io, _, _, _ := iostreams.Test()
		conv := convertcmd.New(io, func() (*config.Config, error) { return cfg, nil })
		conv.SetArgs([]string{path})
		convErr := conv.Execute()
		for _, args := range [][]string{{"add", "--full-text", path}, {"add", path}} {
			_, addErr := run(t, cfg, "", args...)
			if !errs.Is(convErr, errs.Conversion) || !errs.Is(addErr, errs.Conversion) || errs.ExitCode(addErr) != errs.ExitCode(convErr) {
				t.Errorf("%s: convert-pdf exits %d (%v), kb %v exits %d (%v)", name, errs.ExitCode(convErr), convErr, args, errs.ExitCode(addErr), addErr)
			}
		}
	}
}
