package chat

import (
	"context"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/llm"
)

// summarising answers Complete with a summary (or blocks until cancelled).
type summarising struct {
	scripted
	block   bool
	mu      gosync.Mutex
	prompts []string
}

func (p *summarising) asked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.prompts)
}

func (p *summarising) Complete(ctx context.Context, msgs []llm.Message, _, _ int) (string, error) {
	p.mu.Lock()
	p.prompts = append(p.prompts, msgs[0].PlainText())
	p.mu.Unlock()
	if p.block {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return "The user is planning tomatoes; budget is 40 EUR.", nil
}

// longSession has n finished turns with bulky tool traffic.
func longSession(r *Runner, n int) *Session {
	s := r.Sessions.New(llm.Spec{Provider: "ollama", Model: "m"}, false)
	for i := 0; i < n; i++ {
		s.TurnStarts = append(s.TurnStarts, len(s.Messages))
		s.Messages = append(s.Messages,
			llm.Text(llm.RoleUser, "question "+strings.Repeat("x", 400)),
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: "c", Name: "search_kb", Arguments: map[string]any{"query": "q"}}}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: "c", Content: strings.Repeat("result ", 100)}}},
			llm.Text(llm.RoleAssistant, "answer"))
		s.Display = append(s.Display, DisplayItem{Role: "user", Text: "question"}, DisplayItem{Role: "assistant", Text: "answer"})
	}
	return s
}

func TestCompactionKeepsRecentTurnsOnABoundary(t *testing.T) {
	var seen []llm.Message
	p := &summarising{scripted: scripted{body: func(_ context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		seen = req.Messages
		return llm.TurnResult{Messages: []llm.Message{llm.Text(llm.RoleAssistant, "ok")}, Reply: "ok"}, nil
	}}}
	r, _ := newRunner(t, nil)
	r.Provider = func(string) (llm.Provider, error) { return p, nil }
	r.CompactAfter, r.CompactKeep = 500, 2
	s := longSession(r, 5)
	if !NeedsCompaction(s, r.CompactAfter, r.CompactKeep) {
		t.Fatal("a 5-turn bulky session must need compaction")
	}
	keptFrom := s.TurnStarts[3]
	kept := append([]llm.Message(nil), s.Messages[keptFrom:]...)
	display := len(s.Display)
	rec := runTurnToEnd(t, r, s, "next")
	if rec.kinds() != "status,status,reply" || rec.events[0].Text != "compacting" || rec.events[1].Text != "thinking" {
		t.Fatalf("events %s %+v", rec.kinds(), rec.events)
	}
	if len(p.prompts) != 1 || !strings.Contains(p.prompts[0], "search_kb") {
		t.Fatalf("summariser prompts %v", p.prompts)
	}
	if !strings.HasPrefix(seen[0].PlainText(), "Summary of our earlier conversation:") || seen[1].Role != llm.RoleAssistant {
		t.Fatalf("the turn did not see the summary pair: %+v", seen[:2])
	}
	if len(s.Messages) != 2+len(kept)+2 || s.Messages[2].PlainText() != kept[0].PlainText() {
		t.Fatalf("messages after compaction: %d", len(s.Messages))
	}
	if len(s.TurnStarts) != 3 || s.TurnStarts[0] != 2 || s.Messages[s.TurnStarts[2]].PlainText() != "next" {
		t.Fatalf("turn starts %v", s.TurnStarts)
	}
	if len(s.Display) != display+2 {
		t.Fatal("compaction must never shrink the display list")
	}
	if NeedsCompaction(s, r.CompactAfter, 5) {
		t.Fatal("nothing older than the kept turns is left")
	}
}

func TestStopDuringCompactionLeavesTheSessionAsItWas(t *testing.T) {
	p := &summarising{block: true, scripted: scripted{body: func(context.Context, llm.TurnRequest) (llm.TurnResult, error) {
		t.Error("the turn must not run after a stop")
		return llm.TurnResult{}, nil
	}}}
	r, _ := newRunner(t, nil)
	r.Provider = func(string) (llm.Provider, error) { return p, nil }
	r.CompactAfter, r.CompactKeep = 500, 2
	s := longSession(r, 5)
	before := len(s.Messages)
	rec := &recorder{}
	done, err := r.Start(context.Background(), s, "next", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Second); p.asked() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	r.Stop(s.ID)
	<-done
	if len(s.Messages) != before || !strings.HasSuffix(rec.kinds(), "stopped") {
		t.Fatalf("messages %d -> %d, events %s", before, len(s.Messages), rec.kinds())
	}
}
