// Package root assembles jarvis-cli's command tree.
package root

import (
	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/version"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/askcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/autostartcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/backupcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/configcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/convertcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/digestcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/doctor"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/draftscmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/inboxcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/kbcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/ledgercmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/mcpcmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/modelscmd"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/synccmd"
)

// Deps is what every command may need; tests substitute their own.
type Deps struct {
	IO *iostreams.IO
	// LoadConfig resolves the configuration (config.Load in production).
	LoadConfig func() (*config.Config, error)
	// Getenv reads the environment (os.Getenv in production).
	Getenv func(string) string
}

// New builds the root command.
func New(d Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "jarvis-cli",
		Short: "Headless companion to the Jarvis desktop app",
		Long: `jarvis-cli manages the Jarvis knowledge base, runs the sync scheduler and the
paper digest, converts PDFs and asks the agent questions, without a window.
It shares ~/.jarvis (or $JARVIS_HOME) with the desktop app.`,
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.SetIn(d.IO.In)
	cmd.SetOut(d.IO.Out)
	cmd.SetErr(d.IO.Err)

	cmd.AddGroup(
		&cobra.Group{ID: "kb", Title: "Knowledge base:"},
		&cobra.Group{ID: "agent", Title: "Agent and background work:"},
		&cobra.Group{ID: "setup", Title: "Setup and diagnostics:"},
	)
	add := func(group string, c *cobra.Command) {
		c.GroupID = group
		cmd.AddCommand(c)
	}
	add("kb", kbcmd.New(d.IO, d.LoadConfig, d.Getenv))
	add("kb", convertcmd.New(d.IO, d.LoadConfig))
	add("kb", inboxcmd.New(d.IO, d.LoadConfig, d.Getenv))
	add("agent", askcmd.New(d.IO, d.LoadConfig, d.Getenv))
	add("agent", draftscmd.New(d.IO, d.LoadConfig))
	add("agent", mcpcmd.New(d.IO, d.LoadConfig, d.Getenv))
	add("agent", synccmd.New(d.IO, d.LoadConfig, d.Getenv))
	add("agent", digestcmd.New(d.IO, d.LoadConfig, &digestcmd.Options{Getenv: d.Getenv}))
	add("agent", ledgercmd.New(d.IO, d.LoadConfig))
	add("setup", doctor.New(d.IO, d.LoadConfig, d.Getenv))
	add("setup", autostartcmd.New(d.IO, d.Getenv))
	add("setup", configcmd.New(d.IO, d.LoadConfig))
	add("setup", modelscmd.New(d.IO, d.LoadConfig, d.Getenv))
	add("setup", backupcmd.NewBackup(d.IO, d.LoadConfig))
	add("setup", backupcmd.NewRestore(d.IO, d.LoadConfig))
	refuseUnknownSubcommands(cmd)
	return cmd
}

// refuseUnknownSubcommands makes every command that only groups others
// (kb, models, mcp…) fail on a word it does not know. Cobra prints such a
// command's help and exits 0, so a typo like `kb index` looked like it
// worked, in a script too.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.Runnable() || !c.HasSubCommands() || !c.HasParent() {
		return // the root already refuses unknown commands
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		err := errs.New(errs.Invalid, c.CommandPath(), "unknown command %q", args[0])
		hint := "run " + c.CommandPath() + " --help for its commands"
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			hint = "did you mean " + c.CommandPath() + " " + s[0] + "?"
		}
		return errs.WithHint(err, hint)
	}
}
