// Package backupcmd implements `jarvis-cli backup DIR` and
// `jarvis-cli restore DIR`.
package backupcmd

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/backup"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// NewBackup builds `backup DIR`.
func NewBackup(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "backup DIR",
		Short: "Back up the knowledge base, sessions, drafts, prompts and config into a new folder",
		Long: `Writes a backup set into DIR (new or empty): a consistent copy of the
knowledge base (taken while Jarvis keeps running), chat sessions, drafts,
your prompts and config.toml, with a manifest of sha256 checksums.
Models are not included (jarvis-cli models fetch gets them back).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			m, err := backup.Create(c.Context(), cfg, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "backed up to %s: %s\n", args[0], m.Summary())
			for _, s := range m.Skipped {
				fmt.Fprintln(io.Out, "skipped:", s)
			}
			return nil
		},
	}
}

// NewRestore builds `restore DIR`.
func NewRestore(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "restore DIR",
		Short: "Replace the knowledge base, sessions, drafts, prompts and config with a backup set",
		Long: `Verifies every file of the backup set in DIR against its manifest and the
knowledge base copy with SQLite's integrity check, then replaces the current
data with it — all of it or, if anything fails, none of it. Close the
window, the tray and any jarvis-cli sync first.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			m, err := backup.Verify(c.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "backup set %s: %s\n", args[0], m.Summary())
			if !yes {
				fmt.Fprintf(io.Out, "Replace the data in %s with it? [y/N] ", cfg.Home)
				answer, _ := bufio.NewReader(io.In).ReadString('\n') // EOF or a read error is no answer: "no"
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					return errs.New(errs.Cancelled, "restore", "nothing restored")
				}
			}
			res, err := backup.Restore(c.Context(), cfg, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "restored %s from %s\n", strings.Join(res.Restored, ", "), args[0])
			for _, w := range res.Warnings {
				fmt.Fprintln(io.Out, "warning:", w)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask before replacing the current data")
	return cmd
}
