// Package drafts is the agent's only writable place: a sandbox of draft
// folders under ~/.jarvis/drafts. Every read and write goes through one
// containment function; the agent creates files freely but changes existing
// text only through proposals a human accepts hunk by hunk.
package drafts

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// idPattern is shared with session ids: lowercase letters, digits, dashes.
var idPattern = regexp.MustCompile(`^[0-9a-z-]{1,64}$`)

const (
	metaFile    = "draft.json"
	versionsDir = ".versions"
)

// MaxNameBytes bounds a draft file name so every name derived from it fits
// the usual 255-byte limit: the snapshot "<20 digits>--<name>" and the
// temporary ".<name>.tmp-<up to 10 digits>" written beside either.
const MaxNameBytes = 200

// Workspace is the drafts root and its policy.
type Workspace struct {
	Root       string
	Extensions []string // allowlist, e.g. .md .tex .bib .txt .csv
	MaxBytes   int
	Now        func() time.Time // injectable clock (time.Now when nil)
	// WriteSpy, when set, is told every path the workspace writes (tests
	// use it to prove no write leaves the sandbox).
	WriteSpy func(path string)
}

// New returns a workspace rooted at root, creating it 0700.
func New(root string, extensions []string, maxBytes int) (*Workspace, error) {
	if err := fsutil.EnsurePrivateDir(root); err != nil {
		return nil, errs.Wrapf(errs.Internal, "drafts.New", err, "cannot create drafts dir %s", root)
	}
	return &Workspace{Root: root, Extensions: extensions, MaxBytes: maxBytes}, nil
}

func (w *Workspace) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// ValidateID checks a draft id against the shared id pattern.
func ValidateID(id string) error {
	if !idPattern.MatchString(id) || strings.HasPrefix(id, "-") {
		return errs.New(errs.Invalid, "drafts", "invalid draft id %q (lowercase letters, digits and dashes, not starting with a dash)", id)
	}
	return nil
}

// checkName enforces the filename policy: a plain name, no separators or
// traversal, no leading dot (hidden/bookkeeping files) or dash (it would be
// parsed as an option by latexmk or pandoc), an allowlisted extension.
func (w *Workspace) checkName(name string) error {
	bad := func(why string) error {
		return errs.New(errs.Invalid, "drafts", "file name %q refused: %s", name, why)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > MaxNameBytes:
		return bad(fmt.Sprintf("longer than %d bytes", MaxNameBytes))
	case !utf8.ValidString(name) || strings.IndexFunc(name, invisible) >= 0:
		return bad("control and invisible characters are not allowed")
	case strings.ContainsAny(name, "/\\\x00"):
		return bad("path separators are not allowed")
	case name == "." || name == ".." || strings.Contains(name, ".."):
		return bad("traversal is not allowed")
	case strings.HasPrefix(name, "."):
		return bad("names may not start with a dot")
	case strings.HasPrefix(name, "-"):
		return bad("names may not start with a dash")
	case name == metaFile:
		return bad("reserved")
	}
	ext := strings.ToLower(filepath.Ext(name))
	if !slices.Contains(w.Extensions, ext) {
		return bad("extension must be one of " + strings.Join(w.Extensions, " "))
	}
	return nil
}

// invisible reports characters a file name must not carry: controls
// (newlines, escapes) and format characters (bidi overrides, zero-width
// joiners) that make a name read differently from what it is.
func invisible(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// Resolve is the single containment policy: it returns the absolute path of
// filename inside draft id, or an error. The resolved path (symlinks
// followed) must lie inside the real drafts root with id as its first
// component, so a symlink planted in or as a draft cannot reach out.
func (w *Workspace) Resolve(id, filename string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	if err := w.checkName(filename); err != nil {
		return "", err
	}
	return w.contain(id, filepath.Join(w.Root, id, filename))
}

// draftDir resolves a draft's own folder with the same containment check.
func (w *Workspace) draftDir(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	return w.contain(id, filepath.Join(w.Root, id))
}

func (w *Workspace) contain(id, candidate string) (string, error) {
	realRoot, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return "", errs.Wrap(errs.Internal, "drafts.Resolve", err)
	}
	real, err := resolveExisting(candidate)
	if err != nil {
		return "", errs.Wrap(errs.Internal, "drafts.Resolve", err)
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", errs.New(errs.Invalid, "drafts", "path escapes the drafts sandbox")
	}
	if first := strings.Split(rel, string(filepath.Separator))[0]; first != id {
		return "", errs.New(errs.Invalid, "drafts", "path escapes draft %q", id)
	}
	return candidate, nil
}

// resolveExisting follows symlinks through the longest existing prefix of p
// and appends the rest unchanged.
func resolveExisting(p string) (string, error) {
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Hash is the content hash used for conflict detection.
func Hash(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	return hex.EncodeToString(b)
}

func (w *Workspace) checkSize(n int, name string) error {
	if w.MaxBytes > 0 && n > w.MaxBytes {
		return errs.New(errs.Invalid, "drafts", "%s is %d bytes; the limit is %d", name, n, w.MaxBytes)
	}
	return nil
}

// writeFile writes a draft file, enforcing the size cap.
func (w *Workspace) writeFile(path string, data []byte) error {
	if err := w.checkSize(len(data), filepath.Base(path)); err != nil {
		return err
	}
	return w.atomicWrite(path, data)
}

// atomicWrite is the one place the workspace writes bytes to disk (files,
// draft.json, snapshots), 0600 and atomic. WriteSpy sees every path.
func (w *Workspace) atomicWrite(path string, data []byte) error {
	if w.WriteSpy != nil {
		w.WriteSpy(path)
	}
	if err := fsutil.WriteFileAtomic(path, data, 0o600); err != nil {
		return errs.Wrap(errs.Internal, "drafts.write", err)
	}
	return nil
}

// createExclusive writes a new file that must not exist yet: the bytes go
// to a temporary file first, which is then hard-linked to the final name.
// The link fails if the name is taken, so of two writers racing for one
// name exactly one wins, and a reader never sees a half-written file.
func (w *Workspace) createExclusive(path string, data []byte) error {
	const op = "drafts.create"
	if err := w.checkSize(len(data), filepath.Base(path)); err != nil {
		return err
	}
	if w.WriteSpy != nil {
		w.WriteSpy(path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	defer os.Remove(tmp.Name()) // the final name keeps the bytes once linked
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return errExists(filepath.Base(path))
		}
		return errs.Wrap(errs.Internal, op, err)
	}
	return nil
}

func errExists(name string) error {
	return errs.New(errs.Conflict, "drafts.AddFile", "%s already exists in this draft; propose an edit instead", name)
}

// Open returns the workspace the configuration describes; every binary
// opens drafts through here so they share one policy.
func Open(c config.Drafts) (*Workspace, error) {
	return New(c.Dir, c.Extensions, c.MaxFileBytes)
}
