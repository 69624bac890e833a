// Package ledgercmd implements `jarvis-cli ledger`: what Jarvis sent to
// model services, from the same records the window shows.
package ledgercmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

type options struct {
	session, source, provider, purpose, since string
	all, body, asJSON                         bool
	limit                                     int
}

// New builds `ledger`.
func New(io *iostreams.IO, load func() (*config.Config, error)) *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "List what was sent to cloud models: when, for what, which documents",
		Long: `Lists the requests Jarvis sent to model services, newest first: when, from
which program, for what (chat turn, compaction, digest scoring, figure
caption…), to which provider and model, which documents' text each carried,
how big it was and how it ended. Each record is written before its request
leaves; a request still marked "incomplete" was cut short by a crash or a
kill and may or may not have arrived.

Requests to a local Ollama are recorded too but listed only with --all:
nothing left the machine.`,
		Example: `  jarvis-cli ledger --since 2026-12-01
  jarvis-cli ledger --source projects/alpha.md
  jarvis-cli ledger --session 20261205-101500-0123456789ab --body
  jarvis-cli ledger --json | jq '.[] | .sources'`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, err := load()
			if err != nil {
				return err
			}
			return list(c, io, cfg, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.session, "session", "", "only requests of this chat session (its id)")
	f.StringVar(&o.source, "source", "", "only requests that carried this document (a note's vault path, a paper's source)")
	f.StringVar(&o.provider, "provider", "", "only requests to this provider (anthropic, openrouter, ollama)")
	f.StringVar(&o.purpose, "purpose", "", `only requests for this purpose ("chat turn", "compaction", "digest scoring", …)`)
	f.StringVar(&o.since, "since", "", "only requests from this day (YYYY-MM-DD) or this long ago (7d, 12h)")
	f.BoolVar(&o.all, "all", false, "include requests to the local Ollama")
	f.BoolVar(&o.body, "body", false, "show each request's body as sent (secrets redacted; kept ledger.keep_days days)")
	f.BoolVar(&o.asJSON, "json", false, "print the records as JSON")
	f.IntVar(&o.limit, "limit", 0, "show at most this many (newest first; 0: all)")
	return cmd
}

func list(c *cobra.Command, io *iostreams.IO, cfg *config.Config, o options) error {
	filter := ledger.Filter{Session: o.session, Source: o.source, Provider: o.provider, Purpose: o.purpose, CloudOnly: !o.all, Limit: o.limit}
	if o.since != "" {
		t, err := parseSince(o.since, time.Now())
		if err != nil {
			return err
		}
		filter.Since = t
	}
	var rs []ledger.Record
	if _, err := os.Stat(filepath.Join(cfg.LedgerDir(), ledger.FileName)); err == nil {
		book, err := ledger.Open(cfg.LedgerDir(), cfg.Ledger.KeepDays)
		if err != nil {
			return err
		}
		defer book.Close()
		if rs, err = book.List(c.Context(), filter); err != nil {
			return err
		}
	}
	if !o.body {
		for i := range rs {
			rs[i].Body = ""
		}
	}
	if o.asJSON {
		if rs == nil {
			rs = []ledger.Record{}
		}
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rs)
	}
	if len(rs) == 0 {
		fmt.Fprintln(io.Out, "No requests match.")
		return nil
	}
	for _, r := range rs {
		writeRecord(io, r)
	}
	return nil
}

// parseSince reads a day or an age.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		if _, err := fmt.Sscanf(n, "%d", &days); err == nil && days >= 0 {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, errs.WithHint(errs.New(errs.Invalid, "ledger", "cannot read --since %q", s), "give a day (2026-12-01) or an age (7d, 12h)")
}

func writeRecord(io *iostreams.IO, r ledger.Record) {
	where := r.Provider + ":" + r.Model
	if r.Local {
		where += " (local)"
	}
	fmt.Fprintf(io.Out, "%s  %-14s %s  %s → %s  %s", r.Started.Local().Format("2006-01-02 15:04:05"), r.Purpose, where,
		size(r.RequestBytes), size(r.ResponseBytes), r.Outcome)
	if r.InputTokens+r.OutputTokens > 0 {
		fmt.Fprintf(io.Out, "  %d+%d tokens", r.InputTokens, r.OutputTokens)
	}
	if r.CostUSD > 0 {
		fmt.Fprintf(io.Out, "  $%.4f", r.CostUSD)
	}
	fmt.Fprintln(io.Out)
	detail := "  " + r.Process
	if r.Session != "" {
		detail += ", session " + r.Session
	}
	fmt.Fprintln(io.Out, detail)
	for _, s := range r.Sources {
		if s.Title != "" && s.Title != s.Key {
			fmt.Fprintf(io.Out, "  · %s (%s)\n", s.Key, s.Title)
		} else {
			fmt.Fprintf(io.Out, "  · %s\n", s.Key)
		}
	}
	if r.Error != "" {
		fmt.Fprintln(io.Out, "  error:", r.Error)
	}
	if r.Body != "" {
		fmt.Fprintln(io.Out, "  body:", r.Body)
	}
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
