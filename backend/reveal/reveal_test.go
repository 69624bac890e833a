package reveal

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestCommandPerPlatform(t *testing.T) {
	file := filepath.Join(string(filepath.Separator), "home", "ada", "My Drafts", "draft-1", "paper.tex")
	for _, c := range []struct {
		goos string
		want []string
	}{
		{"linux", []string{"xdg-open", filepath.Dir(file)}},
		{"freebsd", []string{"xdg-open", filepath.Dir(file)}},
		{"darwin", []string{"open", "-R", file}},
		// One argument, spaces and all: explorer splits nothing after the comma.
		{"windows", []string{"explorer", "/select," + file}},
	} {
		got, err := Command(c.goos, file)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: %q %v, want %q", c.goos, got, err, c.want)
		}
	}
}

func TestCommandCleansAndRefusesRelativePaths(t *testing.T) {
	got, err := Command("darwin", "/a/b/../c.md")
	if err != nil || !slices.Equal(got, []string{"open", "-R", "/a/c.md"}) {
		t.Fatalf("%q %v", got, err)
	}
	for _, p := range []string{"-rf", "paper.tex", "../x", ""} {
		if _, err := Command("linux", p); !errs.Is(err, errs.Invalid) {
			t.Errorf("%q: a relative path could be read as an option or resolve anywhere: %v", p, err)
		}
	}
}

func TestStartRunsTheCommandWithoutWaiting(t *testing.T) {
	if _, err := exec.LookPath("touch"); err != nil {
		t.Fatal("touch is missing: ", err)
	}
	mark := filepath.Join(t.TempDir(), "ran")
	if err := Start([]string{"touch", mark}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not run")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := Start([]string{filepath.Join(t.TempDir(), "no-such-file-manager")}); !errs.Is(err, errs.Internal) {
		t.Fatalf("a missing file manager must be reported: %v", err)
	}
	if err := Start(nil); !errs.Is(err, errs.Invalid) {
		t.Fatal(err)
	}
}

func TestURLCommandOpensOnlyApplicationLinks(t *testing.T) {
	argv, err := URLCommand("linux", "obsidian://open?vault=V&file=a")
	if err != nil || len(argv) != 2 || argv[0] != "xdg-open" || argv[1] != "obsidian://open?vault=V&file=a" {
		t.Fatalf("%q %v", argv, err)
	}
	if argv, _ := URLCommand("darwin", "zotero://select/library/items/ABCD"); argv[0] != "open" {
		t.Fatalf("%q", argv)
	}
	for _, bad := range []string{"file:///etc/passwd", "https://example.org", "/home/ada/x.md", "-x", "javascript:alert(1)"} {
		if _, err := URLCommand("linux", bad); !errs.Is(err, errs.Invalid) {
			t.Errorf("URLCommand(%q): %v", bad, err)
		}
	}
}

func TestOpenCommandOpensAbsolutePathsOnly(t *testing.T) {
	for goos, want := range map[string][]string{
		"linux":   {"xdg-open", "/home/u/vault/n.md"},
		"darwin":  {"open", "/home/u/vault/n.md"},
		"windows": {"rundll32", "url.dll,FileProtocolHandler", "/home/u/vault/n.md"},
	} {
		got, err := OpenCommand(goos, "/home/u/vault/../vault/n.md")
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v %v", goos, got, err)
		}
	}
	if _, err := OpenCommand("linux", "-n.md"); err == nil {
		t.Fatal("a relative path (read as an option) was accepted")
	}
}
