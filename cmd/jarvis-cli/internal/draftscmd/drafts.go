// Package draftscmd implements `jarvis-cli drafts`: the drafts sandbox seen
// from the terminal — list with retention, keep/unkeep, and the sweep the
// tray runs, by hand and with a dry run.
package draftscmd

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// Options are what every subcommand shares.
type Options struct {
	IO   *iostreams.IO
	Load func() (*config.Config, error)
	// Now is the clock retention counts with (time.Now when nil).
	Now func() time.Time
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// workspace opens the configured drafts folder.
func (o *Options) workspace() (*drafts.Workspace, *config.Config, error) {
	cfg, err := o.Load()
	if err != nil {
		return nil, nil, err
	}
	ws, err := drafts.Open(cfg.Drafts)
	if err != nil {
		return nil, nil, err
	}
	ws.Now = o.Now
	return ws, cfg, nil
}

// New builds the drafts command.
func New(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	return NewWith(&Options{IO: io, Load: load})
}

// NewWith builds the command over given options (tests inject a clock).
func NewWith(opts *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drafts",
		Short: "List drafts, keep them from retention, and prune old ones",
		Long: `The drafts sandbox is where the agent writes. Drafts nobody changed for
drafts.retention_days days are removed by the tray's nightly sweep, counting
from the newest file in the draft — an edit made in any other editor counts.
Kept drafts are never removed.`,
	}
	cmd.AddCommand(newList(opts), newKeep(opts, true), newKeep(opts, false), newPrune(opts))
	return cmd
}

// listOptions are `drafts list`'s flags.
type listOptions struct {
	*Options
	JSON bool
}

// listed is one row of `drafts list --json`.
type listed struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Files      []string  `json:"files"`
	LastChange time.Time `json:"last_change"`
	Keep       bool      `json:"keep"`
	Private    bool      `json:"private"`
	Waiting    int       `json:"waiting_proposals"`
	// DaysLeft is absent when retention never removes the draft.
	DaysLeft *int `json:"days_left,omitempty"`
}

func newList(o *Options) *cobra.Command {
	opts := &listOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List drafts, newest change first, with the days retention leaves each",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return listRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON for scripts")
	return cmd
}

func listRun(opts *listOptions) error {
	ws, cfg, err := opts.workspace()
	if err != nil {
		return err
	}
	all, err := ws.List()
	if err != nil {
		return err
	}
	days, now := cfg.Drafts.RetentionDays, opts.now()
	rows := make([]listed, 0, len(all))
	for _, d := range all {
		r := listed{ID: d.ID, Title: d.Title, Files: d.Files, LastChange: d.LastChange(), Keep: d.Keep,
			Private: d.Visibility == drafts.Private, Waiting: len(ws.Pending(d.ID))}
		if left, ok := drafts.DaysLeft(d, days, now); ok {
			r.DaysLeft = &left
		}
		rows = append(rows, r)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(opts.IO.Out, "no drafts in %s\n", cfg.Drafts.Dir)
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tFILES\tCHANGED\tRETENTION\tWAITING")
	for _, r := range rows {
		title := r.Title
		if r.Private {
			title += " (private)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\n", r.ID, title, len(r.Files), r.LastChange.Local().Format("2006-01-02 15:04"), retention(r, days), r.Waiting)
	}
	return tw.Flush()
}

func retention(r listed, days int) string {
	switch {
	case r.Keep:
		return "kept"
	case days <= 0 || r.DaysLeft == nil:
		return "off"
	case *r.DaysLeft == 0:
		return "due now"
	default:
		return fmt.Sprintf("%d days left", *r.DaysLeft)
	}
}

func newKeep(o *Options, keep bool) *cobra.Command {
	use, short, done := "keep ID...", "Exempt drafts from retention", "kept"
	if !keep {
		use, short, done = "unkeep ID...", "Make drafts subject to retention again", "no longer kept"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, ids []string) error {
			ws, _, err := o.workspace()
			if err != nil {
				return err
			}
			for _, id := range ids {
				if err := ws.SetKeep(id, keep); err != nil {
					return err
				}
				fmt.Fprintf(o.IO.Out, "%s: %s\n", id, done)
			}
			return nil
		},
	}
}

// pruneOptions are `drafts prune`'s flags.
type pruneOptions struct {
	*Options
	DryRun bool
	Yes    bool
	Days   int // 0: the configured retention
}

func newPrune(o *Options) *cobra.Command {
	opts := &pruneOptions{Options: o}
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete drafts unchanged for the retention window (asks first)",
		Long: `Deletes drafts whose newest file is older than the retention window, with
every file in them, after listing them and asking. Kept drafts are never
deleted. This is the one Jarvis command that deletes files on disk.`,
		Example: "  jarvis-cli drafts prune --dry-run\n  jarvis-cli drafts prune --days 90 --yes",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return pruneRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list what would be deleted and delete nothing")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().IntVar(&opts.Days, "days", 0, "retention window in days (default: drafts.retention_days)")
	return cmd
}

func pruneRun(opts *pruneOptions) error {
	const op = "drafts prune"
	if opts.Days < 0 {
		return errs.New(errs.Invalid, op, "--days must be positive")
	}
	ws, cfg, err := opts.workspace()
	if err != nil {
		return err
	}
	days := opts.Days
	if days == 0 {
		days = cfg.Drafts.RetentionDays
	}
	if days <= 0 {
		fmt.Fprintln(opts.IO.Out, "retention is off (drafts.retention_days = 0): nothing is pruned; pass --days N to prune anyway")
		return nil
	}
	stale, err := ws.Stale(days)
	if err != nil {
		return err
	}
	if len(stale) == 0 {
		fmt.Fprintf(opts.IO.Out, "no draft is older than %d days\n", days)
		return nil
	}
	verb := "will delete"
	if opts.DryRun {
		verb = "would delete"
	}
	fmt.Fprintf(opts.IO.Out, "%s %d draft(s) unchanged for %d days or more:\n", verb, len(stale), days)
	ids := make([]string, len(stale))
	for i, d := range stale {
		ids[i] = d.ID
		fmt.Fprintf(opts.IO.Out, "  %s  %q  %d file(s), last changed %s\n", d.ID, d.Title, len(d.Files), d.LastChange().Local().Format("2006-01-02"))
	}
	if opts.DryRun {
		return nil
	}
	if !opts.Yes {
		fmt.Fprint(opts.IO.Out, "Delete these drafts and every file in them? [y/N] ")
		answer, _ := bufio.NewReader(opts.IO.In).ReadString('\n') // EOF or a read error is no answer: "no"
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return errs.New(errs.Cancelled, op, "nothing deleted")
		}
	}
	removed, err := ws.PruneListed(days, ids)
	fmt.Fprintf(opts.IO.Out, "deleted %d draft(s)\n", len(removed))
	if skipped := len(ids) - len(removed); err == nil && skipped > 0 {
		fmt.Fprintf(opts.IO.Out, "%d draft(s) changed or were kept meanwhile and stay\n", skipped)
	}
	return err
}
