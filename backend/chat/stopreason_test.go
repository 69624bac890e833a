package chat

import (
	"context"
	"fmt"
	"strings"
	gosync "sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

func runTurn(t *testing.T, r *Runner, s *Session, start func(func(Event)) (<-chan struct{}, error)) Event {
	t.Helper()
	evs := events(t, start)
	return evs[len(evs)-1]
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

// limitRunner is a runner whose model pauses at the tool-call limit on
// every round (or, from round done on, finishes), recording each request.
func limitRunner(t *testing.T, auto, done int) (*Runner, *Session, *[]llm.TurnRequest) {
	t.Helper()
	var seen []llm.TurnRequest
	var mu gosync.Mutex
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		mu.Lock()
		seen = append(seen, req)
		n := len(seen)
		mu.Unlock()
		if n == 1 {
			LedgerFrom(ctx).Add(Citation{Source: "garden/tomatoes.md"})
		}
		reply := fmt.Sprintf("Round %d: [source: garden/tomatoes.md] more beds checked.", n)
		return llm.TurnResult{Reply: reply, Messages: []llm.Message{llm.Text(llm.RoleAssistant, reply)}, LimitHit: done == 0 || n < done}, nil
	})
	r.AutoContinue = auto
	return r, s, &seen
}

// events runs a turn to its end and returns every event it sent.
func events(t *testing.T, start func(func(Event)) (<-chan struct{}, error)) []Event {
	t.Helper()
	rec := &recorder{}
	done, err := start(rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	<-done
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Event(nil), rec.events...)
}

func replies(evs []Event) []Event {
	var out []Event
	for _, e := range evs {
		if e.Kind == EventReply {
			out = append(out, e)
		}
	}
	return out
}

// With auto_continue = 1 a turn that reaches the tool-call limit goes on
// by itself once, with the hand-off prompt and the evidence gathered so
// far, says so, and then pauses with Continue offered as before. Each
// Continue the user chooses is followed by one unattended continuation
// again, and the user's own cap on Continues in a row still holds.
func TestACappedTurnContinuesByItselfOnceThenOffersContinue(t *testing.T) {
	r, s, seen := limitRunner(t, 1, 0)
	evs := events(t, func(emit func(Event)) (<-chan struct{}, error) {
		return r.Start(context.Background(), s, "check every bed", emit)
	})
	if len(*seen) != 2 {
		t.Fatalf("%d model turns, want the turn and one continuation", len(*seen))
	}
	if msgs := (*seen)[1].Messages; msgs[len(msgs)-1].PlainText() != LimitContinuePrompt || !strings.HasPrefix(msgs[len(msgs)-2].PlainText(), "Round 1") {
		t.Fatalf("the continuation asked %+v", msgs)
	}
	rs := replies(evs)
	if len(rs) != 2 {
		t.Fatalf("replies = %+v", rs)
	}
	first, second := rs[0].Data.(map[string]any), rs[1].Data.(map[string]any)
	if first["continuing"] != true || first["stop"] != StopToolLimit || second["continuing"] != false || second["stop"] != StopToolLimit {
		t.Fatalf("the first reply says a continuation follows, the second not: %+v / %+v", first, second)
	}
	if cites := second["citations"].([]Citation); len(cites) != 1 || cites[0].Source != "garden/tomatoes.md" {
		t.Fatalf("the continuation lost the evidence gathered so far: %+v", second)
	}
	said := false
	for i, e := range evs {
		if e.Kind == EventStatus && e.Text == AutoContinueStatus(1, 1) {
			said = i > 0 && evs[i-1].Kind == EventReply // right after the paused reply
		}
		if i > 0 && e.Seq <= evs[i-1].Seq {
			t.Fatalf("event %d is out of sequence: %+v after %+v", i, e, evs[i-1])
		}
	}
	if !said {
		t.Fatalf("no status said the task went on by itself: %+v", evs)
	}
	saved, err := r.Sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Display) != 4 || saved.Display[0].Continued != "" || saved.Display[2].Continued != ContinuedAuto || saved.Display[2].Text != LimitContinuePrompt {
		t.Fatalf("display = %+v", saved.Display)
	}
	if !CanContinue(saved) || r.Busy(s.ID) {
		t.Fatal("after its one unattended continuation the task pauses with Continue offered")
	}

	// Each Continue is the user's; one unattended continuation follows it,
	// except after the last Continue the cap allows: then the user decides.
	for i := 1; i <= MaxLimitContinues; i++ {
		before := len(*seen)
		events(t, func(emit func(Event)) (<-chan struct{}, error) { return r.Continue(context.Background(), s, emit) })
		n := len(s.Display)
		if i == MaxLimitContinues {
			if len(*seen) != before+1 || s.Display[n-2].Continued != ContinuedByUser {
				t.Fatalf("the last Continue allowed ran %d model turns, display %+v", len(*seen)-before, s.Display[n-2:])
			}
			break
		}
		if len(*seen) != before+2 || s.Display[n-4].Continued != ContinuedByUser || s.Display[n-2].Continued != ContinuedAuto {
			t.Fatalf("Continue %d ran %d model turns, want 2; display = %+v", i, len(*seen)-before, s.Display[n-4:])
		}
	}
	if CanContinue(s) {
		t.Fatalf("after %d Continues in a row the user decides, however many ran by themselves", MaxLimitContinues)
	}
}

// auto_continue = 0 keeps the turn as it was: it pauses at the limit at
// once and offers Continue; and a continuation that finishes the task
// ends the chain whatever the setting allows.
func TestAutoContinueZeroAsksAndAFinishedTaskStops(t *testing.T) {
	r, s, seen := limitRunner(t, 0, 0)
	evs := events(t, func(emit func(Event)) (<-chan struct{}, error) {
		return r.Start(context.Background(), s, "check every bed", emit)
	})
	if rs := replies(evs); len(*seen) != 1 || len(rs) != 1 || rs[0].Data.(map[string]any)["continuing"] != false || !CanContinue(s) {
		t.Fatalf("auto_continue 0: %d model turns, replies %+v", len(*seen), rs)
	}
	for _, e := range evs {
		if e.Kind == EventStatus && strings.Contains(e.Text, "continuing automatically") {
			t.Fatalf("auto_continue 0 said it continues: %+v", e)
		}
	}

	r, s, seen = limitRunner(t, 3, 2)
	evs = events(t, func(emit func(Event)) (<-chan struct{}, error) {
		return r.Start(context.Background(), s, "check every bed", emit)
	})
	if rs := replies(evs); len(*seen) != 2 || len(rs) != 2 || rs[1].Data.(map[string]any)["stop"] != "" || CanContinue(s) {
		t.Fatalf("a task finished by its continuation: %d model turns, replies %+v", len(*seen), rs)
	}
}

// A Stop while the task goes on by itself ends it: the unattended round is
// rolled back, no further one starts, and the paused reply before it is
// kept with Continue offered.
func TestStopDuringAnUnattendedContinuationHalts(t *testing.T) {
	inSecond := make(chan struct{})
	calls := 0
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		calls++
		if calls == 2 {
			close(inSecond)
			<-ctx.Done() // the model is working when the user stops
			return llm.TurnResult{}, errs.Wrap(errs.Cancelled, "test", ctx.Err())
		}
		reply := "Beds 1-3 checked."
		return llm.TurnResult{Reply: reply, Messages: []llm.Message{llm.Text(llm.RoleAssistant, reply)}, LimitHit: true}, nil
	})
	r.AutoContinue = 3
	rec := &recorder{}
	done, err := r.Start(context.Background(), s, "check every bed", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	<-inSecond
	if !r.Busy(s.ID) || r.Question(s.ID) != "" {
		t.Fatalf("during the continuation: busy %v, question %q", r.Busy(s.ID), r.Question(s.ID))
	}
	if !r.Stop(s.ID) {
		t.Fatal("Stop found no turn while the task went on by itself")
	}
	<-done
	if calls != 2 || r.Busy(s.ID) {
		t.Fatalf("after Stop: %d model turns, busy %v", calls, r.Busy(s.ID))
	}
	if k := rec.kinds(); !strings.HasSuffix(k, "stopped") || strings.Count(k, "reply") != 1 {
		t.Fatalf("events = %s", k)
	}
	saved, err := r.Sessions.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Display) != 2 || saved.Display[1].Stop != StopToolLimit || len(saved.Messages) != 2 || !CanContinue(saved) {
		t.Fatalf("after Stop the paused reply is kept and nothing of the continuation: %+v", saved.Display)
	}
}
