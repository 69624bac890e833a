// Package kbtoolstest holds what the tests of the tool layer and of the
// layers over it share: a vault writer.
package kbtoolstest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteVault writes notes (vault-relative path → text) under root.
func WriteVault(t testing.TB, root string, notes map[string]string) {
	t.Helper()
	for rel, text := range notes {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
