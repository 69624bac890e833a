// Package configcmd implements `jarvis-cli config`.
package configcmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// New builds the config command group.
func New(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Show or change settings in config.toml"}
	cmd.AddCommand(&cobra.Command{
		Use:   "show",
		Short: "Print the effective settings (secrets shown only as set / not set)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			for _, line := range cfg.Summary() {
				fmt.Fprintln(io.Out, line)
			}
			for _, w := range cfg.Warnings {
				fmt.Fprintln(io.Err, w)
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the config file's path",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(io.Out, config.FilePath(config.HomeDir()))
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "set SECTION.KEY VALUE",
		Short: "Set one key, keeping every other line and comment of config.toml",
		Long: `Set one key in config.toml. VALUE is read as TOML when it parses as a
boolean, an integer or an array (true, 30, ["a", "b"]) and as a string otherwise.`,
		Example: "  jarvis-cli config set chat.response_style 'Be brief.'\n  jarvis-cli config set digest.enabled true",
		Args:    cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			section, key, ok := strings.Cut(args[0], ".")
			if !ok || section == "" || key == "" {
				return errs.New(errs.Invalid, "config set", "expected SECTION.KEY, got %q", args[0])
			}
			value, err := ParseValue(args[1])
			if err != nil {
				return err
			}
			if err := config.Set(section, key, value); err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "%s.%s updated in %s\n", section, key, config.FilePath(config.HomeDir()))
			return nil
		},
	})
	return cmd
}

// ParseValue reads a command-line value as a bool, int, string array or
// string, in that order.
func ParseValue(s string) (any, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		inner := strings.TrimSpace(s[1 : len(s)-1])
		if inner == "" {
			return []string{}, nil
		}
		var out []string
		for _, part := range strings.Split(inner, ",") {
			part = strings.TrimSpace(part)
			unq, err := strconv.Unquote(part)
			if err != nil {
				unq = strings.Trim(part, `'`)
			}
			out = append(out, unq)
		}
		return out, nil
	}
	return s, nil
}
