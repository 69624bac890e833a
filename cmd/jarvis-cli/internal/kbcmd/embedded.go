package kbcmd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
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

func addEmbeddingCommands(cmd *cobra.Command, io *iostreams.IO, load func() (*config.Config, error)) {
	var private bool
	add := &cobra.Command{
		Use:   "add FILE...",
		Short: "Add Markdown or text files (a note inside the vault is indexed exactly as vault sync would)",
		Long: "Adds each file as a note. A file inside the configured vault keeps the vault's privacy\n" +
			"rules; a file elsewhere is public unless --private. Re-adding a file replaces its entry.",
		Args: cobra.MinimumNArgs(1),
		RunE: withEngine(load, func(ctx context.Context, e *engine.Engine, args []string) error {
			failed := 0
			for _, arg := range args {
				msg, err := addFile(ctx, e, arg, private)
				if err != nil {
					failed++
					fmt.Fprintf(io.Err, "%s: %v\n", arg, err)
					if h := errs.HintOf(err); h != "" {
						fmt.Fprintf(io.Err, "  hint: %s\n", h)
					}
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
	add.Flags().BoolVar(&private, "private", false, "store files from outside the vault as private")
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
			res, err := e.Refresher().Refresh(ctx)
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

// addFile adds one file and says what happened.
func addFile(ctx context.Context, e *engine.Engine, path string, private bool) (string, error) {
	const op = "kb add"
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, op, err)
	}
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".md", ".markdown", ".txt":
	case ".pdf":
		return "", errs.WithHint(errs.New(errs.Invalid, op, "PDF ingestion is not in this build yet"),
			"convert it to Markdown first and add the .md file")
	default:
		return "", errs.New(errs.Invalid, op, "unsupported file type %q (add .md or .txt)", filepath.Ext(abs))
	}
	if root := e.Cfg.Vault.Path; root != "" {
		if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
			res, err := e.Refresher().RefreshFile(ctx, abs)
			if err != nil {
				return "", err
			}
			switch {
			case res.Added > 0:
				return "added as vault note " + filepath.ToSlash(rel), nil
			case res.Updated > 0:
				return "updated vault note " + filepath.ToSlash(rel), nil
			}
			return "unchanged vault note " + filepath.ToSlash(rel), nil
		}
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", errs.Wrap(errs.NotFound, op, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", errs.Wrap(errs.NotFound, op, err)
	}
	vis := kb.Public
	if private {
		vis = kb.Private
	}
	sum := sha256.Sum256(data)
	source := "file://" + filepath.ToSlash(abs)
	chunks, warnings := vault.BuildNote(vault.Note{FilePath: abs, Source: source, Text: string(data),
		Hash: hex.EncodeToString(sum[:]), ModifiedAt: st.ModTime().UTC().Format(time.RFC3339Nano), Visibility: vis},
		e.Cfg.RAG.ChunkSize, e.Cfg.RAG.ChunkOverlap)
	if len(chunks) == 0 {
		return "", errs.New(errs.Invalid, op, "the file has no text to index")
	}
	existing, err := e.Store.List(ctx, kb.Filter{Source: source}, 1)
	if err != nil {
		return "", err
	}
	if err := e.Store.Ingest(ctx, e.Embedder, chunks, &kb.Filter{Source: source}); err != nil {
		return "", err
	}
	verb := "added"
	if len(existing) > 0 {
		verb = "replaced"
	}
	msg := fmt.Sprintf("%s %d chunks (%s note)", verb, len(chunks), vis)
	for _, w := range warnings {
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
