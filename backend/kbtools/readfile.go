package kbtools

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// MaxReadFile caps reading one file, so one huge note cannot flood a
// model's context.
const MaxReadFile = 256 << 10

// Note is a vault note as it is on disk.
type Note struct {
	Path       string // vault-relative, slash-separated
	Text       string
	Visibility string
}

// ReadNote reads a vault note by vault-relative path, without handing it
// to the caller. For a cloud caller a private note — by folder, or through
// a link into one — gets the answer a missing note gets, before the file
// is touched.
func (k *KB) ReadNote(ctx context.Context, c Caller, op, rel string) (Note, error) {
	rel = filepath.ToSlash(strings.TrimSpace(rel))
	if k.VaultRoot == "" {
		return Note{}, errs.New(errs.NotFound, op, "no vault is configured")
	}
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(filepath.Clean(rel), "..") || !strings.EqualFold(filepath.Ext(rel), ".md") {
		return Note{}, errs.WithHint(errs.New(errs.Invalid, op, "refused path %q", rel), "give a vault-relative path to a .md note, as search results cite it")
	}
	noNote := errs.WithHint(errs.New(errs.NotFound, op, "no note %q", rel), "check the path with list_documents kind=notes")
	abs := filepath.Join(k.VaultRoot, filepath.FromSlash(rel))
	// Visibility is private for a missing path and for one resolving
	// outside the vault (fail closed), so a cloud caller sees those three
	// cases alike.
	vis := vault.Visibility(k.VaultRoot, abs, k.PrivateDirs)
	if vis == kb.Private && c.Cloud {
		if st, err := os.Stat(abs); err == nil && st.Mode().IsRegular() {
			c.withheld(1)
		}
		return Note{}, noNote
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Note{}, noNote
	}
	if _, inside := vault.Locate(k.VaultRoot, real); !inside {
		return Note{}, errs.New(errs.Invalid, op, "refused path %q: it resolves outside the vault", rel)
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return Note{}, noNote
	}
	if st.Size() > MaxReadFile {
		return Note{}, errs.WithHint(errs.New(errs.Invalid, op, "%s is %d KiB, over the %d KiB limit", rel, st.Size()>>10, MaxReadFile>>10), "use get_document to page through it")
	}
	data, err := os.ReadFile(real)
	if err != nil {
		// The caller may see this note (the private case returned above):
		// a permission or disk fault is told as what it is.
		return Note{}, errs.Wrapf(errs.Internal, op, err, "reading %s", rel)
	}
	return Note{Path: rel, Text: string(data), Visibility: vis}, nil
}

// ReadFile hands the caller a vault note, cited by its path.
func (k *KB) ReadFile(ctx context.Context, c Caller, rel string) (Note, error) {
	n, err := k.ReadNote(ctx, c, "read_file", rel)
	if err != nil {
		return Note{}, err
	}
	c.saw(n.Visibility)
	if c.Ledger != nil {
		c.Ledger.Add(Citation{Source: n.Path, FilePath: n.Path, Title: strings.TrimSuffix(filepath.Base(n.Path), ".md")})
	}
	return n, nil
}
