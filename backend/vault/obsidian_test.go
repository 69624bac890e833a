package vault

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestWikilinkIsWhatObsidianLinksWith(t *testing.T) {
	for _, c := range []struct{ rel, section, want string }{
		{"projects/alpha.md", "", "[[projects/alpha]]"},
		{"projects/alpha.md", "Alpha › Results", "[[projects/alpha#Results]]"},
		{"Meetings/2026-03 Tanaka.md", "Notes [draft] #1", "[[Meetings/2026-03 Tanaka#Notes draft 1]]"},
		{"日記/会議.md", "議事録", "[[日記/会議#議事録]]"},
	} {
		if got := Wikilink(c.rel, c.section); got != c.want {
			t.Errorf("Wikilink(%q, %q) = %q, want %q", c.rel, c.section, got, c.want)
		}
	}
}

func TestObsidianURLNamesTheVaultAndFile(t *testing.T) {
	got := ObsidianURL("/home/ada/Research Notes/", "Meetings/2026-03 Tanaka.md")
	u, err := url.Parse(got)
	if err != nil || u.Scheme != "obsidian" || u.Host != "open" {
		t.Fatalf("%q: %v", got, err)
	}
	q := u.Query()
	if q.Get("vault") != "Research Notes" || q.Get("file") != "Meetings/2026-03 Tanaka" {
		t.Fatalf("%q → %v", got, q)
	}
	if want := "obsidian://open?file=Meetings%2F2026-03%20Tanaka&vault=Research%20Notes"; got != want {
		t.Fatalf("spaces must be %%20 for Obsidian: %q", got)
	}
}

func TestObsidianInstalledByCommandOrLinkHandler(t *testing.T) {
	missing := func(string) (string, error) { return "", errors.New("not found") }
	found := func(string) (string, error) { return "/usr/bin/obsidian", nil }
	none := func(string) string { return "" }
	if ObsidianInstalled(missing, none) {
		t.Fatal("neither command nor handler: not installed")
	}
	if !ObsidianInstalled(found, none) || !ObsidianInstalled(missing, func(string) string { return "obsidian.desktop\n" }) {
		t.Fatal("a command or a link handler means installed")
	}
}

func TestNoteURLOnlyForNotesInsideTheVault(t *testing.T) {
	root := filepath.Join(t.TempDir(), "My Vault")
	os.MkdirAll(filepath.Join(root, "projects"), 0o755)
	os.WriteFile(filepath.Join(root, "projects", "alpha.md"), []byte("# Alpha\n"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(outside, []byte("x"), 0o644)
	os.Symlink(outside, filepath.Join(root, "link.md"))
	got, err := NoteURL(root, "projects/alpha.md")
	if err != nil || got != "obsidian://open?file=projects%2Falpha&vault=My%20Vault" {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range []string{"../secret.md", outside, "link.md", "projects/missing.md", "projects"} {
		if _, err := NoteURL(root, bad); !errs.Is(err, errs.NotFound) {
			t.Errorf("NoteURL(%q): %v", bad, err)
		}
	}
}
