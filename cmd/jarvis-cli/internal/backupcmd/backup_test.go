package backupcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func run(t *testing.T, cmd func(*iostreams.IO, func() (*config.Config, error)) *cobra.Command, home, stdin string, args ...string) (string, error) {
	t.Helper()
	io, in, out, _ := iostreams.Test()
	in.WriteString(stdin)
	c := cmd(io, func() (*config.Config, error) { return config.LoadFrom(home) })
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

func TestBackupThenRestoreThroughTheCommands(t *testing.T) {
	home := t.TempDir()
	session := filepath.Join(home, "sessions", "20260101-000000-aaaaaaaaaaaa.json")
	os.MkdirAll(filepath.Dir(session), 0o700)
	os.WriteFile(session, []byte(`{"title":"kept"}`), 0o600)
	os.WriteFile(config.FilePath(home), []byte("[chat]\nresponse_style = \"terse\"\n"), 0o600)
	set := filepath.Join(t.TempDir(), "set")

	out, err := run(t, NewBackup, home, "", set)
	if err != nil || !strings.Contains(out, "backed up to "+set) || !strings.Contains(out, "no knowledge base") {
		t.Fatalf("backup: %v\n%s", err, out)
	}
	os.WriteFile(session, []byte(`{"title":"changed"}`), 0o600)

	// Without --yes the restore asks; no answer restores nothing.
	if _, err := run(t, NewRestore, home, "", set); !errs.Is(err, errs.Cancelled) {
		t.Fatalf("unanswered restore: %v", err)
	}
	if b, _ := os.ReadFile(session); string(b) != `{"title":"changed"}` {
		t.Fatal("an unconfirmed restore changed data")
	}
	out, err = run(t, NewRestore, home, "y\n", set)
	if err != nil || !strings.Contains(out, "restored config.toml, rag, sessions, drafts, prompts") {
		t.Fatalf("restore: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(session); string(b) != `{"title":"kept"}` {
		t.Fatalf("session after restore: %s", b)
	}

	// A corrupt set is refused with the invalid-input exit code.
	os.WriteFile(filepath.Join(set, "sessions", "20260101-000000-aaaaaaaaaaaa.json"), []byte(`{"title":"tampered"}`), 0o600)
	if _, err := run(t, NewRestore, home, "", set, "--yes"); !errs.Is(err, errs.Invalid) || errs.ExitCode(err) != 2 {
		t.Fatalf("corrupt set: %v", err)
	}
	if _, err := run(t, NewBackup, home, "", set); !errs.Is(err, errs.Conflict) {
		t.Fatalf("backup into a used folder: %v", err)
	}
}
