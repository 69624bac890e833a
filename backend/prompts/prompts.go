// Package prompts loads the three prompts Jarvis uses. Each has a shipped
// default (compiled in) and a user copy under ~/.jarvis/prompts, seeded from
// the default when Jarvis starts (so all of them are there to edit in any
// editor from the first launch) and read fresh on every call, so an edit
// takes effect on the next turn without a restart.
package prompts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	shipped "github.com/jarvis-kb/jarvis/prompts"
)

// Prompt names. The file on disk is <name>.md.
const (
	System        = "system_prompt"
	PaperSummary  = "paper_summary"
	DigestScoring = "digest_scoring"
)

// Names lists every prompt in display order.
var Names = []string{System, PaperSummary, DigestScoring}

// about says what each prompt is for, in the words Settings shows.
var about = map[string]struct{ title, description string }{
	System:        {"Assistant instructions", "Sent at the start of every chat: how Jarvis looks things up, cites and handles retrieved text."},
	PaperSummary:  {"Paper summary", "Used when a paper is added in summary mode: what the summary of a PDF should contain."},
	DigestScoring: {"Digest scoring", "Used by the weekly digest to rate how relevant each new paper is to your interests."},
}

// maxBytes bounds a saved prompt; a larger one is almost certainly a paste
// accident and would crowd out the context window.
const maxBytes = 64 << 10

// Store reads and writes the user's copies in Dir.
type Store struct {
	Dir string
}

// Prompt is one prompt's current text and whether it still equals the default.
type Prompt struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Text        string `json:"text"`
	Modified    bool   `json:"modified"`
}

func check(name string) error {
	if !slices.Contains(Names, name) {
		return errs.New(errs.NotFound, "prompts", "unknown prompt %q (known: %s)", name, strings.Join(Names, ", "))
	}
	return nil
}

// Default returns the shipped text of a prompt.
func Default(name string) (string, error) {
	if err := check(name); err != nil {
		return "", err
	}
	b, err := shipped.FS.ReadFile(name + ".md")
	if err != nil {
		return "", errs.Wrap(errs.Internal, "prompts.Default", err)
	}
	return string(b), nil
}

func (s Store) path(name string) string { return filepath.Join(s.Dir, name+".md") }

// Load returns the user's copy, seeding it from the default when missing.
func (s Store) Load(name string) (string, error) {
	if err := check(name); err != nil {
		return "", err
	}
	b, err := os.ReadFile(s.path(name))
	if err == nil {
		return string(b), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", errs.Wrapf(errs.Internal, "prompts.Load", err, "cannot read %s", s.path(name))
	}
	def, err := Default(name)
	if err != nil {
		return "", err
	}
	if err := s.write(name, def); err != nil {
		return "", err
	}
	return def, nil
}

// Seed writes the default of every prompt that has no user copy yet; copies
// that exist, edited or not, are left as they are.
func (s Store) Seed() error {
	for _, n := range Names {
		if _, err := s.Load(n); err != nil {
			return err
		}
	}
	return nil
}

// Save replaces the user's copy. Empty or oversized text is refused and the
// stored copy stays as it was.
func (s Store) Save(name, text string) error {
	if err := check(name); err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return errs.New(errs.Invalid, "prompts.Save", "prompt %s must not be empty (use reset to restore the default)", name)
	}
	if len(text) > maxBytes {
		return errs.New(errs.Invalid, "prompts.Save", "prompt %s is %d bytes; the limit is %d", name, len(text), maxBytes)
	}
	return s.write(name, text)
}

// Reset overwrites the user's copy with the shipped default and returns it.
func (s Store) Reset(name string) (string, error) {
	def, err := Default(name)
	if err != nil {
		return "", err
	}
	return def, s.write(name, def)
}

// List returns every prompt with its current text.
func (s Store) List() ([]Prompt, error) {
	out := make([]Prompt, 0, len(Names))
	for _, n := range Names {
		text, err := s.Load(n)
		if err != nil {
			return nil, err
		}
		def, _ := Default(n) // n is from Names, so it exists
		out = append(out, Prompt{Name: n, Title: about[n].title, Description: about[n].description, Text: text, Modified: text != def})
	}
	return out, nil
}

func (s Store) write(name, text string) error {
	if err := os.MkdirAll(s.Dir, fsutil.PrivateDirMode); err != nil {
		return errs.Wrap(errs.Internal, "prompts", err)
	}
	if err := fsutil.WriteFileAtomic(s.path(name), []byte(text), 0o600); err != nil {
		return errs.Wrapf(errs.Internal, "prompts", err, "cannot write %s", s.path(name))
	}
	return nil
}
