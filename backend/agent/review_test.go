package agent_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// reviewTurn runs a cloud turn that searches the knowledge base, answering
// its review with decide; it returns the passages shown and the events.
func reviewTurn(t *testing.T, w *world, s *chat.Session, decide func([]chat.Passage) chat.Decision) ([]chat.Passage, []chat.Event) {
	t.Helper()
	return reviewCall(t, w, s, &call{Tool: "search_kb", Args: map[string]any{"query": "tomato plants full sun"}}, decide)
}

// reviewCall is reviewTurn with the tool call c.
func reviewCall(t *testing.T, w *world, s *chat.Session, c *call, decide func([]chat.Passage) chat.Decision) ([]chat.Passage, []chat.Event) {
	t.Helper()
	w.cloud.expect(c)
	var shown []chat.Passage
	var events []chat.Event
	done, err := w.ag.Runner.Start(context.Background(), s, "how do tomatoes grow?", func(e chat.Event) {
		events = append(events, e)
		if e.Kind != chat.EventReview {
			return
		}
		d := e.Data.(map[string]any)
		shown = d["passages"].([]chat.Passage)
		if err := w.ag.Confirm.Decide(d["token"].(string), decide(shown)); err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	return shown, events
}

func passageOf(ps []chat.Passage, source string) int {
	return slices.IndexFunc(ps, func(p chat.Passage) bool { return p.Source == source })
}

// With ask-before-sending on, the passages a search found wait for the
// user; a withheld one never reaches the cloud model, which is told that
// something was withheld, and the rest goes as found.
func TestAskBeforeSendingWithholdsThePassagesTheUserRemoves(t *testing.T) {
	emb, _ := models(t)
	w := newWorld(t, false, emb, "")
	w.cfg.Ledger.AskBeforeSending = true
	s := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	shown, events := reviewTurn(t, w, s, func(ps []chat.Passage) chat.Decision {
		return chat.Decision{Send: true, Withhold: []int{passageOf(ps, "garden/tomatoes.md")}}
	})
	i := passageOf(shown, "garden/tomatoes.md")
	if i < 0 || !strings.Contains(shown[i].Text, "full sun and deep watering") || shown[i].Bytes != len(shown[i].Text) {
		t.Fatalf("the review did not show the note's passage: %+v", shown)
	}
	bodies := w.cloud.seen()
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want the search and the answer", len(bodies))
	}
	last := bodies[1]
	if bytes.Contains(last, []byte("deep watering")) {
		t.Fatalf("a withheld passage reached the cloud model:\n%s", last)
	}
	if !bytes.Contains(last, []byte(chat.WithheldPassage)) || !bytes.Contains(last, []byte("the user withheld 1 of the passages")) {
		t.Fatalf("the model was not told a passage was withheld:\n%s", last)
	}
	for j, p := range shown {
		if j != i && !bytes.Contains(last, []byte(strings.SplitN(p.Text, "\n", 2)[0])) {
			t.Errorf("passage %d (%s) was kept but not sent", j, p.Source)
		}
	}
	if e := events[len(events)-1]; e.Kind != chat.EventReply {
		t.Fatalf("the turn ended with %s %q", e.Kind, e.Text)
	}
}

// Cancelling the review stops the turn: the found text is never sent, the
// question comes back to the input, and nothing of the turn is kept.
func TestAskBeforeSendingCancelSendsNothing(t *testing.T) {
	emb, _ := models(t)
	w := newWorld(t, false, emb, "")
	w.cfg.Ledger.AskBeforeSending = true
	s := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	shown, events := reviewTurn(t, w, s, func([]chat.Passage) chat.Decision { return chat.Decision{} })
	if len(shown) == 0 {
		t.Fatal("no review was asked")
	}
	if n := len(w.cloud.seen()); n != 1 {
		t.Fatalf("%d requests after a cancelled review, want only the one before the search", n)
	}
	e := events[len(events)-1]
	if e.Kind != chat.EventStopped || e.Data.(map[string]any)["restore_input"] != "how do tomatoes grow?" {
		t.Fatalf("the turn ended with %s %v", e.Kind, e.Data)
	}
	if len(s.Messages) != 0 || len(s.Display) != 0 {
		t.Fatalf("a cancelled turn left %d messages", len(s.Messages))
	}
}

// The setting is per session: a session switched off is not asked while
// the default is on; one switched on is asked while the default is off;
// a local model is never asked (nothing leaves the machine).
func TestAskBeforeSendingIsSwitchedPerSession(t *testing.T) {
	emb, _ := models(t)
	w := newWorld(t, false, emb, "")
	asked := func(s *chat.Session) bool {
		shown, _ := reviewTurn(t, w, s, func([]chat.Passage) chat.Decision { return chat.Decision{Send: true} })
		return shown != nil
	}
	off := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	off.SetAsks(false)
	w.cfg.Ledger.AskBeforeSending = true
	if asked(off) {
		t.Error("a session switched off was asked")
	}
	on := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	on.SetAsks(true)
	w.cfg.Ledger.AskBeforeSending = false
	if !asked(on) {
		t.Error("a session switched on was not asked")
	}
	local := w.ag.Sessions.New(llm.ParseSpec(localSpec), false)
	local.SetAsks(true)
	if w.ag.Runner.Asks(local) {
		t.Error("a local session asks before sending")
	}
	if err := w.ag.Sessions.Save(on); err != nil {
		t.Fatal(err)
	}
	back, err := w.ag.Sessions.Load(on.ID)
	if err != nil || !back.Asks(false) {
		t.Fatalf("the session's switch was not kept: %v", err)
	}
}

// A draft holds the user's own writing (often seeded from a note): what
// read_draft returns is reviewed like a search result, and withholding it
// keeps all of it from the cloud model.
func TestAskBeforeSendingReviewsADraftBeforeItIsSent(t *testing.T) {
	emb, _ := models(t)
	w := newWorld(t, false, emb, "")
	w.cfg.Ledger.AskBeforeSending = true
	s := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	shown, events := reviewCall(t, w, s, &call{Tool: "read_draft", Args: map[string]any{"draft_id": w.ids["{PUBDRAFT}"]}},
		func(ps []chat.Passage) chat.Decision { return chat.Decision{Send: true, Withhold: []int{0}} })
	if len(shown) != 1 || !strings.Contains(shown[0].Text, "Beds and paths on the allotment") {
		t.Fatalf("the review did not show the draft: %+v", shown)
	}
	bodies := w.cloud.seen()
	if len(bodies) != 2 || bytes.Contains(bodies[1], []byte("Beds and paths")) || !bytes.Contains(bodies[1], []byte(chat.WithheldPassage)) {
		t.Fatalf("the withheld draft reached the cloud model (%d requests):\n%s", len(bodies), bodies[len(bodies)-1])
	}
	if e := events[len(events)-1]; e.Kind != chat.EventReply {
		t.Fatalf("the turn ended with %s %q", e.Kind, e.Text)
	}
}

// summaryMark is how a summary request sets out its paper (llm's
// Summarize: the instructions, then the title), as JSON escapes it.
var summaryMark = []byte(`\n\nTitle: `)

// In a session that asks before sending, add_document's own requests to
// the cloud model (the paper's metadata, its summary) are shown first: one
// kept back never reaches the provider, and the paper is added without it;
// a summary kept back stops the turn with nothing of it sent.
func TestAskBeforeSendingCoversAddDocumentsOwnRequests(t *testing.T) {
	emb, _ := models(t)
	w := newWorld(t, false, emb, "")
	w.cfg.Ledger.AskBeforeSending = true
	paper, _ := filepath.Abs("../pdf/testdata/annotated.pdf") // its first page is read for metadata
	add := &call{Tool: "add_document", Args: map[string]any{"source": paper, "mode": "summary"}}
	var asked []string
	s := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	_, events := reviewCall(t, w, s, add, func(ps []chat.Passage) chat.Decision {
		asked = append(asked, ps[0].Title)
		return chat.Decision{Send: !strings.Contains(ps[0].Title, "metadata")}
	})
	if len(asked) != 2 || !strings.Contains(asked[0], "metadata") || !strings.Contains(asked[1], "to summarise") {
		t.Fatalf("reviews asked: %q", asked)
	}
	if e := events[len(events)-1]; e.Kind != chat.EventReply {
		t.Fatalf("the turn ended with %s %q", e.Kind, e.Text)
	}
	var summarised bool
	for _, b := range w.cloud.seen() {
		if bytes.Contains(b, []byte("Reply with JSON only")) {
			t.Fatalf("the metadata request kept back reached the provider:\n%.300s", b)
		}
		summarised = summarised || bytes.Contains(b, summaryMark) && bytes.Contains(bytes.ToLower(b), []byte("sparse attention"))
	}
	if !summarised {
		t.Fatal("the summary the user sent never went")
	}

	// Keeping the summary back: the turn stops, and its text never left.
	s2 := w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
	_, events = reviewCall(t, w, s2, &call{Tool: "add_document", Args: map[string]any{"source": paper, "mode": "summary", "allow_duplicate": true}},
		func(ps []chat.Passage) chat.Decision {
			return chat.Decision{Send: !strings.Contains(ps[0].Title, "to summarise")}
		})
	if e := events[len(events)-1]; e.Kind != chat.EventStopped {
		t.Fatalf("a summary kept back must stop the turn; it ended with %s %q", e.Kind, e.Text)
	}
	for _, b := range w.cloud.seen() {
		if bytes.Contains(b, summaryMark) {
			t.Fatalf("the summary request kept back reached the provider:\n%.300s", b)
		}
	}
}
