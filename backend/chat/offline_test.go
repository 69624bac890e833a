package chat

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/loopbacktest"
)

// refusedURL is a loopback address nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	return "http://" + loopbacktest.FreeAddr(t)
}

// offlineRunner is a runner over the knowledge-base fixture f whose model
// comes from provider, with f's search-only answer as its fallback.
func offlineRunner(t *testing.T, f *kbFixture, provider func(string) (llm.Provider, error)) (*Runner, *Sessions) {
	t.Helper()
	st := &Sessions{Dir: filepath.Join(t.TempDir(), "s")}
	return &Runner{Sessions: st, Tools: f.tools, System: func(*Session) (string, error) { return "sys", nil },
		Provider: provider, Offline: f.kb.OfflineAnswer}, st
}

// With no model reachable, a question still gets the best passages with
// their citations, labelled as search results; the citations are real.
func TestNoModelGivesACitedSearchOnlyAnswer(t *testing.T) {
	f := newKB(t)
	url := refusedURL(t)
	r, st := offlineRunner(t, f, func(spec string) (llm.Provider, error) {
		return &llm.Ollama{BaseURL: url, ModelID: "m", Client: http.DefaultClient}, nil // the real client, refused
	})
	s := st.New(llm.Spec{Provider: "ollama", Model: "m"}, false)
	rec := runTurnToEnd(t, r, s, "how do I water tomatoes?")
	last := rec.events[len(rec.events)-1]
	if last.Kind != EventReply {
		t.Fatalf("events %s: %+v", rec.kinds(), last)
	}
	reply := last.Text
	for _, want := range []string{OfflineLabel, "could not be reached", "connection refused", "[source: garden/tomatoes.md]", "_Found by hybrid (keyword + dense) + rerank search._"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	data := last.Data.(map[string]any)
	cits := data["citations"].([]Citation)
	if data["offline"] != true || len(cits) == 0 || cits[0].FilePath != "garden/tomatoes.md" {
		t.Fatalf("data %+v", data)
	}
	// The exchange is kept like any answer; the private plan that matched
	// made the (local) session private.
	if len(s.Display) != 2 || !strings.Contains(s.Display[1].Text, OfflineLabel) || !s.Private {
		t.Fatalf("display %+v private %v", s.Display, s.Private)
	}
}

// A cloud session without its key is answered from public notes only: the
// transcript could reach the cloud model once the key is set.
func TestSearchOnlyAnswerForACloudSessionShowsPublicNotesOnly(t *testing.T) {
	r, st := offlineRunner(t, newKB(t), func(string) (llm.Provider, error) {
		return nil, errs.WithHint(errs.New(errs.Invalid, "llm.MakeProvider", "no Anthropic API key"), "set ANTHROPIC_API_KEY")
	})
	s := st.New(llm.Spec{Provider: "anthropic", Model: "claude"}, false)
	rec := runTurnToEnd(t, r, s, "tomato plants sun seedlings grant")
	reply := rec.events[len(rec.events)-1].Text
	if !strings.Contains(reply, OfflineLabel) || !strings.Contains(reply, "no Anthropic API key") || !strings.Contains(reply, "tomatoes.md") {
		t.Fatalf("reply:\n%s", reply)
	}
	if strings.Contains(reply, "plans.md") || strings.Contains(reply, "allotment") || s.Private {
		t.Fatalf("private note in a cloud session's answer:\n%s", reply)
	}
	// Without the fallback the missing key is refused up front, as before.
	r.Offline = nil
	if _, err := r.Start(context.Background(), s, "again", rec.emit); !errs.Is(err, errs.Invalid) {
		t.Fatalf("err = %v", err)
	}
}

// A model that answered (text streamed or a tool ran) and then failed is a
// failed turn, not an offline one.
func TestOfflineOnlyWhenTheModelWasNeverReached(t *testing.T) {
	// A real refused connection through the real client.
	_, refused := (&llm.Ollama{BaseURL: refusedURL(t), ModelID: "m"}).AgenticTurn(context.Background(), llm.TurnRequest{Messages: []llm.Message{llm.Text(llm.RoleUser, "hi")}})
	if !llm.Unreachable(refused) {
		t.Fatalf("a refused connection is not unreachable: %v", refused)
	}
	cases := []struct {
		err      error
		streamed bool
		tools    int
		want     bool
	}{
		{refused, false, 0, true},
		{refused, true, 0, false},
		{refused, false, 1, false},
		{errs.New(errs.LLM, "openrouter", "No endpoints found matching your data policy"), false, 0, false},
		{errs.New(errs.Privacy, "kb", "only private"), false, 0, false},
		{errs.New(errs.Cancelled, "chat", "stopped"), false, 0, false},
		{nil, false, 0, false},
	}
	for i, c := range cases {
		if got := offlineEligible(c.err, c.streamed, c.tools); got != c.want {
			t.Errorf("case %d: %v", i, got)
		}
	}
}

func TestDisplayItemKnowsAnOfflineAnswer(t *testing.T) {
	off := DisplayItem{Role: "assistant", Text: "**" + OfflineLabel + ".** The model could not be reached.\n\n1. …"}
	if !off.Offline() {
		t.Fatal("a search-only answer is not marked")
	}
	for _, d := range []DisplayItem{{Role: "assistant", Text: "From your notes: …"}, {Role: "user", Text: off.Text}} {
		if d.Offline() {
			t.Fatalf("%+v marked offline", d)
		}
	}
}

func TestSessionCostsPerModel(t *testing.T) {
	s := &Session{Cost: map[string]llm.Usage{
		"openrouter:b": {USD: 0.25, Requests: 2, Reported: 2},
		"anthropic:a":  {USD: 0.5, Requests: 3, Reported: 3},
		"ollama:c":     {Requests: 4}, // local: no cost reported, which is not $0
	}}
	costs, total := s.Costs()
	if len(costs) != 2 || costs[0].Model != "anthropic:a" || costs[1].Requests != 2 || total != 0.75 {
		t.Fatalf("%+v %v", costs, total)
	}
	if costs, total := (&Session{}).Costs(); costs == nil || len(costs) != 0 || total != 0 {
		t.Fatalf("empty: %#v %v", costs, total)
	}
}
