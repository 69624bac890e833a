// Package kbcmd implements `jarvis-cli kb`: inspection and management of the
// knowledge base. Every command works without the local models (keyword
// search, vectors pending); commands that can use them load whatever is
// installed and say which mode answered.
package kbcmd

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// openStore opens the store for commands that need no model.
func openStore(cfg *config.Config) (*kb.Store, error) { return kb.Open(cfg.RAG.Dir) }

// New builds the kb command group.
func New(io *iostreams.IO, load func() (*config.Config, error), getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{Use: "kb", Short: "Inspect and manage the knowledge base"}
	withTools := func(fn func(ctx context.Context, k *kbtools.KB, args []string) error) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			s, err := openStore(cfg)
			if err != nil {
				return err
			}
			defer s.Close()
			return fn(c.Context(), &kbtools.KB{Store: s, VaultRoot: cfg.Vault.Path, PrivateDirs: cfg.Vault.PrivateDirs}, args)
		}
	}

	var f kb.Filter
	var docType string
	var listWhere []string
	var limit int
	list := &cobra.Command{
		Use:   "list",
		Short: "List documents (one line per document, with chunk counts)",
		Args:  cobra.NoArgs,
		RunE: withTools(func(ctx context.Context, k *kbtools.KB, _ []string) error {
			wf, err := whereFilter("kb list", listWhere)
			if err != nil {
				return err
			}
			wf.Category, wf.Status, wf.Entity = cmp.Or(f.Category, wf.Category), cmp.Or(f.Status, wf.Status), cmp.Or(f.Entity, wf.Entity)
			if docType != "" {
				wf.DocTypes = strings.Split(docType, ",")
			}
			docs, err := k.ListDocuments(ctx, person(true), wf, limit)
			if err != nil {
				return err
			}
			for _, d := range docs {
				fmt.Fprintln(io.Out, d.String())
			}
			fmt.Fprintf(io.Err, "%d documents\n", len(docs))
			return nil
		}),
	}
	list.Flags().StringVar(&docType, "type", "", "doc types, comma-separated (paper,note,chat,digest)")
	list.Flags().StringVar(&f.Category, "category", "", "record type")
	list.Flags().StringVar(&f.Status, "status", "", "record status")
	list.Flags().StringVar(&f.Entity, "entity", "", "record entity")
	list.Flags().StringArrayVar(&listWhere, "where", nil, whereHelp)
	list.Flags().IntVar(&limit, "limit", 200, "maximum documents")
	cmd.AddCommand(list)
	cmd.AddCommand(newRecordsCmd(io, withTools))

	cmd.AddCommand(&cobra.Command{
		Use:   "stats",
		Short: "Counts by type, visibility, record type and status",
		Args:  cobra.NoArgs,
		RunE: withTools(func(ctx context.Context, k *kbtools.KB, _ []string) error {
			c, err := k.Stats(ctx, person(true))
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "chunks: %d\ndocuments: %d\nprivate chunks: %d\n", c.Chunks, c.Documents, c.Private)
			printCounts(io, "by type", c.ByType)
			printCounts(io, "record types", c.Records)
			printCounts(io, "statuses", c.Statuses)
			if c.Legacy > 0 {
				fmt.Fprintf(io.Out, "WARNING: %d private paper/digest chunks predate the papers-are-public rule\n", c.Legacy)
			}
			return nil
		}),
	})

	cmd.AddCommand(&cobra.Command{
		Use:   "schema [KEY]",
		Short: "List metadata keys with chunk counts, or the values of one key",
		Args:  cobra.MaximumNArgs(1),
		RunE: withTools(func(ctx context.Context, k *kbtools.KB, args []string) error {
			counts, err := k.Schema(ctx, person(true), strings.Join(args, ""))
			if err != nil {
				return err
			}
			printCounts(io, "", counts)
			return nil
		}),
	})

	var yes bool
	remove := &cobra.Command{
		Use:     "remove KEY VALUE",
		Short:   "Remove every chunk whose metadata KEY equals VALUE (database only)",
		Example: "  jarvis-cli kb remove source https://arxiv.org/abs/2401.01234",
		Args:    cobra.ExactArgs(2),
		RunE: withTools(func(ctx context.Context, k *kbtools.KB, args []string) error {
			f, err := kb.ParseFilter(args[0], args[1])
			if err != nil {
				return err
			}
			r, err := k.PrepareRemoveWhere(ctx, person(true), f, args[0]+" = "+args[1])
			if err != nil {
				return err
			}
			fmt.Fprint(io.Out, r.Preview)
			if !yes {
				fmt.Fprint(io.Out, "Remove these entries? [y/N] ")
				answer, _ := bufio.NewReader(io.In).ReadString('\n') // EOF or a read error is no answer: "no"
				if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
					return errs.New(errs.Cancelled, "kb remove", "nothing removed")
				}
			}
			n, err := k.Remove(ctx, r)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "removed %d chunks\n", n)
			return nil
		}),
	}
	remove.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask for confirmation")
	cmd.AddCommand(remove)

	var title, authors, doi string
	setMeta := &cobra.Command{
		Use:   "set-meta SOURCE",
		Short: "Correct a paper's title, authors or DOI (no re-embedding)",
		Args:  cobra.ExactArgs(1),
		RunE: withTools(func(ctx context.Context, k *kbtools.KB, args []string) error {
			if title == "" && authors == "" && doi == "" {
				return errs.New(errs.Invalid, "kb set-meta", "give at least one of --title, --authors, --doi")
			}
			n, err := k.UpdatePaperMeta(ctx, person(true), kbtools.PaperMeta{Source: args[0], Title: title, Authors: authors, DOI: doi})
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "updated %d chunks of %s\n", n, args[0])
			return nil
		}),
	}
	setMeta.Flags().StringVar(&title, "title", "", "new title")
	setMeta.Flags().StringVar(&authors, "authors", "", "new authors")
	setMeta.Flags().StringVar(&doi, "doi", "", "new DOI")
	cmd.AddCommand(setMeta)

	addEmbeddingCommands(cmd, io, load, getenv)
	return cmd
}

// person is who the CLI calls the knowledge-base tools as: the human at
// this terminal, who gets listings as long as asked and sees everything,
// unless private material is left out, which is asking as a cloud caller.
func person(private bool) kbtools.Caller {
	return kbtools.Caller{Who: "cli", Person: true, Cloud: !private}
}

func printCounts(io *iostreams.IO, title string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	if title != "" {
		fmt.Fprintf(io.Out, "%s:\n", title)
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		fmt.Fprintf(io.Out, "  %-24s %d\n", k, m[k])
	}
}
