package agent_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

func cloudRecords(t *testing.T, w *world, f ledger.Filter) []ledger.Record {
	t.Helper()
	book, err := ledger.Shared(w.cfg.LedgerDir(), w.cfg.Ledger.KeepDays)
	if err != nil {
		t.Fatal(err)
	}
	f.CloudOnly = true
	rs, err := book.List(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(rs)
	return rs
}

func keys(r ledger.Record) []string {
	var out []string
	for _, s := range r.Sources {
		out = append(out, s.Key)
	}
	return out
}

// cloudTurn runs one turn of a new cloud session in a public world whose
// model first makes the call c; the records of that turn are the test's.
func cloudTurn(t *testing.T, c *call) (*world, *chat.Session) {
	t.Helper()
	emb, _ := models(t)
	w := newWorld(t, false, emb, "")
	s := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	w.cloud.expect(c)
	if err := w.turn(s); err != nil {
		t.Fatal(err)
	}
	return w, s
}

// The records of a cloud turn name its session and, request by request,
// the documents whose text that request carried: none before the search,
// the found note after it and in every later turn (the transcript keeps
// the text). A compaction is a record of its own with the same sources.
func TestEveryRequestOfACloudTurnIsRecordedWithTheDocumentsItCarried(t *testing.T) {
	w, s := cloudTurn(t, &call{Tool: "search_kb", Args: map[string]any{"query": "tomato plants full sun"}})
	rs := cloudRecords(t, w, ledger.Filter{Session: s.ID})
	if len(rs) != 2 {
		t.Fatalf("%d records for a turn of two requests", len(rs))
	}
	if len(rs[0].Sources) != 0 || !slices.Contains(keys(rs[1]), "garden/tomatoes.md") {
		t.Fatalf("sources %v then %v", keys(rs[0]), keys(rs[1]))
	}
	for _, r := range rs {
		if r.Purpose != ledger.PurposeChat || r.Model != "claude-test" || r.InputTokens != 10 || r.OutputTokens != 5 {
			t.Errorf("%+v", r)
		}
	}

	line := s.Display[len(s.Display)-1].Sent
	if want := fmt.Sprintf(" passages from %d documents to anthropic:claude-test (2 requests)", len(rs[1].Sources)); !strings.HasPrefix(line, "sent ") || !strings.HasSuffix(line, want) {
		t.Errorf("the reply's line: %q", line)
	}

	// The next turn compacts first (everything before the last exchange).
	w.ag.Runner.CompactAfter, w.ag.Runner.CompactKeep = 1, 0
	w.cloud.expect(nil)
	if err := w.turn(s); err != nil {
		t.Fatal(err)
	}
	rs = cloudRecords(t, w, ledger.Filter{Session: s.ID})
	if len(rs) != 4 || rs[2].Purpose != ledger.PurposeCompaction || rs[3].Purpose != ledger.PurposeChat {
		t.Fatalf("after a compacted turn: %d records %+v", len(rs), rs)
	}
	for _, r := range rs[2:] {
		if !slices.Contains(keys(r), "garden/tomatoes.md") {
			t.Errorf("%s carries the earlier turn's note: %v", r.Purpose, keys(r))
		}
	}
	if bySource := cloudRecords(t, w, ledger.Filter{Source: "garden/tomatoes.md"}); len(bySource) != 3 {
		t.Errorf("records by the note: %d", len(bySource))
	}
}

// A listing sends titles and fields, not passages to cite, yet its
// documents are in the request all the same: the record names them (and
// no private one).
func TestAListingsDocumentsAreRecordedAsCarried(t *testing.T) {
	w, s := cloudTurn(t, &call{Tool: "list_documents", Args: map[string]any{"kind": "notes"}})
	rs := cloudRecords(t, w, ledger.Filter{Session: s.ID})
	if len(rs) != 2 || !slices.Contains(keys(rs[1]), "garden/tomatoes.md") {
		t.Fatalf("the request after the listing must name what it listed: %d records, %v", len(rs), keys(rs[len(rs)-1]))
	}
	for _, k := range keys(rs[1]) {
		if strings.HasPrefix(k, "private/") {
			t.Fatalf("a private note is named in a cloud record: %v", keys(rs[1]))
		}
	}
}

// Fail closed: when the ledger cannot be written (its folder is a file
// here), a cloud turn sends nothing and says why.
func TestACloudTurnIsNotSentWhenItsRecordCannotBeWritten(t *testing.T) {
	emb, _ := models(t)
	w := newWorld(t, false, emb, "")
	if err := os.RemoveAll(w.cfg.LedgerDir()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.cfg.LedgerDir(), []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	w.cloud.expect(nil)
	_, err := w.ag.Runner.Start(context.Background(), s, "how do tomatoes grow?", func(chat.Event) {})
	if !errs.Is(err, errs.Privacy) || !strings.Contains(err.Error(), "ledger") || !strings.Contains(errs.HintOf(err), w.cfg.LedgerDir()) {
		t.Fatalf("the turn must be refused, saying why: %v (hint %q)", err, errs.HintOf(err))
	}
	if n := len(w.cloud.seen()); n != 0 {
		t.Fatalf("%d requests went out without a record", n)
	}
}
