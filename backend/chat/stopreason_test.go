package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

func runTurn(t *testing.T, r *Runner, s *Session, start func(func(Event)) (<-chan struct{}, error)) Event {
	t.Helper()
	rec := &recorder{}
	done, err := start(rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.events[len(rec.events)-1]
}

// TestCutOffReplyIsLabelledAndContinues: a reply cut at the output limit
// keeps its partial text, is labelled in the event and the stored session,
// and Continue asks the model to go on with the cut-off part's citations
// still citable.
func TestCutOffReplyIsLabelledAndContinues(t *testing.T) {
	var seen []llm.TurnRequest
	replies := []llm.TurnResult{
		{Reply: "Tomatoes need [source: garden/tomatoes.md] full", Stop: llm.StopLength},
		{Reply: " sun [source: garden/tomatoes.md].", Stop: llm.StopEnd},
	}
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		seen = append(seen, req)
		res := replies[len(seen)-1]
		if len(seen) == 1 {
			LedgerFrom(ctx).Add(Citation{Source: "garden/tomatoes.md"})
		}
		res.Messages = []llm.Message{llm.Text(llm.RoleAssistant, res.Reply)}
		return res, nil
	})
	if _, err := r.Continue(context.Background(), s, nil); !errs.Is(err, errs.Invalid) {
		t.Fatalf("continue with nothing cut off: %v", err)
	}
	ev := runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) {
		return r.Start(context.Background(), s, "tomatoes?", emit)
	})
	data := ev.Data.(map[string]any)
	if ev.Kind != EventReply || data["stop"] != "length" || data["notice"] != NoticeCutOff || !strings.HasPrefix(ev.Text, "Tomatoes need") {
		t.Fatalf("reply event = %+v", ev)
	}
	saved, err := r.Sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := saved.Display[len(saved.Display)-1]
	if last.Stop != "length" || last.Notice != NoticeCutOff || !strings.Contains(last.Text, "full") || !CanContinue(saved) {
		t.Fatalf("stored reply = %+v", last)
	}
	if got := saved.Messages[len(saved.Messages)-1].PlainText(); !strings.HasSuffix(got, "full") {
		t.Fatalf("the partial text is not in the transcript: %q", got)
	}

	ev = runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) { return r.Continue(context.Background(), s, emit) })
	if ev.Kind != EventReply || ev.Data.(map[string]any)["stop"] != "" {
		t.Fatalf("continuation = %+v", ev)
	}
	if cites := ev.Data.(map[string]any)["citations"].([]Citation); len(cites) != 1 || cites[0].Source != "garden/tomatoes.md" {
		t.Fatalf("the cut-off part's evidence was not citable: %+v", ev.Data)
	}
	if msgs := seen[1].Messages; msgs[len(msgs)-1].PlainText() != ContinuePrompt || msgs[len(msgs)-2].PlainText() != replies[0].Reply {
		t.Fatalf("continue request = %+v", msgs)
	}
	if CanContinue(s) {
		t.Fatal("a finished answer offers Continue")
	}
}

// TestRefusalStoresANoticeNotAnAnswer: a refused turn shows and stores a
// plain notice, keeps the refused exchange out of the model's transcript
// and out of the history index.
func TestRefusalStoresANoticeNotAnAnswer(t *testing.T) {
	for _, stop := range []llm.StopReason{llm.StopRefusal, llm.StopContentFilter} {
		r, s := newRunner(t, func(context.Context, llm.TurnRequest) (llm.TurnResult, error) {
			return llm.TurnResult{Reply: "Here is how to", Messages: []llm.Message{llm.Text(llm.RoleAssistant, "Here is how to")}, Stop: stop}, nil
		})
		ev := runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) {
			return r.Start(context.Background(), s, "how do I?", emit)
		})
		if ev.Kind != EventReply || strings.Contains(ev.Text, "Here is how to") || ev.Data.(map[string]any)["refused"] != true {
			t.Fatalf("%s: event = %+v", stop, ev)
		}
		saved, err := r.Sessions.Load(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(saved.Messages) != 0 || len(saved.TurnStarts) != 0 {
			t.Fatalf("%s: the refused exchange reached the transcript: %+v", stop, saved.Messages)
		}
		last := saved.Display[len(saved.Display)-1]
		if last.Stop != string(stop) || last.Notice == "" || strings.Contains(last.Text, "Here is how to") || !strings.Contains(last.Text, last.Notice) {
			t.Fatalf("%s: stored = %+v", stop, last)
		}
	}
}

// TestToolLimitPausesAndContinuesAFewTimes: a turn that used every tool
// round is kept and labelled; Continue goes on with a hand-off prompt and
// the evidence gathered so far, at most MaxLimitContinues times in a row.
func TestToolLimitPausesAndContinuesAFewTimes(t *testing.T) {
	var seen []llm.TurnRequest
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		seen = append(seen, req)
		if len(seen) == 1 {
			LedgerFrom(ctx).Add(Citation{Source: "garden/tomatoes.md"})
		}
		reply := "So far: [source: garden/tomatoes.md] beds 1-3 checked."
		return llm.TurnResult{Reply: reply, Messages: []llm.Message{llm.Text(llm.RoleAssistant, reply)}, LimitHit: true, Iterations: 11}, nil
	})
	ev := runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) {
		return r.Start(context.Background(), s, "check every bed", emit)
	})
	if data := ev.Data.(map[string]any); data["stop"] != StopToolLimit || data["notice"] != NoticeToolLimit {
		t.Fatalf("reply event = %+v", ev)
	}
	saved, _ := r.Sessions.Load(s.ID)
	if !CanContinue(saved) {
		t.Fatal("a paused task offers Continue")
	}
	for i := 1; i <= MaxLimitContinues; i++ {
		ev = runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) { return r.Continue(context.Background(), s, emit) })
		msgs := seen[i].Messages
		if msgs[len(msgs)-1].PlainText() != LimitContinuePrompt {
			t.Fatalf("continuation %d asked %q", i, msgs[len(msgs)-1].PlainText())
		}
		if cites := ev.Data.(map[string]any)["citations"].([]Citation); len(cites) != 1 {
			t.Fatalf("continuation %d lost the evidence gathered so far: %+v", i, ev.Data)
		}
	}
	if CanContinue(s) {
		t.Fatalf("after %d continues in a row the user decides", MaxLimitContinues)
	}
	if _, err := r.Continue(context.Background(), s, nil); !errs.Is(err, errs.Invalid) || errs.HintOf(err) == "" {
		t.Fatalf("a capped task: %v", err)
	}
	// A new message from the user starts the count again.
	runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) {
		return r.Start(context.Background(), s, "only beds 4-6", emit)
	})
	if !CanContinue(s) {
		t.Fatal("a new task may be continued again")
	}
}
