// Package reveal shows a file in the desktop's file manager: the one way a
// draft (or a cited file) leaves Jarvis is the user copying it there.
package reveal

import (
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Command is the argv that shows path in the file manager of goos (a
// runtime.GOOS value). macOS and Windows select the file itself: `open -R
// <path>` and `explorer /select,<path>`, the latter one argument, not two.
// Linux has no portable "select", so xdg-open gets the containing folder —
// never the file, which would hand a model-written document to whatever
// application claims its extension. The path must be absolute, so it can
// never be read as an option.
func Command(goos, path string) ([]string, error) {
	path, err := absolute(path)
	if err != nil {
		return nil, err
	}
	switch goos {
	case "darwin":
		return []string{"open", "-R", path}, nil
	case "windows":
		return []string{"explorer", "/select," + path}, nil
	default:
		return []string{"xdg-open", filepath.Dir(path)}, nil
	}
}

// OpenCommand is the argv that opens path in its default application on
// goos: for the user's own files a citation names (a vault note, a PDF
// they added), never for what a model wrote (Command shows those in the
// file manager instead). The path must be absolute, so it can never be
// read as an option.
func OpenCommand(goos, path string) ([]string, error) {
	path, err := absolute(path)
	if err != nil {
		return nil, err
	}
	switch goos {
	case "darwin":
		return []string{"open", path}, nil
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", path}, nil
	default:
		return []string{"xdg-open", path}, nil
	}
}

// absolute cleans path, refusing a relative one: a command's argument
// that could be read as an option.
func absolute(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", errs.New(errs.Invalid, "reveal", "%q is not an absolute path", path)
	}
	return filepath.Clean(path), nil
}

// appSchemes are the links Jarvis hands to desktop applications: each
// opens one program's own item, never a file by its extension.
var appSchemes = []string{"obsidian", "zotero"}

// URLCommand is the argv that opens an application link (obsidian://…) on
// goos. Only known application schemes are accepted, so no caller can make
// it open a file or a web page through the desktop's default handlers.
func URLCommand(goos, link string) ([]string, error) {
	u, err := url.Parse(link)
	if err != nil || !slices.Contains(appSchemes, u.Scheme) {
		return nil, errs.New(errs.Invalid, "reveal", "%q is not an application link (%s)", link, strings.Join(appSchemes, ", "))
	}
	switch goos {
	case "darwin":
		return []string{"open", link}, nil
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", link}, nil
	default:
		return []string{"xdg-open", link}, nil
	}
}

// Start runs argv without waiting for it (a file manager outlives the
// call) and reaps it when it exits.
func Start(argv []string) error {
	if len(argv) == 0 {
		return errs.New(errs.Invalid, "reveal", "no command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	prepare(cmd)
	if err := cmd.Start(); err != nil {
		return errs.Wrapf(errs.Internal, "reveal", err, "cannot start %s", argv[0])
	}
	go cmd.Wait() //nolint:errcheck // the exit status of a file manager says nothing
	return nil
}

// Installed reports whether the desktop can open scheme:// links: the
// program's command is on PATH (command) or a desktop entry registers a
// handler for the scheme. lookPath and mimeDefault are injectable for
// tests (nil: the real ones).
func Installed(command, scheme string, lookPath func(string) (string, error), mimeDefault func(scheme string) string) bool {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if mimeDefault == nil {
		mimeDefault = xdgSchemeHandler
	}
	if _, err := lookPath(command); err == nil {
		return true
	}
	return strings.TrimSpace(mimeDefault(scheme)) != ""
}

// xdgSchemeHandler asks xdg-mime which desktop entry opens scheme:// links.
func xdgSchemeHandler(scheme string) string {
	out, err := exec.Command("xdg-mime", "query", "default", "x-scheme-handler/"+scheme).Output()
	if err != nil {
		return "" // no xdg-utils, or no handler: the program is not reachable by link
	}
	return string(out)
}
