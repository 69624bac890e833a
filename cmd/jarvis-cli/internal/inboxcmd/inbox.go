// Package inboxcmd implements `jarvis-cli inbox`: the PDF inbox seen from
// the terminal — what waits, what was indexed, what failed and why — and a
// retry of one file, as the Sync panel offers them in the window.
package inboxcmd

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// Options are what the subcommands share.
type Options struct {
	IO     *iostreams.IO
	Load   func() (*config.Config, error)
	Getenv func(string) string
}

// inbox opens the configured inbox over the knowledge base, with the
// chat model for paper metadata as the tray's scans have it.
func (o *Options) inbox() (*ingest.Inbox, func(), error) {
	cfg, err := o.Load()
	if err != nil {
		return nil, nil, err
	}
	ag, err := agent.New(cfg, agent.Options{Getenv: o.Getenv})
	if err != nil {
		return nil, nil, err
	}
	in, err := ag.Inbox()
	if err != nil {
		ag.Close()
		return nil, nil, err
	}
	return in, func() { ag.Close() }, nil
}

// New builds the inbox command.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	opts := &Options{IO: io, Load: load, Getenv: getenv}
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "See what the PDF inbox holds (waiting, indexed, failed and why) and retry a file",
		Long: `The PDF inbox (sync.pdf_watch_dir) is a folder whose PDFs the tray indexes as
public papers. A file that could not be read is not tried again until it
changes; "inbox retry" reads it again now (after you replaced it, or
installed Tesseract for a scan).`,
	}
	cmd.AddCommand(newList(opts), newRetry(opts))
	return cmd
}

func newList(opts *Options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the inbox's files, failed ones first, with the reason",
		Example: "  jarvis-cli inbox list\n  jarvis-cli inbox list --json | jq '.[] | select(.state == \"failed\")'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, done, err := opts.inbox()
			if err != nil {
				return err
			}
			defer done()
			rows, err := in.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(opts.IO.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(rows) == 0 {
				fmt.Fprintf(opts.IO.Out, "The inbox %s is empty.\n", in.Dir)
				return nil
			}
			w := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "STATE\tFILE\tDETAIL")
			for _, r := range rows {
				detail := r.Title
				if r.State == ingest.InboxFailed {
					detail = r.Error
				}
				if r.Private {
					detail = "private: never indexed as a public paper"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", r.State, r.Name, detail)
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the files as JSON")
	return cmd
}

func newRetry(opts *Options) *cobra.Command {
	return &cobra.Command{
		Use:     "retry FILE",
		Short:   "Read one inbox file again now",
		Example: "  jarvis-cli inbox retry scans/old-paper.pdf",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, done, err := opts.inbox()
			if err != nil {
				return err
			}
			defer done()
			outcome, err := in.Retry(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(opts.IO.Out, "%s: %s\n", args[0], outcome)
			return nil
		},
	}
}
