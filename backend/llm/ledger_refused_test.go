package llm

import (
	"context"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm/wiretest"
)

// wireCase loads one scripted transcript of the conformance suite by its
// file ("anthropic/refusal.yaml").
func wireCase(t *testing.T, provider, file string) wiretest.Case {
	t.Helper()
	cases, err := wiretest.Load(provider)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.File == file {
			return c
		}
	}
	t.Fatalf("no wire case %s", file)
	return wiretest.Case{}
}

// TestARefusedAnswerIsRecordedAsRefused plays the suite's refusal
// transcripts (Anthropic's stop_reason "refusal", OpenRouter's
// content_filter and its native refusal behind finish_reason "stop")
// through the real adapters with a ledger: the one request leaves one
// record whose outcome is ledger.Refused — not ok, not an error.
func TestARefusedAnswerIsRecordedAsRefused(t *testing.T) {
	for _, tc := range []struct {
		provider, file string
		in, out        int
	}{
		{"anthropic", "anthropic/refusal.yaml", 25, 15},
		{"openrouter", "openrouter/content_filter.yaml", 12, 9},
		{"openrouter", "openrouter/native_refusal.yaml", 12, 9},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c := wireCase(t, tc.provider, tc.file)
			srv := wiretest.Serve(t, c)
			book := testLedger(t)
			p := conformanceProvider(c, srv.URL)
			switch p := p.(type) {
			case *Anthropic:
				p.Ledger = book
			case *OpenRouter:
				p.Ledger = book
			default:
				t.Fatalf("provider %T", p)
			}
			ctx := ledger.WithAbout(context.Background(), ledger.About{Purpose: ledger.PurposeChat, Session: "s-refused",
				Sources: ledger.These(ledger.Source{Key: "projects/alpha.md", Title: "Alpha"})})
			res, err := p.AgenticTurn(ctx, TurnRequest{System: "sys", Messages: []Message{Text(RoleUser, "question")}})
			if err != nil {
				t.Fatalf("turn failed: %v", err)
			}
			if !res.Stop.Refused() {
				t.Fatalf("stop = %q, want a refusal (the transcript no longer refuses?)", res.Stop)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
			rs := records(t, book)
			if len(rs) != 1 {
				t.Fatalf("%d records for one request: %+v", len(rs), rs)
			}
			r := rs[0]
			if r.Outcome != ledger.Refused {
				t.Errorf("outcome = %q, want %q", r.Outcome, ledger.Refused)
			}
			if r.Error != "" || r.Finished.IsZero() {
				t.Errorf("a refusal is a finished request, not a failure: error %q finished %v", r.Error, r.Finished)
			}
			if r.Provider != tc.provider || r.Purpose != ledger.PurposeChat || r.Session != "s-refused" || r.Local {
				t.Errorf("record: %+v", r)
			}
			if len(r.Sources) != 1 || r.Sources[0].Key != "projects/alpha.md" {
				t.Errorf("sources: %+v", r.Sources)
			}
			if r.InputTokens != tc.in || r.OutputTokens != tc.out || r.ResponseBytes == 0 {
				t.Errorf("tokens %d+%d (want %d+%d), response %d B", r.InputTokens, r.OutputTokens, tc.in, tc.out, r.ResponseBytes)
			}
		})
	}
}
