// Package autostartcmd implements `jarvis-cli autostart`: whether the tray
// starts at login, shown and changed from the terminal (the same entry the
// window's "Keep Jarvis syncing in the background" setting writes).
package autostartcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/autostart"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// Options are the command's inputs.
type Options struct {
	IO     *iostreams.IO
	Getenv func(string) string
	// Window finds the desktop app the entry starts; by default the
	// `jarvis` beside this binary, else the one on PATH.
	Window func() (string, error)
}

// New builds the autostart command.
func New(io *iostreams.IO, getenv func(string) string) *cobra.Command {
	return NewWith(&Options{IO: io, Getenv: getenv, Window: window})
}

// NewWith builds the command over given options.
func NewWith(o *Options) *cobra.Command {
	return &cobra.Command{
		Use:       "autostart [on|off]",
		Short:     "Show or change whether the tray starts at login",
		Long:      "The tray keeps the vault, the PDF inbox and the digest in sync while the window is closed.\nWithout an argument this prints the setting; `on` and `off` change it.",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"on", "off"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return o.show()
			}
			switch args[0] {
			case "on", "off":
				return o.set(args[0] == "on")
			}
			return errs.WithHint(errs.New(errs.Invalid, "autostart", "unknown setting %q", args[0]), "use `on` or `off`")
		},
	}
}

func (o *Options) show() error {
	e, err := autostart.Default(o.Getenv, "")
	if err != nil {
		return err
	}
	st, err := e.Read()
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%s\t%s\n", st, e.Path)
	return nil
}

func (o *Options) set(on bool) error {
	exe := ""
	if on {
		var err error
		if exe, err = o.Window(); err != nil {
			return err
		}
	}
	e, err := autostart.Default(o.Getenv, exe)
	if err != nil {
		return err
	}
	if err := e.Set(on); err != nil {
		return err
	}
	if on {
		fmt.Fprintf(o.IO.Out, "on: %s --tray starts at login (%s)\n", exe, e.Path)
	} else {
		fmt.Fprintf(o.IO.Out, "off: the tray no longer starts at login (%s)\n", e.Path)
	}
	return nil
}

// window is the desktop app installed beside jarvis-cli, else the one on PATH.
func window() (string, error) {
	if p := fsutil.FindBinary("jarvis"); p != "" {
		return p, nil
	}
	return "", errs.WithHint(errs.New(errs.NotFound, "autostart", "the jarvis desktop app is not installed beside jarvis-cli or on PATH"),
		"install the jarvis package, or put jarvis next to jarvis-cli")
}
