package chat

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

func TestDraftToolsThroughTheToolbox(t *testing.T) {
	ws, err := drafts.New(filepath.Join(t.TempDir(), "drafts"), []string{".md"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var queued []*drafts.Proposal
	tb := &Toolbox{Tools: DraftTools(&drafts.Agent{W: ws, Review: func(_ context.Context, p *drafts.Proposal) error { queued = append(queued, p); return nil }})}
	s := &Session{ID: "s1", Provider: "ollama", Model: "m"}
	ctx := context.Background()
	var events []Event
	emit := func(e Event) { events = append(events, e) }
	if len(tb.Definitions(s)) != 6 {
		t.Fatal("six draft tools")
	}
	out, err := tb.Dispatch(ctx, s, llm.Block{Name: "create_draft", Arguments: map[string]any{"title": "Letter", "filename": "l.md", "content": "Dear all,\n"}}, emit)
	if err != nil || out.IsError || !strings.Contains(out.Content, "Created draft") {
		t.Fatalf("%v %+v", err, out)
	}
	id := strings.Fields(out.Content)[2]
	// A recoverable mistake goes back to the model with the reason.
	out, err = tb.Dispatch(ctx, s, llm.Block{Name: "add_draft_file", Arguments: map[string]any{"draft_id": id, "filename": "../x.md", "content": "x"}}, emit)
	if err != nil || !out.IsError || !strings.Contains(out.Content, "refused") {
		t.Fatalf("bad path: %v %+v", err, out)
	}
	out, _ = tb.Dispatch(ctx, s, llm.Block{Name: "nope"}, emit)
	if !out.IsError {
		t.Fatal("unknown tool")
	}
	out, err = tb.Dispatch(ctx, s, llm.Block{Name: "propose_draft_edit", Arguments: map[string]any{"draft_id": id, "new_text": "Dear team,\n"}}, emit)
	if err != nil || !strings.HasPrefix(out.Content, drafts.ProposalNotice) || len(queued) != 1 {
		t.Fatalf("propose: %v %+v", err, out)
	}
	// A cloud session is told a private draft does not exist; a local one
	// that reads it becomes private.
	s.MarkPrivate()
	out, _ = tb.Dispatch(ctx, s, llm.Block{Name: "create_draft", Arguments: map[string]any{"title": "Secret", "filename": "s.md", "content": "x\n"}}, emit)
	privID := strings.Fields(out.Content)[2]
	cloud := &Session{ID: "s2", Provider: "anthropic", Model: "c"}
	if out, err := tb.Dispatch(ctx, cloud, llm.Block{Name: "read_draft", Arguments: map[string]any{"draft_id": privID}}, emit); err != nil || !out.IsError || !strings.Contains(out.Content, "no draft") {
		t.Fatalf("a private draft to a cloud session: %v %+v", err, out)
	}
	lctx, l := withLedger(ctx, emit)
	if out, err := tb.Dispatch(lctx, &Session{ID: "s3", Provider: "ollama", Model: "m"}, llm.Block{Name: "read_draft", Arguments: map[string]any{"draft_id": privID}}, emit); err != nil || out.IsError || !l.Private() {
		t.Fatalf("a local read of a private draft must mark the turn private: %v %+v %v", err, out, l.Private())
	}
	if len(events) == 0 || events[0].Kind != EventTool {
		t.Fatalf("tool events: %+v", events)
	}
}
