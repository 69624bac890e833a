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

// InPrivateFolder reports whether path lies inside the vault at root and in
// one of its private folders (by resolved path, like Visibility). A path
// outside the vault is not in a private folder.
func InPrivateFolder(root, path string, privateDirs []string) bool {
	if root == "" {
		return false
	}
	// Resolve first: a link elsewhere that points into a private folder is
	// in that folder.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return Visibility(root, path, privateDirs) == kb.Private
}
