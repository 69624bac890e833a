// Package digestcmd implements `jarvis-cli digest run`.
package digestcmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// DisabledNotice explains how to turn the digest on.
const DisabledNotice = `The paper digest is disabled ([digest] enabled = false).
Enable it with:  jarvis-cli config set digest.enabled true
or run it once anyway with:  jarvis-cli digest run --force`

// Options are the digest command's inputs; tests replace the clients.
type Options struct {
	Force   bool
	Arxiv   *digest.Arxiv
	Biorxiv *digest.Biorxiv
	LLM     digest.Completer
	Getenv  func(string) string
}

// New builds the digest command group.
func New(io *iostreams.IO, load func() (*config.Config, error), opts *Options) *cobra.Command {
	cmd := &cobra.Command{Use: "digest", Short: "Run the weekly paper digest (opt-in)"}
	run := &cobra.Command{
		Use:   "run",
		Short: "Fetch, score and write this week's digest",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			if !cfg.Digest.Enabled && !opts.Force {
				fmt.Fprintln(io.Out, DisabledNotice)
				return nil
			}
			return Run(c.Context(), io, cfg, opts)
		},
	}
	run.Flags().BoolVar(&opts.Force, "force", false, "run even though [digest] enabled is false")
	cmd.AddCommand(run)
	return cmd
}

// Run performs one digest with the configured provider.
func Run(ctx context.Context, io *iostreams.IO, cfg *config.Config, opts *Options) error {
	svc := &daemon.Services{Cfg: cfg, Getenv: opts.Getenv}
	defer svc.Close()
	out, err := svc.RunDigest(ctx, daemon.DigestOptions{Arxiv: opts.Arxiv, Biorxiv: opts.Biorxiv, LLM: opts.LLM, Out: io.Out})
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "fetched %d papers (%d unique), selected %d\n", out.Fetched, out.Unique, out.Selected)
	fmt.Fprintf(io.Out, "digest: %s\n", out.DigestPath)
	fmt.Fprintf(io.Out, "indexed: %d full text, %d summary fallback, %d summaries, %d already known, %d updated to a newer version\n",
		out.FullText, out.SummaryFallback, out.Summaries, out.Skipped, out.Updated)
	for _, w := range out.Warnings {
		fmt.Fprintln(io.Out, "warning:", w)
	}
	return nil
}
