package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/autostart"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ops"
)

// Choosing a vault turns "keep syncing after I log in" on by default; the
// toggle turns it off and the next vault choice leaves it off.
func TestChoosingAVaultTurnsAutostartOnUntilTheUserSaysOff(t *testing.T) {
	s, notes, events := fresh(t, "ollama")
	entry := autostart.Entry{Path: filepath.Join(t.TempDir(), "autostart", autostart.FileName), Exec: "/usr/bin/jarvis"}
	if st, _ := s.Setup.AutostartState(); st != "unavailable" {
		t.Fatalf("unwired: %s", st)
	}
	if err := s.Setup.SetAutostart(true); errs.CodeOf(err) != errs.NotFound {
		t.Fatalf("unwired set: %v", err)
	}
	s.Setup.Autostart = &entry
	if st, _ := s.Setup.AutostartState(); st != "unset" {
		t.Fatalf("before a vault: %s", st)
	}
	if _, err := s.Setup.SetVault(notes); err != nil {
		t.Fatal(err)
	}
	nextOp(t, events, "vault")
	if st, _ := s.Setup.AutostartState(); st != "on" {
		t.Fatalf("after the vault: %s", st)
	}
	b, _ := os.ReadFile(entry.Path)
	if !strings.Contains(string(b), "Exec=/usr/bin/jarvis --tray") {
		t.Fatalf("entry:\n%s", b)
	}
	if err := s.Setup.SetAutostart(false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Setup.SetVault(notes); err != nil {
		t.Fatal(err)
	}
	if o := nextOp(t, events, "vault"); o.State != ops.Done {
		t.Fatalf("reindex: %+v", o)
	}
	if st, _ := s.Setup.AutostartState(); st != "off" {
		t.Fatalf("the user's off was overridden: %s", st)
	}
}
