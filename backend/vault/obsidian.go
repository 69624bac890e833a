package vault

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/reveal"
)

// Wikilink is how a note is linked inside Obsidian: [[folder/Note#Heading]],
// the path vault-relative without ".md", the heading the last part of a
// section breadcrumb ("H1 › H2"). Pasted into a note it is a working link,
// where a plain path is dead text.
func Wikilink(rel, breadcrumb string) string {
	target := strings.TrimSuffix(filepath.ToSlash(rel), ".md")
	if i := strings.LastIndex(breadcrumb, "›"); i >= 0 {
		breadcrumb = breadcrumb[i+len("›"):]
	}
	// "[", "]", "|" and "#" end or split a wikilink; Obsidian's own links
	// to such headings drop them too.
	heading := strings.Map(func(r rune) rune {
		if strings.ContainsRune("[]|#^", r) {
			return -1
		}
		return r
	}, strings.TrimSpace(breadcrumb))
	if heading != "" {
		return "[[" + target + "#" + heading + "]]"
	}
	return "[[" + target + "]]"
}

// ObsidianURL opens a vault note in Obsidian: obsidian://open with the
// vault named by its folder (as Obsidian names vaults) and the file
// vault-relative, without ".md".
func ObsidianURL(root, rel string) string {
	q := url.Values{}
	q.Set("vault", filepath.Base(filepath.Clean(root)))
	q.Set("file", strings.TrimSuffix(path.Clean(filepath.ToSlash(rel)), ".md"))
	// Obsidian decodes %20, not "+", in its URI parameters.
	return "obsidian://open?" + strings.ReplaceAll(q.Encode(), "+", "%20")
}

// NoteURL is the obsidian:// link of the note at vault-relative rel, once
// the note is checked to exist inside the vault (symlinks resolved): a link
// Jarvis hands to the desktop never names a file outside it.
func NoteURL(root, rel string) (string, error) {
	const op = "vault.NoteURL"
	if root == "" {
		return "", errs.New(errs.NotFound, op, "no vault is set up")
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	got, inside := Locate(root, p)
	if filepath.IsAbs(rel) || !inside || got == "" {
		return "", errs.New(errs.NotFound, op, "%s is not a note in the vault", rel)
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return "", errs.New(errs.NotFound, op, "%s is not a note in the vault", rel)
	}
	return ObsidianURL(root, got), nil
}

// ObsidianInstalled reports whether the desktop has a handler for
// obsidian:// links (the desktop entry registers one) or an obsidian
// command. lookPath and mimeDefault are injectable for tests.
func ObsidianInstalled(lookPath func(string) (string, error), mimeDefault func(scheme string) string) bool {
	return reveal.Installed("obsidian", "obsidian", lookPath, mimeDefault)
}
