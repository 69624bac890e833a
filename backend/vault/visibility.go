package vault

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// Visibility is the one policy: a note is private when the first component
// of its path under the vault is a private folder. It classifies the
// resolved path, so a symlink in a public folder pointing into private/ is
// private, and anything resolving outside the vault is treated as private
// (fail closed).
func Visibility(root, path string, privateDirs []string) string {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return kb.Private
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return kb.Private
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return kb.Private
	}
	first := strings.Split(filepath.ToSlash(rel), "/")[0]
	if slices.Contains(privateDirs, first) {
		return kb.Private
	}
	return kb.Public
}
