package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// fakeOllama speaks /api/chat as NDJSON. Each request is answered by the next
// script entry: a list of raw lines, written with flushes between them.
type fakeOllama struct {
	t        *testing.T
	mu       sync.Mutex
	scripts  [][]string
	requests []map[string]any
	hold     chan struct{} // when set, the server blocks after the first line until closed
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/tags" {
		io.WriteString(w, `{"models":[{"name":"test:1b"}]}`)
		return
	}
	if r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.requests = append(f.requests, body)
	if len(f.scripts) == 0 {
		f.mu.Unlock()
		http.Error(w, `{"error":"no script left"}`, http.StatusInternalServerError)
		return
	}
	lines := f.scripts[0]
	f.scripts = f.scripts[1:]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-ndjson")
	flusher := w.(http.Flusher)
	for i, line := range lines {
		io.WriteString(w, line+"\n")
		flusher.Flush()
		if i == 0 && f.hold != nil {
			select {
			case <-f.hold:
			case <-r.Context().Done():
				return
			}
		}
	}
}

func content(s string) string {
	b, _ := json.Marshal(map[string]any{"model": "test:1b", "message": map[string]any{"role": "assistant", "content": s}, "done": false})
	return string(b)
}

func toolCall(name string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"model": "test:1b", "message": map[string]any{
		"role": "assistant", "content": "",
		"tool_calls": []any{map[string]any{"function": map[string]any{"name": name, "arguments": args}}},
	}, "done": false})
	return string(b)
}

const done = `{"model":"test:1b","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":12}`

func newOllama(t *testing.T, f *fakeOllama) *Ollama {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return &Ollama{BaseURL: srv.URL, ModelID: "test:1b", Redact: Redactor{"sk-secret-key-123"}.Redact}
}

func TestOllamaStreamsAndFoldsContent(t *testing.T) {
	f := &fakeOllama{t: t, scripts: [][]string{{content("Hel"), content("lo "), content("there"), done}}}
	o := newOllama(t, f)
	var deltas []string
	ctx := WithTextStream(context.Background(), func(d string) { deltas = append(deltas, d) })
	got, err := o.Complete(ctx, []Message{Text(RoleUser, "hi")}, 100, 8192)
	if err != nil {
		t.Fatal(err)
	}
	if got != "Hello there" {
		t.Fatalf("reply = %q", got)
	}
	if strings.Join(deltas, "|") != "Hel|lo |there" {
		t.Fatalf("streamed deltas = %q", deltas)
	}
	req := f.requests[0]
	if req["stream"] != true || req["model"] != "test:1b" {
		t.Fatalf("request = %v", req)
	}
	if opts, _ := req["options"].(map[string]any); opts["num_ctx"] != float64(8192) {
		t.Fatalf("num_ctx not passed: %v", req["options"])
	}
}

func TestOllamaToolLoop(t *testing.T) {
	f := &fakeOllama{t: t, scripts: [][]string{
		{content("Let me look."), toolCall("search_kb", map[string]any{"query": "alpha"}), toolCall("kb_stats", nil), done},
		{content("Alpha is a project [source: notes/alpha.md]."), done},
	}}
	o := newOllama(t, f)
	res, calls := recordTurn(t, context.Background(), o, TurnRequest{
		System:   "sys",
		Messages: []Message{Text(RoleUser, "what is alpha?")},
		Tools:    []Tool{{Name: "search_kb", Description: "search", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}, "result for ")
	if len(calls) != 2 || calls[0].Name != "search_kb" || calls[0].Arguments["query"] != "alpha" || calls[1].Name != "kb_stats" {
		t.Fatalf("calls = %+v", calls)
	}
	if calls[0].ID == "" || calls[0].ID == calls[1].ID {
		t.Fatalf("synthesised ids must be unique: %q %q", calls[0].ID, calls[1].ID)
	}
	if res.Reply != "Alpha is a project [source: notes/alpha.md]." || res.Iterations != 2 || res.LimitHit {
		t.Fatalf("result = %+v", res)
	}
	// Tail: assistant(tool calls), user(tool results), assistant(answer).
	if len(res.Messages) != 3 || res.Messages[1].Role != RoleUser || res.Messages[1].Content[0].ToolCallID != calls[0].ID {
		t.Fatalf("tail = %+v", res.Messages)
	}
	// Second request carried the tool results keyed by tool name.
	msgs := f.requests[1]["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)
	if last["role"] != "tool" || last["tool_name"] != "kb_stats" || last["content"] != "result for kb_stats" {
		t.Fatalf("tool message = %v", last)
	}
	if msgs[0].(map[string]any)["role"] != "system" {
		t.Fatal("system prompt must lead the wire list")
	}
	if tools := f.requests[0]["tools"].([]any); tools[0].(map[string]any)["type"] != "function" {
		t.Fatalf("tools = %v", tools)
	}
}

func TestOllamaIterationLimitAsksForWrapUp(t *testing.T) {
	loop := []string{toolCall("search_kb", map[string]any{"query": "x"}), done}
	f := &fakeOllama{t: t, scripts: [][]string{loop, loop, {content("Here is what I found."), done}}}
	o := newOllama(t, f)
	res, err := o.AgenticTurn(context.Background(), TurnRequest{
		Messages:      []Message{Text(RoleUser, "q")},
		Tools:         []Tool{{Name: "search_kb", Parameters: json.RawMessage(`{}`)}},
		Dispatch:      func(context.Context, Block) (ToolOutcome, error) { return ToolOutcome{Content: "r"}, nil },
		MaxIterations: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.LimitHit || res.Reply != "Here is what I found." || len(f.requests) != 3 {
		t.Fatalf("result = %+v, requests = %d", res, len(f.requests))
	}
	wrap := f.requests[2]
	if _, hasTools := wrap["tools"]; hasTools {
		t.Fatal("wrap-up request must not offer tools")
	}
	msgs := wrap["messages"].([]any)
	if msgs[len(msgs)-1].(map[string]any)["content"] != WrapUpPrompt {
		t.Fatal("wrap-up prompt missing")
	}
	for _, m := range res.Messages {
		if m.PlainText() == WrapUpPrompt {
			t.Fatal("the wrap-up instruction must not enter the transcript")
		}
	}
}

func TestOllamaMidStreamErrorIsRedactedLLMError(t *testing.T) {
	f := &fakeOllama{t: t, scripts: [][]string{{content("par"), `{"error":"upstream rejected key sk-secret-key-123"}`}}}
	o := newOllama(t, f)
	_, err := o.Complete(context.Background(), []Message{Text(RoleUser, "hi")}, 10, 0)
	if !errs.Is(err, errs.LLM) {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-secret-key-123") || !strings.Contains(err.Error(), Redacted) {
		t.Fatalf("secret not redacted: %v", err)
	}
}

func TestOllamaHTTPErrorAndUnreachable(t *testing.T) {
	f := &fakeOllama{t: t} // no scripts: 500
	o := newOllama(t, f)
	if _, err := o.Complete(context.Background(), []Message{Text(RoleUser, "hi")}, 10, 0); !errs.Is(err, errs.LLM) || !strings.Contains(err.Error(), "500") {
		t.Fatalf("err = %v", err)
	}
	dead := &Ollama{BaseURL: "http://127.0.0.1:1", ModelID: "m"}
	if err := dead.Health(context.Background()); !errs.Is(err, errs.LLM) || errs.HintOf(err) == "" {
		t.Fatalf("health on dead server: %v", err)
	}
	if err := o.Health(context.Background()); err != nil {
		t.Fatalf("health: %v", err)
	}
}

func TestOllamaPrivacyErrorFromToolLeavesNoTail(t *testing.T) {
	f := &fakeOllama{t: t, scripts: [][]string{{toolCall("read_file", map[string]any{"path": "private/x.md"}), done}}}
	o := newOllama(t, f)
	res, err := o.AgenticTurn(context.Background(), TurnRequest{
		Messages: []Message{Text(RoleUser, "q")},
		Dispatch: func(context.Context, Block) (ToolOutcome, error) {
			return ToolOutcome{}, errs.New(errs.Privacy, "read_file", "private note")
		},
	})
	if !errs.Is(err, errs.Privacy) || len(res.Messages) != 0 {
		t.Fatalf("privacy error must stop the turn with no tail: %v %+v", err, res)
	}
	if len(f.requests) != 1 {
		t.Fatalf("no further LLM call after a privacy error, got %d requests", len(f.requests))
	}
}

// A stop mid-stream must end the worker within 200 ms and close the HTTP
// stream; the transcript gets no tail.
func TestOllamaCancelDuringStreamEndsQuickly(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	f := &fakeOllama{t: t, hold: hold, scripts: [][]string{{content("thinking about it"), content("never sent"), done}}}
	o := newOllama(t, f)
	assertStopsWithin200ms(t, func(ctx context.Context) error {
		_, err := o.AgenticTurn(ctx, TurnRequest{Messages: []Message{Text(RoleUser, "q")}})
		return err
	})
}

func TestOllamaDescribeImageSendsBase64(t *testing.T) {
	f := &fakeOllama{t: t, scripts: [][]string{{content(" A bar chart of accuracy by model. "), done}}}
	o := newOllama(t, f)
	got, err := o.DescribeImage(context.Background(), []byte{0x89, 'P', 'N', 'G'}, "Paper X")
	if err != nil || got != "A bar chart of accuracy by model." {
		t.Fatalf("got %q, %v", got, err)
	}
	msg := f.requests[0]["messages"].([]any)[0].(map[string]any)
	if imgs := msg["images"].([]any); imgs[0] != "iVBORw==" || !strings.Contains(msg["content"].(string), `"Paper X"`) {
		t.Fatalf("image message = %v", msg)
	}
}

func TestOllamaSummarize(t *testing.T) {
	f := &fakeOllama{t: t, scripts: [][]string{{content("summary"), done}, {content("pdf summary"), done}}}
	o := newOllama(t, f)
	o.SummaryPrompt = func() (string, error) { return "SUMMARISE", nil }
	got, err := o.Summarize(context.Background(), "T", "abstract text", "", 500)
	if err != nil || got != "summary" {
		t.Fatalf("%q %v", got, err)
	}
	body := f.requests[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.HasPrefix(body, "SUMMARISE") || !strings.Contains(body, "BEGIN RETRIEVED DATA\nabstract text\nEND RETRIEVED DATA") {
		t.Fatalf("summary request = %q", body)
	}
	if _, err := o.Summarize(context.Background(), "T", "", "/x.pdf", 500); !errs.Is(err, errs.Conversion) {
		t.Fatalf("no converter: %v", err)
	}
	o.ConvertPDF = func(p string) (string, error) { return "converted " + p, nil }
	if got, err := o.Summarize(context.Background(), "T", "", "/x.pdf", 500); err != nil || got != "pdf summary" {
		t.Fatalf("%q %v", got, err)
	}
	if !strings.Contains(fmt.Sprint(f.requests[1]["messages"]), "converted /x.pdf") {
		t.Fatal("PDF must be converted locally and sent as text")
	}
}
