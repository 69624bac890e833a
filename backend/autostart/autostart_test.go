package autostart

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaultFollowsXDGConfigHome(t *testing.T) {
	e, err := Default(env(map[string]string{"HOME": "/home/a", "XDG_CONFIG_HOME": "/cfg"}), "/usr/bin/jarvis")
	if err != nil || e.Path != "/cfg/autostart/jarvis-tray.desktop" {
		t.Fatalf("%+v %v", e, err)
	}
	// A relative XDG_CONFIG_HOME is ignored, as the spec says.
	e, _ = Default(env(map[string]string{"HOME": "/home/a", "XDG_CONFIG_HOME": "rel"}), "/usr/bin/jarvis")
	if e.Path != "/home/a/.config/autostart/jarvis-tray.desktop" {
		t.Fatalf("%+v", e)
	}
	if _, err := Default(env(nil), "/usr/bin/jarvis"); err == nil {
		t.Fatal("no HOME: want an error")
	}
}

func TestSetReadAndDefault(t *testing.T) {
	e := Entry{Path: filepath.Join(t.TempDir(), "autostart", FileName), Exec: "/usr/bin/jarvis"}
	if st, err := e.Read(); err != nil || st != Unset {
		t.Fatalf("fresh: %v %v", st, err)
	}
	if st, err := e.ApplyDefault(); err != nil || st != On {
		t.Fatalf("default: %v %v", st, err)
	}
	b, _ := os.ReadFile(e.Path)
	for _, want := range []string{"Exec=/usr/bin/jarvis --tray\n", "TryExec=/usr/bin/jarvis\n", "X-GNOME-Autostart-enabled=true"} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("entry lacks %q:\n%s", want, b)
		}
	}
	if fi, _ := os.Stat(e.Path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if err := e.Set(false); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.Read(); st != Off {
		t.Fatalf("after off: %v", st)
	}
	// The user's "off" survives the default applied at the next vault choice.
	if st, err := e.ApplyDefault(); err != nil || st != Off {
		t.Fatalf("default after off: %v %v", st, err)
	}
	if err := e.Set(true); err != nil {
		t.Fatal(err)
	}
	if st, _ := e.Read(); st != On {
		t.Fatalf("after on: %v", st)
	}
	left, _ := os.ReadDir(filepath.Dir(e.Path))
	if len(left) != 1 {
		t.Fatalf("temp files left: %v", left)
	}
}

// The entry is valid for the desktop's own validator, a path with spaces
// included.
func TestEntryValidates(t *testing.T) {
	v, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		t.Fatal("desktop-file-validate is missing (apt install desktop-file-utils)")
	}
	dir := t.TempDir()
	for i, exe := range []string{"/usr/bin/jarvis", "/opt/My Apps/jarvis"} {
		for _, on := range []bool{true, false} {
			e := Entry{Path: filepath.Join(dir, "autostart", FileName), Exec: exe}
			if err := e.Set(on); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(v, e.Path).CombinedOutput(); err != nil || strings.Contains(string(out), "error") {
				t.Fatalf("case %d on=%v: %v\n%s", i, on, err, out)
			}
		}
	}
	if got := quoteExec("/opt/My Apps/jarvis"); got != `"/opt/My Apps/jarvis"` {
		t.Fatalf("quoted %s", got)
	}
}
