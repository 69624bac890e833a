package vault

import (
	"os"
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
	rel, inside := within(realRoot, real)
	if !inside || inPrivateDir(realRoot, rel, privateDirs) {
		return kb.Private
	}
	return kb.Public
}

// InPrivateFolder reports whether path lies inside the vault at root and in
// one of its private folders, by resolved path like Visibility (a link
// elsewhere that points into a private folder is in that folder). A path
// outside the vault is not in a private folder; one that does not exist is
// judged by its spelling.
func InPrivateFolder(root, path string, privateDirs []string) bool {
	if root == "" {
		return false
	}
	realRoot, real := resolve(root), resolve(path)
	rel, inside := within(realRoot, real)
	return inside && inPrivateDir(realRoot, rel, privateDirs)
}

// Locate returns the vault-relative (slash) path of the file path names once
// symlinks and ".." are resolved, and whether it lies inside the vault.
func Locate(root, path string) (rel string, inside bool) {
	if root == "" {
		return "", false
	}
	return within(resolve(root), resolve(path))
}

// resolve follows symlinks when the path exists and cleans it otherwise.
func resolve(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within places a resolved path under a resolved root. When the spellings
// differ (letter case on a case-insensitive filesystem, a bind mount) the
// path's ancestors are compared with the root by identity, so the same
// folder is recognised however it is written.
func within(realRoot, real string) (string, bool) {
	if rel, err := filepath.Rel(realRoot, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel), true
	}
	rootInfo, err := os.Stat(realRoot)
	if err != nil {
		return "", false
	}
	var parts []string
	for dir := real; ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		parts = append(parts, filepath.Base(dir))
		if info, err := os.Stat(parent); err == nil && os.SameFile(info, rootInfo) {
			slices.Reverse(parts)
			return strings.Join(parts, "/"), true
		}
		dir = parent
	}
}

// inPrivateDir reports whether a vault-relative path starts in a private
// folder. A first component that matches a private folder only up to letter
// case counts when both name the same directory (a case-insensitive
// filesystem); on a case-sensitive one they are different folders.
func inPrivateDir(realRoot, rel string, privateDirs []string) bool {
	first, _, _ := strings.Cut(rel, "/")
	for _, d := range privateDirs {
		if first == d {
			return true
		}
		if strings.EqualFold(first, d) {
			a, errA := os.Stat(filepath.Join(realRoot, first))
			b, errB := os.Stat(filepath.Join(realRoot, d))
			if errA == nil && errB == nil && os.SameFile(a, b) {
				return true
			}
		}
	}
	return false
}
