package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

func testLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(t.TempDir(), 30)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func records(t *testing.T, l *ledger.Ledger) []ledger.Record {
	t.Helper()
	rs, err := l.List(context.Background(), ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	// Oldest first reads like the turn.
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return rs
}

func TestEachRequestOfAToolCallingTurnIsRecordedBeforeItIsSent(t *testing.T) {
	s := &sseServer{scripts: [][]string{
		anthMessage("tool_use", anthToolUse(0, "toolu_1", "search_kb", `{"query":"alpha"}`)),
		anthMessage("end_turn", anthText(0, "Alpha is a project.")),
	}}
	a := newAnthropic(t, s)
	book := testLedger(t)
	a.Ledger = book
	// Between the two requests exactly the first one's record exists.
	var seenDuring []int
	dispatch := func(ctx context.Context, c Block) (ToolOutcome, error) {
		seenDuring = append(seenDuring, len(records(t, book)))
		return ToolOutcome{Content: "alpha: the garden project"}, nil
	}
	src := []ledger.Source{{Key: "projects/alpha.md", Title: "Alpha"}, {Key: "paper:2401.1", Title: "A paper"}}
	ctx := ledger.WithAbout(context.Background(), ledger.About{Purpose: ledger.PurposeChat, Session: "s-1", Sources: ledger.These(src...)})
	if _, err := a.AgenticTurn(ctx, TurnRequest{System: "sys", Messages: []Message{Text(RoleUser, "what is alpha?")},
		Tools: []Tool{{Name: "search_kb", Parameters: json.RawMessage(`{}`)}}, Dispatch: dispatch}); err != nil {
		t.Fatal(err)
	}
	rs := records(t, book)
	if len(rs) != 2 || len(s.requests) != 2 {
		t.Fatalf("%d records for %d requests", len(rs), len(s.requests))
	}
	if len(seenDuring) != 1 || seenDuring[0] != 1 {
		t.Errorf("records while the first answer was read: %v", seenDuring)
	}
	for i, r := range rs {
		if r.Provider != "anthropic" || r.Model != "claude-test" || r.Local || r.Purpose != ledger.PurposeChat || r.Session != "s-1" || r.Outcome != ledger.OK {
			t.Errorf("record %d: %+v", i, r)
		}
		if len(r.Sources) != 2 || r.Sources[0] != src[0] || r.Sources[1] != src[1] {
			t.Errorf("record %d sources %+v", i, r.Sources)
		}
		if r.InputTokens != 10 || r.OutputTokens != 20 || r.RequestBytes == 0 || r.ResponseBytes == 0 || r.Finished.IsZero() || r.PID == 0 || r.Process == "" {
			t.Errorf("record %d sizes: %+v", i, r)
		}
		if !strings.Contains(r.Body, "what is alpha?") || strings.Contains(r.Body, "sk-ant-test-key-0001") {
			t.Errorf("record %d body %q", i, r.Body)
		}
	}
	if !strings.Contains(rs[1].Body, "the garden project") {
		t.Errorf("the second request carried the tool result; its body: %q", rs[1].Body)
	}
}

func TestARequestWhoseRecordCannotBeWrittenIsNotSent(t *testing.T) {
	s := &sseServer{scripts: [][]string{anthMessage("end_turn", anthText(0, "hi"))}}
	a := newAnthropic(t, s)
	book := testLedger(t)
	book.Close() // every write now fails
	a.Ledger = book
	_, err := a.Complete(context.Background(), []Message{Text(RoleUser, "private text")}, 100, 0)
	if !errs.Is(err, errs.Internal) || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("err = %v", err)
	}
	if len(s.requests) != 0 {
		t.Fatalf("the request went out unrecorded: %v", s.requests)
	}
}

func TestFailedCutOffAndStoppedRequestsAreRecordedAsSuch(t *testing.T) {
	t.Run("error", func(t *testing.T) {
		s := &sseServer{status: http.StatusBadRequest, errBody: `{"type":"error","error":{"type":"invalid_request_error","message":"bad key sk-ant-test-key-0001"}}`}
		a := newAnthropic(t, s)
		a.Ledger = testLedger(t)
		if _, err := a.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 100, 0); err == nil {
			t.Fatal("no error")
		}
		rs := records(t, a.Ledger)
		if len(rs) != 1 || rs[0].Outcome != ledger.Failed || !strings.Contains(rs[0].Error, "bad key") || strings.Contains(rs[0].Error, "sk-ant-test-key-0001") {
			t.Fatalf("%+v", rs)
		}
	})
	t.Run("cut off", func(t *testing.T) {
		s := &sseServer{scripts: [][]string{anthMessage("max_tokens", anthText(0, "half an ans"))}}
		a := newAnthropic(t, s)
		a.Ledger = testLedger(t)
		a.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 100, 0) //nolint:errcheck // the record is under test
		if rs := records(t, a.Ledger); len(rs) != 1 || rs[0].Outcome != ledger.CutOff {
			t.Fatalf("%+v", rs)
		}
	})
	t.Run("stopped", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		s := &sseServer{hold: hold, scripts: [][]string{anthMessage("end_turn", anthText(0, "never"))}}
		a := newAnthropic(t, s)
		a.Ledger = testLedger(t)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		if _, err := a.Complete(ctx, []Message{Text(RoleUser, "q")}, 100, 0); !errs.Is(err, errs.Cancelled) {
			t.Fatalf("err = %v", err)
		}
		if rs := records(t, a.Ledger); len(rs) != 1 || rs[0].Outcome != ledger.Cancelled {
			t.Fatalf("%+v", rs)
		}
	})
}

func TestOpenRouterAndOllamaRequestsAreRecordedTooOllamaAsLocal(t *testing.T) {
	s := &sseServer{scripts: [][]string{{orChunk(map[string]any{"content": "Done."}), orUsage(0.0008), "data: [DONE]"}}}
	o := newOpenRouter(t, s)
	o.Ledger = testLedger(t)
	if _, err := o.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 100, 0); err != nil {
		t.Fatal(err)
	}
	if rs := records(t, o.Ledger); len(rs) != 1 || rs[0].Provider != "openrouter" || rs[0].CostUSD != 0.0008 || rs[0].InputTokens != 10 || rs[0].OutputTokens != 5 || rs[0].Local {
		t.Fatalf("%+v", rs)
	}

	f := &fakeOllama{t: t, scripts: [][]string{{content("hi"), done}}}
	ol := newOllama(t, f)
	ol.Ledger = testLedger(t)
	if _, err := ol.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 100, 0); err != nil {
		t.Fatal(err)
	}
	if rs := records(t, ol.Ledger); len(rs) != 1 || rs[0].Provider != "ollama" || !rs[0].Local || rs[0].OutputTokens != 12 || rs[0].Outcome != ledger.OK {
		t.Fatalf("%+v", rs)
	}
}

func TestEachAttemptOfARetriedRequestIsItsOwnRecord(t *testing.T) {
	s := &sseServer{status: http.StatusServiceUnavailable, errBody: `{"error":{"message":"busy"}}`}
	o := newOpenRouter(t, s)
	o.Ledger = testLedger(t)
	if _, err := o.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 100, 0); err == nil {
		t.Fatal("no error")
	}
	rs := records(t, o.Ledger)
	if len(rs) != len(s.requests) || len(rs) < 2 {
		t.Fatalf("%d records for %d attempts", len(rs), len(s.requests))
	}
	for _, r := range rs {
		if r.Outcome != ledger.Failed {
			t.Errorf("%+v", r)
		}
	}
}

// BenchmarkLedgerOverheadPerRequest also reports what a record costs on
// disk: a chat turn's request of about 10 KB, its body kept for 30 days or
// not at all (keep_days = 0).
func BenchmarkLedgerOverheadPerRequest(b *testing.B) {
	for _, keep := range []int{30, 0} {
		b.Run(fmt.Sprintf("keep_days=%d", keep), func(b *testing.B) { benchLedger(b, keep) })
	}
}

func benchLedger(b *testing.B, keepDays int) {
	dir := b.TempDir()
	l, err := ledger.Open(dir, keepDays)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	w := &wireRequest{op: "bench", ledger: l, provider: "anthropic", model: "m",
		body: map[string]any{"messages": []any{map[string]any{"role": "user", "content": strings.Repeat("passage text ", 800)}}}}
	ctx := ledger.WithAbout(context.Background(), ledger.About{Purpose: ledger.PurposeChat, Session: "s", Sources: ledger.These(ledger.Source{Key: "a.md", Title: "A"}, ledger.Source{Key: "b.md", Title: "B"}, ledger.Source{Key: "c.md", Title: "C"})})
	payload, _ := json.Marshal(w.body)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id, err := w.begin(ctx, payload)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.finish(id, 1000, answered{stop: StopEnd}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	var size int64
	matches, _ := filepath.Glob(filepath.Join(dir, ledger.FileName+"*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			size += fi.Size()
		}
	}
	b.ReportMetric(float64(size)/float64(b.N), "disk-B/record")
}
