package kbcmd

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// The commands in this file embed text, so they load the models first.

// withEngine runs fn with the knowledge base and its models open.
func withEngine(load func() (*config.Config, error), fn func(ctx context.Context, e *engine.Engine, args []string) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		cfg, err := load()
		if err != nil {
			return err
		}
		e, err := engine.Open(cfg)
		if err != nil {
			return err
		}
		defer e.Close()
		return fn(c.Context(), e, args)
	}
}

// AddOptions are `kb add`'s flags.
type AddOptions struct {
	Private             bool
	FullText, Figures   bool
	Title, Authors, DOI string
	Yes                 bool
	Model               ingest.Model // tests inject one; nil builds the configured provider
}

func addEmbeddingCommands(cmd *cobra.Command, io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) {
	ao := &AddOptions{}
	add := &cobra.Command{
		Use:   "add FILE...",
		Short: "Add PDFs (as public papers) or Markdown/text files (as notes)",
		Long: "A PDF is added as a paper: its highlights and notes first, then an LLM summary (default)\n" +
			"or the full text (--full-text), optionally figure captions (--figures). A Markdown file\n" +
			"is classified by the file it resolves to (links and .. followed): inside the vault it keeps\n" +
			"the vault's privacy rules, so a link to a note in a private folder adds it as private; one\n" +
			"elsewhere is public unless --private. Re-adding a file replaces its entry.",
		Args: cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			failed := 0
			in := bufio.NewReader(io.In)
			for _, arg := range args {
				msg, err := addOne(ctx, io, in, e, arg, ao, getenv)
				if err != nil {
					failed++
					fmt.Fprintf(io.Err, "%s: %v\n", arg, err) // the error carries its hint
					continue
				}
				fmt.Fprintf(io.Out, "%s: %s\n", arg, msg)
			}
			if failed > 0 {
				return errs.New(errs.Invalid, "kb add", "%d of %d files were not added", failed, len(args))
			}
			return nil
		}),
	}
	add.Flags().BoolVar(&ao.Private, "private", false, "mark the notes private (refused for PDFs, which are always public, and for notes in a public vault folder)")
	add.Flags().BoolVar(&ao.FullText, "full-text", false, "PDFs: store every chunk of the text instead of a summary")
	add.Flags().BoolVar(&ao.Figures, "figures", false, "PDFs: caption embedded figures with the vision model")
	add.Flags().StringVar(&ao.Title, "title", "", "PDFs: title (skips inference)")
	add.Flags().StringVar(&ao.Authors, "authors", "", "PDFs: authors (skips inference)")
	add.Flags().StringVar(&ao.DOI, "doi", "", "PDFs: DOI")
	add.Flags().BoolVarP(&ao.Yes, "yes", "y", false, "add duplicates without asking")
	cmd.AddCommand(add)

	var n int
	var docType string
	var privateOK bool
	search := &cobra.Command{
		Use:   "search QUERY",
		Short: "Hybrid search (dense + BM25, fused, reranked); prints ranked chunks",
		Args:  cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			f := kb.Filter{}
			if docType != "" {
				f.DocTypes = strings.Split(docType, ",")
			}
			if !privateOK {
				f.Visibility = []string{kb.Public}
			}
			if n <= 0 {
				n = e.Cfg.RAG.NResults
			}
			hits, err := e.Searcher.Search(ctx, strings.Join(args, " "), n, f)
			if err != nil {
				return err
			}
			if len(hits) == 0 {
				fmt.Fprintln(io.Err, "no matches")
				return nil
			}
			for i, h := range hits {
				printHit(io, i+1, h)
			}
			return nil
		}),
	}
	search.Flags().IntVarP(&n, "n", "n", 0, "number of results (default rag.n_results)")
	search.Flags().StringVar(&docType, "type", "", "doc types, comma-separated (paper,note,chat,digest)")
	search.Flags().BoolVar(&privateOK, "private", true, "include private notes (this is a local search; nothing leaves the machine)")
	cmd.AddCommand(search)

	cmd.AddCommand(&cobra.Command{
		Use:   "reindex",
		Short: "Re-embed every stored chunk with the configured model (all or nothing)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			rt, err := embed.NewRuntime()
			if err != nil {
				return err
			}
			defer rt.Close()
			emb, err := engine.LoadEmbedder(rt, cfg)
			if err != nil {
				return err
			}
			start := time.Now()
			last := time.Time{}
			n, err := kb.Reindex(c.Context(), cfg.RAG.Dir, emb, func(done, total int) {
				if time.Since(last) > time.Second || done == total {
					last = time.Now()
					fmt.Fprintf(io.Err, "\rre-embedded %d/%d chunks", done, total)
				}
			})
			fmt.Fprintln(io.Err)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "reindexed %d chunks with %s (%d dims, %s backend) in %s\n",
				n, emb.Info().ID, emb.Info().Dims, emb.Backend(), time.Since(start).Round(time.Millisecond))
			return nil
		},
	})

	cmd.AddCommand(&cobra.Command{
		Use:   "add-digest FILE...",
		Short: "Import digest Markdown files: the digest as a document, papers scored 8+ as summaries",
		Args:  cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			idx := &ingest.DigestIndexer{Store: e.Store, Embed: e.Embedder, Opts: ingest.OptionsFrom(e.Cfg.RAG)}
			for _, path := range args {
				data, err := os.ReadFile(path)
				if err != nil {
					return errs.Wrap(errs.NotFound, "kb add-digest", err)
				}
				out, err := idx.ImportDigest(ctx, path, string(data))
				if err != nil {
					return err
				}
				fmt.Fprintf(io.Out, "%s: %d summaries added, %d already stored, %d below 8 (searchable through the digest)\n",
					path, out.Summaries, out.Skipped, out.Low)
			}
			return nil
		}),
	})

	var force bool
	indexVault := &cobra.Command{
		Use:   "index-vault",
		Short: "Sync the Obsidian vault into the knowledge base (incremental; --force rebuilds)",
		Long: "Adds new notes, re-embeds changed ones and drops deleted ones. Notes added with\n" +
			"`kb add` from outside the vault are left alone. --force clears every vault note first.",
		Args: cobra.NoArgs,
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, _ []string) error {
			if force {
				n, err := e.Store.DeleteBy(ctx, "source", kb.SourceVault)
				if err != nil {
					return errs.WithHint(errs.Wrap(errs.RAG, "kb index-vault", err), "the old vault index could not be cleared; nothing was rebuilt")
				}
				fmt.Fprintf(io.Err, "cleared %d note chunks\n", n)
			}
			r := e.Refresher()
			r.Progress = func(done, total int) { fmt.Fprintf(io.Err, "\rnotes %d/%d", done, total) }
			res, err := r.Refresh(ctx)
			fmt.Fprintln(io.Err)
			for _, w := range res.Warnings {
				fmt.Fprintf(io.Err, "warning: %s\n", w)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "added %d, updated %d, deleted %d, reclassified %d\n", res.Added, res.Updated, res.Deleted, res.Reclassified)
			return nil
		}),
	}
	indexVault.Flags().BoolVar(&force, "force", false, "clear every vault note and rebuild from scratch")
	cmd.AddCommand(indexVault)
}

// addOne adds one file through the shared Adder; a PDF that is already
// stored is added again only after a "y" (or with --yes).
func addOne(ctx context.Context, io *iostreams.IO, in *bufio.Reader, e *engine.Engine, path string, ao *AddOptions, getenv func(string) string) (string, error) {
	model := ao.Model
	isPDF := strings.EqualFold(filepath.Ext(path), ".pdf")
	if model == nil && isPDF {
		p, err := agent.ProviderFactory(e.Cfg, getenv)(e.Cfg.Chat.Provider)
		if err != nil && !ao.FullText {
			return "", errs.WithHint(err, "summary mode needs a model; add --full-text to store the text without one")
		}
		if err == nil {
			model = p
		}
	}
	mode := ingest.Summary
	if ao.FullText {
		mode = ingest.FullText
	}
	figures := ao.Figures || e.Cfg.RAG.FigureCaptions
	res, err := e.Adder(model).Add(ctx, ingest.AddRequest{Path: path, Private: ao.Private,
		Paper: ingest.Paper{Title: ao.Title, Authors: ao.Authors, DOI: ao.DOI, Mode: mode, Figures: &figures},
		Duplicate: func(dups []kb.Duplicate) bool {
			for _, d := range dups {
				fmt.Fprintf(io.Err, "%s: already stored (same %s): %s\n", path, d.Reason, d.Doc.String())
			}
			if ao.Yes {
				return true
			}
			fmt.Fprint(io.Err, "Add it anyway? A same-source entry is replaced. [y/N] ")
			answer, _ := in.ReadString('\n')
			a := strings.ToLower(strings.TrimSpace(answer))
			return a == "y" || a == "yes"
		}})
	if err != nil {
		return "", err
	}
	msg := res.Message
	for _, w := range res.Warnings {
		msg += "\n  warning: " + w
	}
	return msg, nil
}

// printHit prints one ranked chunk: where it comes from, then a snippet.
func printHit(io *iostreams.IO, rank int, h kb.Hit) {
	m := h.Chunk.Meta
	where := m.Title
	if where == "" {
		where = m.Source
	}
	if m.FilePath != "" && m.FilePath != where {
		where += " (" + m.FilePath + ")"
	}
	if m.Page > 0 {
		where += fmt.Sprintf(" p.%d", m.Page)
	}
	badge := ""
	if m.Visibility == kb.Private {
		badge = " [private]"
	}
	fmt.Fprintf(io.Out, "%d. [%s] %s%s  score=%.3f\n", rank, m.DocType, where, badge, h.Score)
	if m.Section != "" {
		fmt.Fprintf(io.Out, "   § %s\n", m.Section)
	}
	snippet := strings.Join(strings.Fields(h.Chunk.Content), " ")
	if r := []rune(snippet); len(r) > 240 {
		snippet = string(r[:240]) + "…"
	}
	fmt.Fprintf(io.Out, "   %s\n", snippet)
}
