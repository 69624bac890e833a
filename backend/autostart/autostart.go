// Package autostart writes and reads the XDG autostart entry that starts
// the Jarvis tray (`jarvis --tray`) when the user logs in.
//
// The entry's file is the setting itself, in the three states the XDG
// Autostart spec gives it: absent (never chosen: the default applies, on
// once a vault is chosen), present (on), present with Hidden=true (turned
// off by the user, which the default must not override).
package autostart

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// FileName is the entry's name under $XDG_CONFIG_HOME/autostart.
const FileName = "jarvis-tray.desktop"

// State is what the entry says.
type State int

const (
	Unset State = iota // no entry: the user never chose
	On                 // the tray starts at login
	Off                // the user turned it off (Hidden=true)
)

func (s State) String() string {
	switch s {
	case On:
		return "on"
	case Off:
		return "off"
	}
	return "unset"
}

// Entry is one user's autostart entry.
type Entry struct {
	Path string // the .desktop file
	Exec string // the jarvis binary the entry starts
}

// Default is the entry of the user running this process, starting exe
// (os.Executable of the desktop app).
func Default(getenv func(string) string, exe string) (Entry, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) { // the spec ignores a relative value
		home := getenv("HOME")
		if home == "" {
			return Entry{}, errs.New(errs.NotFound, "autostart", "HOME is not set, so there is no autostart folder")
		}
		dir = filepath.Join(home, ".config")
	}
	return Entry{Path: filepath.Join(dir, "autostart", FileName), Exec: exe}, nil
}

// Read reports the entry's state.
func (e Entry) Read() (State, error) {
	b, err := os.ReadFile(e.Path)
	if os.IsNotExist(err) {
		return Unset, nil
	}
	if err != nil {
		return Unset, errs.Wrapf(errs.Internal, "autostart.Read", err, "cannot read %s", e.Path)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == "Hidden" && strings.EqualFold(strings.TrimSpace(v), "true") {
			return Off, nil
		}
	}
	return On, nil
}

// Set turns the tray's start at login on or off.
func (e Entry) Set(on bool) error {
	if on && e.Exec == "" {
		return errs.New(errs.Invalid, "autostart.Set", "no jarvis binary to start")
	}
	if err := os.MkdirAll(filepath.Dir(e.Path), 0o700); err != nil {
		return errs.Wrap(errs.Internal, "autostart.Set", err)
	}
	// Written whole to a temp file and renamed: a session manager reading
	// at login never sees half an entry.
	tmp, err := os.CreateTemp(filepath.Dir(e.Path), ".jarvis-tray-*")
	if err != nil {
		return errs.Wrap(errs.Internal, "autostart.Set", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(e.content(on)); err != nil {
		tmp.Close()
		return errs.Wrap(errs.Internal, "autostart.Set", err)
	}
	if err := tmp.Close(); err != nil {
		return errs.Wrap(errs.Internal, "autostart.Set", err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return errs.Wrap(errs.Internal, "autostart.Set", err)
	}
	if err := os.Rename(tmp.Name(), e.Path); err != nil {
		return errs.Wrapf(errs.Internal, "autostart.Set", err, "cannot write %s", e.Path)
	}
	return nil
}

// ApplyDefault turns autostart on when the user never chose (called once a
// vault is chosen); a choice already made stays.
func (e Entry) ApplyDefault() (State, error) {
	st, err := e.Read()
	if err != nil || st != Unset {
		return st, err
	}
	if err := e.Set(true); err != nil {
		return Unset, err
	}
	return On, nil
}

func (e Entry) content(on bool) string {
	var b strings.Builder
	b.WriteString("[Desktop Entry]\nType=Application\nName=Jarvis sync\n")
	b.WriteString("Comment=Keeps the Jarvis vault, PDF inbox and digest in sync\n")
	if e.Exec != "" {
		// TryExec: once the package is removed, the session skips the entry.
		fmt.Fprintf(&b, "TryExec=%s\nExec=%s --tray\n", e.Exec, quoteExec(e.Exec))
	}
	b.WriteString("Icon=jarvis\nTerminal=false\nNoDisplay=true\nX-GNOME-Autostart-enabled=")
	if on {
		b.WriteString("true\n")
	} else {
		b.WriteString("false\nHidden=true\n")
	}
	return b.String()
}

// quoteExec quotes a path for an Exec key (Desktop Entry spec: double
// quotes, with ", `, $ and \ escaped) when it needs it.
func quoteExec(p string) string {
	if !strings.ContainsAny(p, " \t\n\"'\\><~|&;$*?#()`") {
		return p
	}
	r := strings.NewReplacer(`\`, `\\\\`, `"`, `\\"`, "`", "\\\\`", `$`, `\\$`)
	return `"` + r.Replace(p) + `"`
}
