package doctor

import (
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/autostart"
)

func TestDoctorReportsAutostart(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	var lines []string
	rec := func(f string, a ...any) { lines = append(lines, f) }
	e, _ := autostart.Default(getenv, "/usr/bin/jarvis")
	for _, c := range []struct {
		set  func() error
		want string
	}{
		{func() error { return nil }, "not set up"},
		{func() error { return e.Set(true) }, "autostart: on"},
		{func() error { return e.Set(false) }, "autostart: off"},
	} {
		if err := c.set(); err != nil {
			t.Fatal(err)
		}
		lines = nil
		checkAutostart(getenv, rec, rec)
		if len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Fatalf("want %q, got %q", c.want, lines)
		}
	}
}
