package autostartcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/autostart"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func run(t *testing.T, o *Options, args ...string) (string, error) {
	t.Helper()
	io, _, out, _ := iostreams.Test()
	o.IO = io
	cmd := NewWith(o)
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(out)
	err := cmd.Execute()
	return out.String(), err
}

func TestAutostartShowsAndTogglesTheLoginEntry(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	o := &Options{Getenv: func(k string) string { return env[k] }, Window: func() (string, error) { return "/usr/bin/jarvis", nil }}
	path := filepath.Join(home, ".config", "autostart", autostart.FileName)

	if out, err := run(t, o); err != nil || !strings.HasPrefix(out, "unset\t"+path) {
		t.Fatalf("%q %v", out, err)
	}
	if _, err := run(t, o, "on"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "Exec=/usr/bin/jarvis --tray") {
		t.Fatalf("%s %v", b, err)
	}
	if out, _ := run(t, o); !strings.HasPrefix(out, "on\t") {
		t.Fatalf("after on: %q", out)
	}
	if _, err := run(t, o, "off"); err != nil {
		t.Fatal(err)
	}
	if out, _ := run(t, o); !strings.HasPrefix(out, "off\t") {
		t.Fatalf("after off: %q", out)
	}
	if _, err := run(t, o, "maybe"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("an unknown setting: %v", err)
	}
	o.Window = window
	t.Setenv("PATH", t.TempDir())
	if _, err := run(t, o, "on"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("no desktop app to start: %v", err)
	}
}
