// Package configtest gives tests the configuration of a fresh Jarvis data
// directory: JARVIS_HOME pointed at a new temporary directory for the rest
// of the test, and config.Load's answer there. Tests across packages start
// this way, so it lives here once.
package configtest

import (
	"os"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
)

// New is the configuration of an empty data directory (no config.toml):
// the defaults and the environment's overrides. It fails the test when the
// configuration does not load.
func New(t testing.TB) *config.Config {
	t.Helper()
	return load(t, t.TempDir())
}

// WithFile is New with config.toml holding toml before it loads, for tests
// that check what the user's own file keeps (its comments, its keys).
func WithFile(t testing.TB, toml string) *config.Config {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(config.FilePath(home), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return load(t, home)
}

func load(t testing.TB, home string) *config.Config {
	t.Helper()
	t.Setenv("JARVIS_HOME", home)
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
