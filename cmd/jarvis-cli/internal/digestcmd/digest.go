// Package digestcmd implements `jarvis-cli digest run`.
package digestcmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/prompts"
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

// completer adapts an llm.Provider to the digest's one-prompt interface.
type completer struct{ p llm.Provider }

func (c completer) CompleteText(ctx context.Context, prompt string, maxTokens, contextLength int) (string, error) {
	return c.p.Complete(ctx, []llm.Message{llm.Text(llm.RoleUser, prompt)}, maxTokens, contextLength)
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
	store := prompts.Store{Dir: cfg.PromptsDir()}
	model := opts.LLM
	name := cfg.Chat.Provider
	if model == nil {
		p, err := llm.MakeProvider(cfg, cfg.Chat.Provider, llm.Options{Getenv: opts.Getenv, ConvertPDF: ingest.ConvertFile})
		if err != nil {
			return err
		}
		if o, ok := p.(*llm.Ollama); ok {
			if err := o.Health(ctx); err != nil {
				return err
			}
		}
		model, name = completer{p}, p.Name()+":"+p.Model()
	}
	arxiv, biorxiv := opts.Arxiv, opts.Biorxiv
	if arxiv == nil {
		arxiv = digest.NewArxiv()
	}
	if biorxiv == nil {
		biorxiv = digest.NewBiorxiv()
	}
	pl := &digest.Pipeline{
		Cfg: cfg.Digest, Arxiv: arxiv, Biorxiv: biorxiv, LLM: model, ModelName: name,
		Prompt: func() (string, error) { return store.Load(prompts.DigestScoring) },
		Log:    func(f string, a ...any) { fmt.Fprintf(io.Err, f+"\n", a...) },
	}
	if eng, err := engine.Open(cfg); err != nil {
		fmt.Fprintf(io.Err, "warning: the digest file will be written but not indexed: %v\n", err)
	} else {
		defer eng.Close()
		pl.Index = &ingest.DigestIndexer{Store: eng.Store, Embed: eng.Embedder, Opts: ingest.Options{
			ChunkSize: cfg.RAG.ChunkSize, ChunkOverlap: cfg.RAG.ChunkOverlap,
			FigureMaxPerDoc: cfg.RAG.FigureMaxPerDoc, FigureMinPixels: cfg.RAG.FigureMinPixels}}
	}
	fmt.Fprintf(io.Out, "running the digest with %s\n", name)
	out, err := pl.Run(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "fetched %d papers (%d unique), selected %d\n", out.Fetched, out.Unique, out.Selected)
	fmt.Fprintf(io.Out, "digest: %s\n", out.DigestPath)
	fmt.Fprintf(io.Out, "indexed: %d full text, %d summary fallback, %d summaries, %d already known\n",
		out.FullText, out.SummaryFallback, out.Summaries, out.Skipped)
	for _, w := range out.Warnings {
		fmt.Fprintln(io.Out, "warning:", w)
	}
	return nil
}
