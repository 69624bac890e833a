package ledgercmd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func run(t *testing.T, home string, args ...string) (string, error) {
	t.Helper()
	io, _, out, _ := iostreams.Test()
	c := New(io, func() (*config.Config, error) { return config.LoadFrom(home) })
	c.SetArgs(args)
	err := c.Execute()
	return out.String(), err
}

func TestTheLedgerCommandListsAndFilters(t *testing.T) {
	home := t.TempDir()
	if out, err := run(t, home); err != nil || !strings.Contains(out, "No requests match.") {
		t.Fatalf("empty: %v %q", err, out)
	}
	cfg, _ := config.LoadFrom(home)
	book, err := ledger.Open(cfg.LedgerDir(), 30)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	old := time.Now().AddDate(0, 0, -10)
	for _, r := range []ledger.Record{
		{Started: old, Purpose: ledger.PurposeDigest, Provider: "openrouter", Model: "x/y", Body: `{"old":1}`},
		{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "claude-test", Session: "s-1", Sources: []ledger.Source{{Key: "projects/alpha.md", Title: "Alpha"}}, RequestBytes: 2048, Body: `{"q":"alpha"}`},
		{Purpose: ledger.PurposeChat, Provider: "ollama", Model: "q:1b", Local: true, Session: "s-2", Sources: []ledger.Source{{Key: "private/diary.md"}}},
	} {
		id, err := book.Begin(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := book.Finish(id, ledger.Result{ResponseBytes: 300, InputTokens: 12, OutputTokens: 4}); err != nil {
			t.Fatal(err)
		}
	}
	book.Close()

	out, err := run(t, home)
	if err != nil || strings.Count(out, "tokens") != 2 || !strings.Contains(out, "· projects/alpha.md (Alpha)") || !strings.Contains(out, "2.0 KB → 300 B") || strings.Contains(out, "diary") || strings.Contains(out, `{"q"`) {
		t.Fatalf("default listing (cloud only, no bodies): %v\n%s", err, out)
	}
	if out, _ := run(t, home, "--all"); !strings.Contains(out, "ollama:q:1b (local)") {
		t.Errorf("--all:\n%s", out)
	}
	if out, _ := run(t, home, "--since", "2d", "--body"); strings.Contains(out, "digest") || !strings.Contains(out, `body: {"q":"alpha"}`) {
		t.Errorf("--since 2d --body:\n%s", out)
	}
	{
		out, _ := run(t, home, "--source", "projects/alpha.md", "--json")
		var rs []ledger.Record
		if err := json.Unmarshal([]byte(out), &rs); err != nil || len(rs) != 1 || rs[0].Session != "s-1" || rs[0].Body != "" || rs[0].Outcome != ledger.OK {
			t.Errorf("--source --json: %v %s", err, out)
		}
	}
	if _, err := run(t, home, "--since", "last tuesday"); !errs.Is(err, errs.Invalid) {
		t.Errorf("bad --since: %v", err)
	}
}

// seed writes finished records into home's ledger.
func seed(t *testing.T, home string, rs ...ledger.Record) {
	t.Helper()
	cfg, err := config.LoadFrom(home)
	if err != nil {
		t.Fatal(err)
	}
	book, err := ledger.Open(cfg.LedgerDir(), 30)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	for _, r := range rs {
		id, err := book.Begin(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		if err := book.Finish(id, ledger.Result{ResponseBytes: 100}); err != nil {
			t.Fatal(err)
		}
	}
}

func decode(t *testing.T, out string) []ledger.Record {
	t.Helper()
	var rs []ledger.Record
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("not JSON records: %v\n%s", err, out)
	}
	return rs
}

func models(rs []ledger.Record) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Model)
	}
	return out
}

// TestTheLedgerCommandListsOneSession: --session prints that session's
// requests and no other's, as text and as JSON.
func TestTheLedgerCommandListsOneSession(t *testing.T) {
	home := t.TempDir()
	seed(t, home,
		ledger.Record{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m-a1", Session: "sess-a", Sources: []ledger.Source{{Key: "projects/alpha.md", Title: "Alpha"}}},
		ledger.Record{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m-b1", Session: "sess-b", Sources: []ledger.Source{{Key: "projects/beta.md", Title: "Beta"}}},
		ledger.Record{Purpose: ledger.PurposeCompaction, Provider: "openrouter", Model: "m-a2", Session: "sess-a"},
		ledger.Record{Purpose: ledger.PurposeDigest, Provider: "openrouter", Model: "m-none"},
		ledger.Record{Purpose: ledger.PurposeTitle, Provider: "anthropic", Model: "m-b2", Session: "sess-b"},
	)

	out, err := run(t, home, "--session", "sess-a")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(out, ", session sess-a") != 2 || !strings.Contains(out, "anthropic:m-a1") || !strings.Contains(out, "openrouter:m-a2") || !strings.Contains(out, "· projects/alpha.md (Alpha)") {
		t.Errorf("--session sess-a lacks its two requests:\n%s", out)
	}
	for _, other := range []string{"sess-b", "m-b1", "m-b2", "m-none", "beta"} {
		if strings.Contains(out, other) {
			t.Errorf("--session sess-a printed %q:\n%s", other, out)
		}
	}

	out, err = run(t, home, "--session", "sess-b", "--json")
	if err != nil {
		t.Fatal(err)
	}
	rs := decode(t, out)
	if got := strings.Join(models(rs), ","); got != "m-b2,m-b1" {
		t.Errorf("--session sess-b --json: models %s (newest first), want m-b2,m-b1\n%s", got, out)
	}
	for _, r := range rs {
		if r.Session != "sess-b" {
			t.Errorf("--session sess-b --json listed a record of session %q", r.Session)
		}
	}

	if out, _ := run(t, home, "--session", "sess-none"); !strings.Contains(out, "No requests match.") {
		t.Errorf("an unknown session:\n%s", out)
	}
	if out, _ := run(t, home, "--session", "sess-none", "--json"); len(decode(t, out)) != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("an unknown session --json: %q", out)
	}
}

// TestTheLedgerCommandSinceADay: --since YYYY-MM-DD keeps requests from
// the start of that (local) day on and leaves out everything before it,
// even a second before midnight.
func TestTheLedgerCommandSinceADay(t *testing.T) {
	home := t.TempDir()
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.Local)
	seed(t, home,
		ledger.Record{Started: day.AddDate(0, 0, -3), Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m-days-before", Session: "s"},
		ledger.Record{Started: day.Add(-time.Second), Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m-eve", Session: "s"},
		ledger.Record{Started: day.Add(500 * time.Millisecond), Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m-midnight", Session: "s"},
		ledger.Record{Started: day.Add(15 * time.Hour), Purpose: ledger.PurposeDigest, Provider: "openrouter", Model: "m-afternoon"},
		ledger.Record{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m-now", Session: "s"},
	)
	kept := []string{"m-now", "m-afternoon", "m-midnight"}
	dropped := []string{"m-eve", "m-days-before"}

	out, err := run(t, home, "--since", "2026-03-10")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range kept {
		if !strings.Contains(out, ":"+m) {
			t.Errorf("--since 2026-03-10 lacks %s:\n%s", m, out)
		}
	}
	for _, m := range dropped {
		if strings.Contains(out, m) {
			t.Errorf("--since 2026-03-10 printed %s, from before that day:\n%s", m, out)
		}
	}
	if strings.Contains(out, "2026-03-09") || !strings.Contains(out, "2026-03-10 00:00:00") {
		t.Errorf("--since 2026-03-10 times:\n%s", out)
	}

	out, err = run(t, home, "--since", "2026-03-10", "--json")
	if err != nil {
		t.Fatal(err)
	}
	rs := decode(t, out)
	if got := strings.Join(models(rs), ","); got != strings.Join(kept, ",") {
		t.Errorf("--since 2026-03-10 --json: %s, want %s", got, strings.Join(kept, ","))
	}
	for _, r := range rs {
		if r.Started.Before(day) {
			t.Errorf("--json listed a request from %v", r.Started)
		}
	}

	// The day before brings back its evening only.
	rs = runJSON(t, home, "--since", "2026-03-09")
	if got := strings.Join(models(rs), ","); got != "m-now,m-afternoon,m-midnight,m-eve" {
		t.Errorf("--since 2026-03-09: %s", got)
	}
	// A day in the future matches nothing; with --session the two filters
	// both apply.
	if out, _ := run(t, home, "--since", "2999-01-01"); !strings.Contains(out, "No requests match.") {
		t.Errorf("--since 2999-01-01:\n%s", out)
	}
	rs = runJSON(t, home, "--since", "2026-03-10", "--session", "s")
	if got := strings.Join(models(rs), ","); got != "m-now,m-midnight" {
		t.Errorf("--since 2026-03-10 --session s: %s", got)
	}
	if _, err := run(t, home, "--since", "2026-13-01"); !errs.Is(err, errs.Invalid) {
		t.Errorf("--since 2026-13-01 (no such month): %v", err)
	}
}

// runJSON runs the command with --json and decodes its records.
func runJSON(t *testing.T, home string, args ...string) []ledger.Record {
	t.Helper()
	out, err := run(t, home, append(args, "--json")...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return decode(t, out)
}
