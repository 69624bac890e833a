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
