package ingest

import (
	"context"
	"path/filepath"
	"slices"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// PrivateFile reports whether the file at path (or the one it links to) is
// private material that must never become a public paper: it lies in a
// private vault folder (root, privateDirs; root "" for no vault), or it is
// the file of a private document in the store, such as the PDF of a Zotero
// item filed in a private collection.
func PrivateFile(ctx context.Context, store *kb.Store, root string, privateDirs []string, path string) (bool, error) {
	if vault.InPrivateFolder(root, path, privateDirs) {
		return true, nil
	}
	for _, p := range pathForms(path) {
		n, err := store.CountWhere(ctx, kb.Filter{FilePath: p, Visibility: []string{kb.Private}})
		if err != nil {
			return false, err
		}
		if n.Chunks > 0 {
			return true, nil
		}
	}
	return false, nil
}

// pathForms are the ways the store may name the file at path: as given
// (cleaned) and with its links resolved, once each.
func pathForms(path string) []string {
	return slices.Compact([]string{filepath.Clean(path), realPath(path)})
}

// realPath is path with its links resolved (a data folder kept in a
// synced, linked folder), or path itself when it cannot be resolved.
func realPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}
