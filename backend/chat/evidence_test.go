package chat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/llm"
)

// searchTools is a tool box whose search_kb retrieves one passage (or none)
// into the turn's ledger, as the real one does.
type searchTools struct{ hit bool }

func (searchTools) Definitions(*Session) []llm.Tool { return nil }
func (st searchTools) Dispatch(ctx context.Context, _ *Session, call llm.Block, _ func(Event)) (llm.ToolOutcome, error) {
	if call.Name == "search_kb" && st.hit {
		LedgerFrom(ctx).Add(Citation{Source: "garden/tomatoes.md", Title: "Tomatoes"})
		return llm.ToolOutcome{Content: "1 result [source: garden/tomatoes.md]"}, nil
	}
	return llm.ToolOutcome{Content: "ok"}, nil
}

// turnCalling is a model that calls the named tools, then replies.
func turnCalling(reply string, stop llm.StopReason, tools ...string) func(context.Context, llm.TurnRequest) (llm.TurnResult, error) {
	return func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		for _, name := range tools {
			if _, err := req.Dispatch(ctx, llm.Block{Type: llm.BlockToolCall, Name: name, Arguments: map[string]any{"query": "tomatoes"}}); err != nil {
				return llm.TurnResult{}, err
			}
		}
		return llm.TurnResult{Reply: reply, Stop: stop, Messages: []llm.Message{llm.Text(llm.RoleAssistant, reply)}}, nil
	}
}

// Evidence or silence: a turn that searched the knowledge base answers with
// citations to what it retrieved, or with the fixed not-enough-evidence
// answer — plus, only when general knowledge was allowed and used, the
// model's text under its own heading.
func TestEvidenceOrSilence(t *testing.T) {
	cases := []struct {
		name          string
		hit, kbOnly   bool
		tools         []string
		reply         string
		stop          llm.StopReason
		want, notWant string
		silent, own   bool
	}{
		{name: "cited evidence stands", hit: true, kbOnly: true, tools: []string{"search_kb"},
			reply: "Full sun [source: garden/tomatoes.md].", want: "Full sun [source: garden/tomatoes.md]."},
		{name: "retrieved but uncited is silenced", hit: true, kbOnly: true, tools: []string{"search_kb"},
			reply: "Tomatoes love shade.", want: NoEvidence, notWant: "shade", silent: true},
		{name: "an invented citation is cut, then silenced", hit: false, kbOnly: true, tools: []string{"search_kb"},
			reply: "Tomatoes love shade [source: made/up.md].", want: NoEvidence, notWant: "shade", silent: true},
		{name: "general knowledge allowed and used is kept apart", hit: false, kbOnly: false, tools: []string{"search_kb", OwnKnowledgeTool},
			reply: "Tomatoes are usually grown in full sun.", want: NoEvidence + "\n\n---\n\n" + GeneralKnowledgeHeading + "\n\nTomatoes are usually grown in full sun.",
			silent: true, own: true},
		{name: "general knowledge not allowed is not shown", hit: false, kbOnly: true, tools: []string{"search_kb", OwnKnowledgeTool},
			reply: "Tomatoes are usually grown in full sun.", want: NoEvidence, notWant: "usually", silent: true},
		{name: "no knowledge-base tool, no rule", kbOnly: false, tools: []string{OwnKnowledgeTool},
			reply: "Paris is the capital of France.", want: "Paris is the capital of France.", own: true},
		{name: "a cut-off answer is judged when finished", hit: true, kbOnly: true, tools: []string{"search_kb"},
			reply: "Tomatoes need", stop: llm.StopLength, want: "Tomatoes need"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, s := newRunner(t, turnCalling(c.reply, c.stop, c.tools...))
			r.Tools = searchTools{hit: c.hit}
			s.KBOnly = c.kbOnly
			ev := runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) {
				return r.Start(context.Background(), s, "tomatoes?", emit)
			})
			if ev.Kind != EventReply || ev.Text != c.want || (c.notWant != "" && strings.Contains(ev.Text, c.notWant)) {
				t.Fatalf("reply = %q, want %q", ev.Text, c.want)
			}
			data := ev.Data.(map[string]any)
			last := s.Display[len(s.Display)-1]
			if data["no_evidence"] != c.silent || last.NoEvidence != c.silent || last.OwnKnowledge != c.own || data["own_knowledge"] != c.own {
				t.Fatalf("flags: event %v/%v, stored %+v", data["no_evidence"], data["own_knowledge"], last)
			}
			// The transcript holds what the user was shown.
			if got := s.Messages[len(s.Messages)-1].PlainText(); got != c.want {
				t.Fatalf("transcript reply = %q", got)
			}
		})
	}
}

// The user's question is on disk before the model is called: a crash mid
// turn leaves it in the session file (Pending), an answer clears it, and a
// stop rolls it back off the disk.
func TestQuestionIsSavedBeforeTheModelIsCalled(t *testing.T) {
	release := make(chan struct{})
	called := make(chan struct{})
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		close(called)
		<-release
		return llm.TurnResult{Reply: "answer", Messages: []llm.Message{llm.Text(llm.RoleAssistant, "answer")}}, nil
	})
	path := filepath.Join(r.Sessions.Dir, s.ID+".json")
	done, err := r.Start(context.Background(), s, "how deep do I water tomatoes?", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-called
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "how deep do I water tomatoes?") {
		t.Fatalf("the question is not on disk while the model works: %v", err)
	}
	if crashed, err := r.Sessions.Load(s.ID); err != nil || crashed.Pending != "how deep do I water tomatoes?" {
		t.Fatalf("a crash now would leave: %+v %v", crashed, err)
	}
	close(release)
	<-done
	saved, _ := r.Sessions.Load(s.ID)
	if saved.Pending != "" || len(saved.Display) != 2 {
		t.Fatalf("answered: %+v", saved)
	}

	// A stopped first question leaves no file; a stopped later one leaves
	// the session as it was before it.
	for _, fresh := range []bool{true, false} {
		block := make(chan struct{})
		r2, s2 := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
			<-block
			return llm.TurnResult{}, ctx.Err()
		})
		p2 := filepath.Join(r2.Sessions.Dir, s2.ID+".json")
		if !fresh {
			s2.Display = []DisplayItem{{Role: "user", Text: "earlier", At: time.Now()}, {Role: "assistant", Text: "reply", At: time.Now()}}
			s2.Messages = []llm.Message{llm.Text(llm.RoleUser, "earlier"), llm.Text(llm.RoleAssistant, "reply")}
			r2.Sessions.Save(s2)
		}
		done, _ := r2.Start(context.Background(), s2, "stop me", nil)
		if b, _ := os.ReadFile(p2); !strings.Contains(string(b), "stop me") {
			t.Fatal("the question was not saved")
		}
		r2.Stop(s2.ID)
		close(block)
		<-done
		b, err := os.ReadFile(p2)
		switch {
		case fresh && !os.IsNotExist(err):
			t.Fatalf("a stopped first question must leave no session file: %v %s", err, b)
		case !fresh && (err != nil || strings.Contains(string(b), "stop me")):
			t.Fatalf("a stopped question must be rolled back on disk: %v %s", err, b)
		}
	}
}
