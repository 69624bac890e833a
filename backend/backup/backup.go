// Package backup copies a Jarvis data dir's irreplaceable parts — the
// knowledge base, chat sessions, drafts, prompts, memory and the config file — into a
// backup set, and restores a set. A set is a folder with a manifest listing
// every file with its size and sha256. Restore verifies the whole set first,
// stages a full copy beside each target and only then swaps the targets in,
// rolling every swap back if one fails: it never half-restores.
// The cloud ledger is in a set too. Models (re-downloadable), logs and
// state are not.
package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/version"
)

// ManifestName is the manifest's file name inside a set.
const ManifestName = "manifest.json"

// Format and FormatVersion identify a set's manifest.
const (
	Format        = "jarvis-backup"
	FormatVersion = 1
)

// storeFile is the store copy's path inside a set.
const storeFile = "rag/" + kb.DBName

// Manifest describes a set.
type Manifest struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	Jarvis    string    `json:"jarvis_version"`
	// Store describes the knowledge-base copy (nil when there was none).
	Store *kb.SnapshotInfo `json:"store,omitempty"`
	Files []File           `json:"files"`
	// Skipped lists what was not copied and why (symlinks, special files).
	Skipped []string `json:"skipped,omitempty"`
}

// File is one file of a set, by its slash path inside the set.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// part is one restorable piece of the data dir and where it lives.
type part struct {
	name   string // its top-level name inside a set
	target string // its place on disk
	dir    bool
}

// parts lists a config's pieces. They must be distinct and none may hold
// another, or a swap of one would move the other.
func parts(cfg *config.Config) ([]part, error) {
	ps := []part{
		{"config.toml", cfg.File, false},
		{"rag", cfg.RAG.Dir, true},
		{"sessions", cfg.SessionsDir(), true},
		{"drafts", cfg.Drafts.Dir, true},
		{"prompts", cfg.PromptsDir(), true},
		{"memory", filepath.Dir(cfg.MemoryFile()), true},
		{"ledger", cfg.LedgerDir(), true},
		{"images", cfg.ImagesDir(), true}, // PNG copies the viewer shows for WebP documents
	}
	for i, a := range ps {
		for _, b := range ps[i+1:] {
			if within(a.target, b.target) || within(b.target, a.target) {
				return nil, errs.New(errs.Invalid, "backup", "%s (%s) and %s (%s) overlap; give each its own folder", a.name, a.target, b.name, b.target)
			}
		}
	}
	return ps, nil
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Create writes a backup set of cfg's data dir into dest, which must not
// exist or be empty. The store is copied with VACUUM INTO while other
// processes keep working; other files are copied as they are (Jarvis
// replaces them atomically, so each copy is whole). The manifest is written
// last: a set without one is incomplete.
func Create(ctx context.Context, cfg *config.Config, dest string) (m *Manifest, err error) {
	const op = "backup.Create"
	ps, err := parts(cfg)
	if err != nil {
		return nil, err
	}
	if err := prepareDest(dest); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			removeContents(dest) // a failed set is not left looking usable
		}
	}()
	m = &Manifest{Format: Format, Version: FormatVersion, CreatedAt: time.Now().UTC(), Jarvis: version.Version}
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return nil, errs.Wrap(errs.Cancelled, op, err)
		}
		if p.name == "rag" {
			if err := snapshotStore(ctx, p.target, dest, m); err != nil {
				return nil, err
			}
			continue
		}
		if p.name == "ledger" {
			if err := snapshotLedger(ctx, p.target, dest, m); err != nil {
				return nil, err
			}
			continue
		}
		if err := copyPart(p, dest, m); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dest, ManifestName), b, 0o600); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	return m, nil
}

// prepareDest makes dest an empty private folder.
func prepareDest(dest string) error {
	const op = "backup.Create"
	entries, err := os.ReadDir(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return errs.Wrap(errs.Internal, op, err)
	case len(entries) > 0:
		return errs.New(errs.Conflict, op, "%s is not empty; back up into a new folder", dest)
	}
	return errs.Wrap(errs.Internal, op, fsutil.EnsurePrivateDir(dest))
}

// removeContents empties a folder this package filled.
func removeContents(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // nothing readable to clean; the error that got us here is reported
	}
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name())) // best effort on a set that is being discarded
	}
}

func snapshotStore(ctx context.Context, ragDir, dest string, m *Manifest) error {
	if err := fsutil.EnsurePrivateDir(filepath.Join(dest, "rag")); err != nil {
		return errs.Wrap(errs.Internal, "backup.Create", err)
	}
	out := filepath.Join(dest, filepath.FromSlash(storeFile))
	info, err := kb.Snapshot(ctx, ragDir, out)
	if errs.Is(err, errs.NotFound) {
		return nil // no knowledge base yet: the set simply has none
	}
	if err != nil {
		return err
	}
	m.Store = &info
	f, err := describe(out, storeFile)
	if err != nil {
		return err
	}
	m.Files = append(m.Files, f)
	return nil
}

// snapshotLedger copies the cloud ledger like the store: consistently,
// while other processes may be recording requests.
func snapshotLedger(ctx context.Context, dir, dest string, m *Manifest) error {
	if err := fsutil.EnsurePrivateDir(filepath.Join(dest, "ledger")); err != nil {
		return errs.Wrap(errs.Internal, "backup.Create", err)
	}
	rel := "ledger/" + ledger.FileName
	out := filepath.Join(dest, filepath.FromSlash(rel))
	err := ledger.Snapshot(ctx, dir, out)
	if errs.Is(err, errs.NotFound) {
		return nil // nothing was ever sent
	}
	if err != nil {
		return err
	}
	f, err := describe(out, rel)
	if err != nil {
		return err
	}
	m.Files = append(m.Files, f)
	return nil
}

// describe sizes and hashes a file already in the set.
func describe(file, rel string) (File, error) {
	st, err := os.Stat(file)
	if err != nil {
		return File{}, errs.Wrap(errs.Internal, "backup", err)
	}
	sum, err := fsutil.HashFile(file)
	if err != nil {
		return File{}, errs.Wrap(errs.Internal, "backup", err)
	}
	return File{Path: rel, Size: st.Size(), SHA256: sum}, nil
}

// copyPart copies one file or folder of the data dir into the set.
func copyPart(p part, dest string, m *Manifest) error {
	const op = "backup.Create"
	st, err := os.Lstat(p.target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // never created: nothing to keep
	}
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	if !p.dir {
		if !st.Mode().IsRegular() {
			m.Skipped = append(m.Skipped, p.name+": not a regular file")
			return nil
		}
		f, err := copyFile(p.target, filepath.Join(dest, p.name), p.name, nil)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, f)
		return nil
	}
	return filepath.WalkDir(p.target, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return errs.Wrap(errs.Internal, op, err)
		}
		rel, err := filepath.Rel(p.target, file)
		if err != nil {
			return errs.Wrap(errs.Internal, op, err)
		}
		setPath := path.Join(p.name, filepath.ToSlash(rel))
		switch {
		case d.IsDir():
			return errs.Wrap(errs.Internal, op, fsutil.EnsurePrivateDir(filepath.Join(dest, filepath.FromSlash(setPath))))
		case !d.Type().IsRegular():
			m.Skipped = append(m.Skipped, setPath+": not a regular file")
			return nil
		}
		f, err := copyFile(file, filepath.Join(dest, filepath.FromSlash(setPath)), setPath, nil)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, f)
		return nil
	})
}

// copyFile copies src to dst (0600), hashing on the way. With want set the
// copy must match it, so a file changed after verification is caught.
func copyFile(src, dst, rel string, want *File) (File, error) {
	const op = "backup.copy"
	in, err := os.Open(src)
	if err != nil {
		return File{}, errs.Wrap(errs.Internal, op, err)
	}
	defer in.Close()
	if err := fsutil.EnsurePrivateDir(filepath.Dir(dst)); err != nil {
		return File{}, errs.Wrap(errs.Internal, op, err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return File{}, errs.Wrap(errs.Internal, op, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return File{}, errs.Wrapf(errs.Internal, op, err, "cannot copy %s", rel)
	}
	f := File{Path: rel, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}
	if want != nil && (f.Size != want.Size || f.SHA256 != want.SHA256) {
		return File{}, errs.New(errs.Invalid, op, "%s changed while it was being restored", rel)
	}
	return f, nil
}

// Verify checks a set: a readable manifest of this format, every listed
// file present with its size and checksum, no file the manifest does not
// list, paths that stay inside the set, and a store copy that passes
// SQLite's integrity check. Any problem is an errs.Invalid naming it.
func Verify(ctx context.Context, dir string) (*Manifest, error) {
	const op = "backup.Verify"
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errs.New(errs.Invalid, op, "%s is not a backup set (no %s; an interrupted backup has none)", dir, ManifestName)
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errs.Wrapf(errs.Invalid, op, err, "the manifest of %s is corrupt", dir)
	}
	if m.Format != Format || m.Version != FormatVersion {
		return nil, errs.New(errs.Invalid, op, "%s is not a Jarvis backup set of version %d (format %q, version %d)", dir, FormatVersion, m.Format, m.Version)
	}
	listed := map[string]File{}
	for _, f := range m.Files {
		if !validSetPath(f.Path) {
			return nil, errs.New(errs.Invalid, op, "the manifest names %q, which is outside the set", f.Path)
		}
		if _, dup := listed[f.Path]; dup {
			return nil, errs.New(errs.Invalid, op, "the manifest lists %s twice", f.Path)
		}
		listed[f.Path] = f
	}
	if (m.Store != nil) != slices.ContainsFunc(m.Files, func(f File) bool { return f.Path == storeFile }) {
		return nil, errs.New(errs.Invalid, op, "the manifest and the set disagree about the knowledge base copy")
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return errs.Wrap(errs.Internal, op, err)
		}
		rel, err := filepath.Rel(dir, file)
		if err != nil {
			return errs.Wrap(errs.Internal, op, err)
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == ManifestName {
			return nil
		}
		want, ok := listed[rel]
		if !ok {
			return errs.New(errs.Invalid, op, "%s is in the set but not in its manifest (a mixed-up set?)", rel)
		}
		if !d.Type().IsRegular() {
			return errs.New(errs.Invalid, op, "%s is not a regular file", rel)
		}
		got, err := describe(file, rel)
		if err != nil {
			return err
		}
		if got.Size != want.Size || got.SHA256 != want.SHA256 {
			return errs.New(errs.Invalid, op, "%s does not match its checksum: the set is corrupt or mixed up", rel)
		}
		seen[rel] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, f := range m.Files {
		if !seen[f.Path] {
			return nil, errs.New(errs.Invalid, op, "%s is listed in the manifest but missing from the set", f.Path)
		}
	}
	if m.Store != nil {
		if err := kb.CheckIntegrity(ctx, filepath.Join(dir, filepath.FromSlash(storeFile)), true); err != nil {
			return nil, errs.Wrapf(errs.Invalid, op, err, "the knowledge base copy is damaged")
		}
	}
	return &m, nil
}

// validSetPath accepts a clean relative slash path under a known part.
func validSetPath(p string) bool {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, `\`) {
		return false
	}
	top, _, _ := strings.Cut(p, "/")
	return slices.Contains([]string{"config.toml", "rag", "sessions", "drafts", "prompts", "memory", "ledger", "images"}, top) && (top != "config.toml" || p == top)
}

// Summary is a one-line description of a set, for the CLI.
func (m *Manifest) Summary() string {
	store := "no knowledge base"
	if m.Store != nil {
		store = fmt.Sprintf("knowledge base of %d chunks (%s)", m.Store.Chunks, m.Store.EmbedModel)
	}
	return fmt.Sprintf("%d files, %s, made %s by Jarvis %s", len(m.Files), store, m.CreatedAt.Local().Format("2006-01-02 15:04"), m.Jarvis)
}
