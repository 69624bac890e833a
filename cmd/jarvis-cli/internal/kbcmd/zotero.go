package kbcmd

import (
	"context"
	"fmt"
	goio "io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/setup"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// ZoteroOptions are `kb index-zotero`'s flags.
type ZoteroOptions struct {
	Dir     string
	NoEmbed bool
	// Private are collection paths to add to zotero.private_collections.
	Private []string
}

func newIndexZoteroCmd(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	opts := &ZoteroOptions{}
	cmd := &cobra.Command{
		Use:   "index-zotero",
		Short: "Sync a Zotero library (items, PDFs, the highlights made in Zotero's reader) into the knowledge base",
		Long: "Reads zotero.sqlite without writing it (from a copy, so Zotero can stay open) and applies only\n" +
			"what changed since the last run: new and edited items, annotations and notes are (re)indexed,\n" +
			"trashed and removed items are dropped. Items are papers (public), except those filed in a private\n" +
			"collection (zotero.private_collections; --private-collection adds one): they stay on this machine\n" +
			"like notes in a private vault folder. --dir chooses the Zotero data folder (the one holding\n" +
			"zotero.sqlite) and, the first time, keeps it as zotero.data_dir.",
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			return runIndexZotero(c.Context(), io, cfg, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "the Zotero data folder (default: zotero.data_dir)")
	cmd.Flags().StringArrayVar(&opts.Private, "private-collection", nil, "keep the items of this collection (and those under it) private; saved in zotero.private_collections (repeatable)")
	cmd.Flags().BoolVar(&opts.NoEmbed, "no-embed", false, "store the items (keyword search) and leave the vectors to kb embed or the tray")
	return cmd
}

func runIndexZotero(ctx context.Context, io *iostreams.IO, cfg *config.Config, opts *ZoteroOptions) error {
	const op = "kb index-zotero"
	dir := opts.Dir
	if dir == "" {
		dir = cfg.Zotero.DataDir
	}
	if dir == "" {
		home, _ := os.UserHomeDir()
		err := errs.New(errs.Invalid, op, "no Zotero library is chosen (zotero.data_dir is empty)")
		if found := zotero.Detect(home); len(found) > 0 {
			return errs.WithHint(err, "found one at "+found[0]+": jarvis-cli kb index-zotero --dir "+found[0])
		}
		return errs.WithHint(err, "name the folder holding zotero.sqlite: jarvis-cli kb index-zotero --dir ~/Zotero")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return errs.Wrap(errs.Invalid, op, err)
	}
	if _, err := zotero.Stat(abs); err != nil {
		return err
	}
	if cfg.Zotero.DataDir == "" {
		// The first folder the user names is the one the tray keeps in step.
		if err := config.SetIn(cfg.Home, "zotero", "data_dir", abs); err != nil {
			return err
		}
		fmt.Fprintf(io.Err, "zotero.data_dir set to %s (the tray keeps it in step)\n", abs)
	}
	cfg.Zotero.DataDir = abs
	if err := addPrivateCollections(io, cfg, opts.Private); err != nil {
		return err
	}
	e, err := engine.Open(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	z, err := e.ZoteroSync()
	if err != nil {
		return err
	}
	z.Progress = func(done, total int) { fmt.Fprintf(io.Err, "\ritems %d/%d", done, total) }
	start := time.Now()
	res, err := z.Sync(ctx)
	endProgress(io.Err, res.Warnings)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Out, "%d items: added %d, updated %d, deleted %d, unchanged %d (%d Zotero annotations stored) in %s\n",
		res.Items, res.Added, res.Updated, res.Deleted, res.Unchanged, res.Annotations, time.Since(start).Round(time.Millisecond))
	if len(z.PrivateCollections) > 0 {
		fmt.Fprintf(io.Out, "%d items private (in %s)\n", res.Private, strings.Join(z.PrivateCollections, ", "))
	}
	if res.Added+res.Updated+res.Deleted > 0 {
		if err := e.Store.WarmIndex(ctx); err != nil {
			return err
		}
	}
	if opts.NoEmbed || e.Embedder() == nil {
		return nil
	}
	return embedPending(ctx, io, e)
}

// addPrivateCollections saves the named collections in
// zotero.private_collections before the sync, so the sync already stores
// their items private.
func addPrivateCollections(io *iostreams.IO, cfg *config.Config, names []string) error {
	if len(names) == 0 {
		return nil
	}
	before := len(cfg.Zotero.PrivateCollections)
	if err := setup.SetZoteroPrivate(cfg, append(slices.Clone(cfg.Zotero.PrivateCollections), names...)); err != nil {
		return err
	}
	if len(cfg.Zotero.PrivateCollections) != before {
		fmt.Fprintf(io.Err, "zotero.private_collections set to %s\n", strings.Join(cfg.Zotero.PrivateCollections, ", "))
	}
	return nil
}

// endProgress ends a \r-rewritten progress line on w and prints each
// warning the work gathered on a line of its own.
func endProgress(w goio.Writer, warnings []string) {
	fmt.Fprintln(w)
	for _, line := range warnings {
		fmt.Fprintf(w, "warning: %s\n", line)
	}
}
