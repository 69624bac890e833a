package llm

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm/wiretest"
)

// conformanceProvider builds the real adapter for a case, pointed at its
// loopback server.
func conformanceProvider(c wiretest.Case, url string) Provider {
	redact := Redactor{c.Key()}.Redact
	switch c.Provider {
	case "anthropic":
		return &Anthropic{BaseURL: url, APIKey: c.Key(), ModelID: "claude-test", Redact: redact}
	case "openrouter":
		return &OpenRouter{BaseURL: url, APIKey: c.Key(), ModelID: "anthropic/claude-test", Redact: redact}
	default:
		return &Ollama{BaseURL: url, ModelID: "test:1b", Redact: redact}
	}
}

// TestConformance plays every scripted wire transcript through the real
// adapters: stop reasons, thinking and reasoning passback, both parallel
// tool-call styles, HTTP / mid-stream / 200-JSON errors, retries, cancel,
// malformed and truncated streams.
func TestConformance(t *testing.T) {
	// Real retry-after waits are honoured (one case waits a second); our
	// own backoff is shortened by TestMain.
	for _, provider := range []string{"anthropic", "openrouter", "ollama"} {
		cases, err := wiretest.Load(provider)
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) < 10 {
			t.Fatalf("%s: only %d cases", provider, len(cases))
		}
		for _, c := range cases {
			t.Run(strings.TrimSuffix(c.File, ".yaml"), func(t *testing.T) {
				t.Parallel()
				runConformanceCase(t, c)
			})
		}
	}
}

func runConformanceCase(t *testing.T, c wiretest.Case) {
	srv := wiretest.Serve(t, c)
	p := conformanceProvider(c, srv.URL)
	var mu sync.Mutex
	var streamed strings.Builder
	var status []string
	var calls []Block
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = WithTextStream(ctx, func(d string) {
		mu.Lock()
		defer mu.Unlock()
		streamed.WriteString(d)
		if c.Expect.Cancel {
			cancel() // the user presses Stop once the answer starts
		}
	})
	ctx = WithStatus(ctx, func(line string) { mu.Lock(); status = append(status, line); mu.Unlock() })
	tools := make([]Tool, len(c.Tools))
	for i, name := range c.Tools {
		tools[i] = Tool{Name: name, Description: "a tool", Parameters: json.RawMessage(`{"type":"object"}`)}
	}
	var res TurnResult
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = p.AgenticTurn(ctx, TurnRequest{System: "sys", Messages: []Message{Text(RoleUser, "question")}, Tools: tools,
			Dispatch: func(_ context.Context, call Block) (ToolOutcome, error) {
				calls = append(calls, call)
				return ToolOutcome{Content: "result of " + call.Name}, nil
			}})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the turn did not end")
	}
	e := c.Expect
	if err != nil && wiretest.Leaks(err.Error()+errs.HintOf(err), c.Key()) {
		t.Errorf("the key leaked into the error: %v", err)
	}
	if e.Error != "" || e.Code != "" {
		if err == nil {
			t.Fatalf("no error; reply %q stop %q", res.Reply, res.Stop)
		}
		if !strings.Contains(err.Error(), e.Error) {
			t.Errorf("error %q lacks %q", err, e.Error)
		}
		if e.Code != "" && errs.CodeOf(err) != errs.Code(e.Code) {
			t.Errorf("error code %s, want %s (%v)", errs.CodeOf(err), e.Code, err)
		}
		if e.Hint != "" && !strings.Contains(errs.HintOf(err), e.Hint) {
			t.Errorf("hint %q lacks %q", errs.HintOf(err), e.Hint)
		}
	} else if err != nil {
		t.Fatalf("turn failed: %v", err)
	}
	if e.Stop != "" && res.Stop != StopReason(e.Stop) {
		t.Errorf("stop = %q, want %q", res.Stop, e.Stop)
	}
	if e.Reply != nil && res.Reply != *e.Reply {
		t.Errorf("reply = %q, want %q", res.Reply, *e.Reply)
	}
	if e.Streamed != nil && streamed.String() != *e.Streamed {
		t.Errorf("streamed = %q, want %q", streamed.String(), *e.Streamed)
	}
	if err == nil && res.Reply != "" && e.Streamed == nil && !strings.Contains(streamed.String(), res.Reply) {
		t.Errorf("streamed %q does not end in the stored reply %q", streamed.String(), res.Reply)
	}
	if e.Calls != nil {
		if len(calls) != len(e.Calls) {
			t.Fatalf("calls = %+v, want %+v", calls, e.Calls)
		}
		for i, want := range e.Calls {
			if calls[i].Name != want.Name || !wiretest.JSONEqual(calls[i].Arguments, want.Args) || calls[i].ID == "" {
				t.Errorf("call %d = %s %v (id %q), want %s %v", i, calls[i].Name, calls[i].Arguments, calls[i].ID, want.Name, want.Args)
			}
		}
	}
	for i, want := range e.Status {
		if i >= len(status) || !strings.Contains(status[i], want) {
			t.Errorf("status lines %q: line %d should contain %q", status, i+1, want)
		}
	}
	if len(e.Status) == 0 && len(status) > 0 {
		t.Errorf("unexpected status lines %q", status)
	}
	wantRequests := e.Requests
	if wantRequests == 0 {
		wantRequests = len(c.Exchanges)
	}
	if got := len(srv.Requests()); got != wantRequests {
		t.Errorf("%d requests, want %d", got, wantRequests)
	}
	srv.CheckSent(t)
}
