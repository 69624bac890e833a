package chat

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/memory"
)

// A continuation at the tool-call limit is the user's task going on: a
// save its model makes counts as asked when the message that began the
// task asked for it, and is refused when that message did not — the
// continuation's own prompt is Jarvis's words, never a request.
func TestAContinuationSavesOnlyWhatTheTasksMessageAskedFor(t *testing.T) {
	for _, tc := range []struct {
		message string
		saved   bool
	}{
		{"Check every bed and remember that bed 4 is the shady one.", true},
		{"Check every bed.", false},
	} {
		store := &memory.Store{Path: filepath.Join(t.TempDir(), "memory.json")}
		var results []string
		calls := 0
		r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
			calls++
			if calls == 2 { // the continuation: now the model saves
				out, err := req.Dispatch(ctx, llm.Block{Type: llm.BlockToolCall, ID: "t1", Name: "remember", Arguments: map[string]any{"fact": "Bed 4 is the shady one"}})
				if err != nil {
					return llm.TurnResult{}, err
				}
				results = append(results, out.Content)
			}
			reply := "Beds 1-3 checked."
			return llm.TurnResult{Reply: reply, Messages: []llm.Message{llm.Text(llm.RoleAssistant, reply)}, LimitHit: calls == 1}, nil
		})
		r.Tools = &Toolbox{Tools: map[string]Tool{"remember": RememberTool(store)}}
		runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) {
			return r.Start(context.Background(), s, tc.message, emit)
		})
		runTurn(t, r, s, func(emit func(Event)) (<-chan struct{}, error) { return r.Continue(context.Background(), s, emit) })
		facts, err := store.List()
		if err != nil {
			t.Fatal(err)
		}
		if got := len(facts) == 1; got != tc.saved || len(results) != 1 {
			t.Fatalf("%q: saved %+v, results %q", tc.message, facts, results)
		}
		if !tc.saved && !strings.Contains(results[0], "nothing was saved") {
			t.Fatalf("%q: the model was not told why: %q", tc.message, results[0])
		}
	}
	// Outside any turn there is no user message, so no save.
	store := &memory.Store{Path: filepath.Join(t.TempDir(), "memory.json")}
	if _, _, err := RememberTool(store).Run(context.Background(), &Session{}, map[string]any{"fact": "x"}); err == nil {
		t.Fatal("a save outside a turn went through")
	}
}
