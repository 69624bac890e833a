package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// sseServer answers each POST with the next scripted SSE body, written
// event by event with flushes, and records requests and headers.
type sseServer struct {
	mu       sync.Mutex
	scripts  [][]string // each entry: raw SSE events ("event: x\ndata: {...}")
	status   int        // non-zero: answer every request with this status and errBody
	errBody  string
	requests []map[string]any
	headers  []http.Header
	hold     chan struct{}
}

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	s.mu.Lock()
	s.requests = append(s.requests, body)
	s.headers = append(s.headers, r.Header.Clone())
	if s.status != 0 {
		s.mu.Unlock()
		w.WriteHeader(s.status)
		io.WriteString(w, s.errBody)
		return
	}
	if len(s.scripts) == 0 {
		s.mu.Unlock()
		http.Error(w, `{"error":{"message":"no script"}}`, 500)
		return
	}
	events := s.scripts[0]
	s.scripts = s.scripts[1:]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for i, ev := range events {
		io.WriteString(w, ev+"\n\n")
		w.(http.Flusher).Flush()
		if i == 0 && s.hold != nil {
			select {
			case <-s.hold:
			case <-r.Context().Done():
				return
			}
		}
	}
}

func ev(name string, v any) string {
	b, _ := json.Marshal(v)
	if name == "" {
		return "data: " + string(b)
	}
	return "event: " + name + "\ndata: " + string(b)
}

// --- Anthropic ---

func anthText(index int, parts ...string) []string {
	out := []string{ev("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "text", "text": ""}})}
	for _, p := range parts {
		out = append(out, ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": p}}))
	}
	return append(out, ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}))
}

func anthToolUse(index int, id, name string, jsonParts ...string) []string {
	out := []string{ev("content_block_start", map[string]any{"type": "content_block_start", "index": index, "content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})}
	for _, p := range jsonParts {
		out = append(out, ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": p}}))
	}
	return append(out, ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": index}))
}

func anthMessage(stop string, blocks ...[]string) []string {
	out := []string{
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}}),
		ev("ping", map[string]any{"type": "ping"}),
	}
	for _, b := range blocks {
		out = append(out, b...)
	}
	return append(out,
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 20}}),
		ev("message_stop", map[string]any{"type": "message_stop"}))
}

func newAnthropic(t *testing.T, s *sseServer) *Anthropic {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &Anthropic{BaseURL: srv.URL, APIKey: "sk-ant-test-key-0001", ModelID: "claude-test", Redact: Redactor{"sk-ant-test-key-0001"}.Redact}
}

func TestAnthropicToolLoopWithSplitArgumentsAndThinking(t *testing.T) {
	thinking := []string{
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "thinking", "thinking": ""}}),
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "thinking_delta", "thinking": "need to search"}}),
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "signature_delta", "signature": "sig123"}}),
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}),
	}
	s := &sseServer{scripts: [][]string{
		anthMessage("tool_use", thinking, anthText(1, "Searching."), anthToolUse(2, "toolu_1", "search_kb", `{"que`, `ry": "alp`, `ha"}`), anthToolUse(3, "toolu_2", "kb_stats")),
		anthMessage("end_turn", anthText(0, "Alpha is ", "a project.")),
	}}
	a := newAnthropic(t, s)
	var streamed strings.Builder
	res, got := recordTurn(t, WithTextStream(context.Background(), func(d string) { streamed.WriteString(d) }), a, TurnRequest{
		System: "sys", Messages: []Message{Text(RoleUser, "what is alpha?")},
		Tools: []Tool{{Name: "search_kb", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}},
	}, "r:")
	if len(got) != 2 || got[0].ID != "toolu_1" || got[0].Arguments["query"] != "alpha" || got[1].Name != "kb_stats" {
		t.Fatalf("calls = %+v", got)
	}
	if !strings.HasSuffix(streamed.String(), "Alpha is a project.") {
		t.Fatalf("streamed text %q", streamed.String())
	}
	if res.Reply != "Alpha is a project." {
		t.Fatalf("reply = %q", res.Reply)
	}
	// The thinking block is kept as provider_opaque and replayed verbatim.
	if b := res.Messages[0].Content[0]; b.Type != BlockOpaque || b.Provider != "anthropic" || !strings.Contains(string(b.Data), "sig123") {
		t.Fatalf("thinking block = %+v", b)
	}
	second := s.requests[1]["messages"].([]any)
	asst := second[1].(map[string]any)["content"].([]any)
	if asst[0].(map[string]any)["type"] != "thinking" || asst[0].(map[string]any)["signature"] != "sig123" {
		t.Fatalf("thinking not echoed: %v", asst[0])
	}
	// Both tool results bundled into one user message.
	results := second[2].(map[string]any)
	if results["role"] != "user" || len(results["content"].([]any)) != 2 {
		t.Fatalf("tool results must share one user message: %v", results)
	}
	h := s.headers[0]
	if h.Get("x-api-key") != "sk-ant-test-key-0001" || h.Get("anthropic-version") != anthropicVersion {
		t.Fatalf("headers = %v", h)
	}
	if s.requests[0]["system"] != "sys" || s.requests[0]["stream"] != true {
		t.Fatalf("request = %v", s.requests[0])
	}
	// A different model gets no opaque block.
	if w := toAnthropic(res.Messages, "claude-other"); strings.Contains(string(w[0].Content[0]), "thinking") {
		t.Fatal("opaque block must not replay to another model")
	}
}

func TestAnthropicAuthFailureAndMidStreamError(t *testing.T) {
	s := &sseServer{status: 401, errBody: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-ant-test-key-0001"}}`}
	a := newAnthropic(t, s)
	_, err := a.Complete(context.Background(), []Message{Text(RoleUser, "hi")}, 10, 0)
	if !errs.Is(err, errs.LLM) || !strings.Contains(err.Error(), "authentication_error") || errs.HintOf(err) == "" {
		t.Fatalf("auth failure: %v", err)
	}
	if strings.Contains(err.Error(), "sk-ant-test-key-0001") {
		t.Fatalf("key leaked: %v", err)
	}
	s2 := &sseServer{scripts: [][]string{append(anthMessage("end_turn", anthText(0, "par"))[:4], ev("error", map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}}))}}
	a2 := newAnthropic(t, s2)
	if _, err := a2.Complete(context.Background(), []Message{Text(RoleUser, "hi")}, 10, 0); !errs.Is(err, errs.LLM) || !strings.Contains(err.Error(), "overloaded_error") {
		t.Fatalf("mid-stream error: %v", err)
	}
}

func TestAnthropicCancelMidStream(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	s := &sseServer{hold: hold, scripts: [][]string{anthMessage("end_turn", anthText(0, "never"))}}
	a := newAnthropic(t, s)
	assertStopsWithin200ms(t, func(ctx context.Context) error {
		_, err := a.AgenticTurn(ctx, TurnRequest{Messages: []Message{Text(RoleUser, "q")}})
		return err
	})
}

func TestAnthropicSummarizeUploadsPDF(t *testing.T) {
	s := &sseServer{scripts: [][]string{anthMessage("end_turn", anthText(0, "summary"))}}
	a := newAnthropic(t, s)
	a.SummaryPrompt = func() (string, error) { return "SUM", nil }
	pdf := t.TempDir() + "/p.pdf"
	if err := os.WriteFile(pdf, []byte("%PDF-1.4 test"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Summarize(context.Background(), "T", "", pdf, 100); err != nil || got != "summary" {
		t.Fatalf("%q %v", got, err)
	}
	content := s.requests[0]["messages"].([]any)[0].(map[string]any)["content"].([]any)
	doc := content[0].(map[string]any)
	if doc["type"] != "document" || doc["source"].(map[string]any)["media_type"] != "application/pdf" {
		t.Fatalf("document block = %v", doc)
	}
}

// --- OpenRouter ---

func orChunk(delta map[string]any) string {
	return ev("", map[string]any{"id": "gen-1", "model": "meta/llama-4", "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}})
}

func orToolDelta(index int, id, name, args string) string {
	fn := map[string]any{"arguments": args}
	if name != "" {
		fn["name"] = name
	}
	tc := map[string]any{"index": index, "function": fn}
	if id != "" {
		tc["id"], tc["type"] = id, "function"
	}
	return orChunk(map[string]any{"tool_calls": []any{tc}})
}

func orUsage(cost float64) string {
	return ev("", map[string]any{"id": "gen-1", "model": "meta/llama-4-served", "choices": []any{}, "usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "cost": cost}})
}

func newOpenRouter(t *testing.T, s *sseServer) *OpenRouter {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &OpenRouter{BaseURL: srv.URL, APIKey: "sk-or-test-key-0002", ModelID: "meta/llama-4",
		Routing: Routing{DataCollection: "deny", Only: []string{"groq"}}, Redact: Redactor{"sk-or-test-key-0002"}.Redact}
}

func TestOpenRouterInterleavedToolDeltasAndUsage(t *testing.T) {
	s := &sseServer{scripts: [][]string{
		{": OPENROUTER PROCESSING",
			orChunk(map[string]any{"role": "assistant", "content": "Looking"}),
			orToolDelta(0, "call_a", "search_kb", `{"qu`),
			orToolDelta(1, "call_b", "list_documents", `{"lim`),
			orToolDelta(0, "", "", `ery":"x"}`),
			orToolDelta(1, "", "", `it":5}`),
			orUsage(0.0012), "data: [DONE]"},
		{orChunk(map[string]any{"content": "Done."}), orUsage(0.0008), "data: [DONE]"},
	}}
	o := newOpenRouter(t, s)
	var streamed strings.Builder
	res, got := recordTurn(t, WithTextStream(context.Background(), func(d string) { streamed.WriteString(d) }), o, TurnRequest{
		Messages: []Message{Text(RoleUser, "q")},
		Tools:    []Tool{{Name: "search_kb", Parameters: json.RawMessage(`{}`)}},
	}, "r:")
	if streamed.String() != "LookingDone." {
		t.Fatalf("streamed text %q", streamed.String())
	}
	if len(got) != 2 || got[0].ID != "call_a" || got[0].Arguments["query"] != "x" || got[1].ID != "call_b" || got[1].Arguments["limit"] != float64(5) {
		t.Fatalf("interleaved calls bled into each other: %+v", got)
	}
	if res.Reply != "Done." {
		t.Fatalf("reply = %q", res.Reply)
	}
	u := o.PopUsage()
	if u == nil || u.Requests != 2 || fmt.Sprintf("%.4f", u.USD) != "0.0020" {
		t.Fatalf("usage = %+v", u)
	}
	if o.PopUsage() != nil {
		t.Fatal("PopUsage must reset")
	}
	if o.ServedModel != "meta/llama-4-served" {
		t.Fatalf("served model = %q", o.ServedModel)
	}
	req := s.requests[0]
	prov := req["provider"].(map[string]any)
	if prov["data_collection"] != "deny" || prov["allow_fallbacks"] != false || prov["only"].([]any)[0] != "groq" {
		t.Fatalf("routing policy = %v", prov)
	}
	if req["usage"].(map[string]any)["include"] != true {
		t.Fatal("usage accounting not requested")
	}
	if _, ok := req["stream_options"]; ok {
		t.Fatal("stream_options must not be sent")
	}
	h := s.headers[0]
	if h.Get("Authorization") != "Bearer sk-or-test-key-0002" || h.Get("HTTP-Referer") != "" || h.Get("X-Title") != "" {
		t.Fatalf("headers = %v", h)
	}
	second := s.requests[1]["messages"].([]any)
	if m := second[2].(map[string]any); m["role"] != "tool" || m["tool_call_id"] != "call_a" {
		t.Fatalf("tool result message = %v", m)
	}
	if tc := second[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any); tc["function"].(map[string]any)["arguments"] != `{"query":"x"}` {
		t.Fatalf("arguments must be a JSON string on the wire: %v", tc)
	}
}

func TestOpenRouterErrors(t *testing.T) {
	s := &sseServer{scripts: [][]string{{orChunk(map[string]any{"content": "pa"}), ev("", map[string]any{"error": map[string]any{"message": "provider down", "code": 502}})}}}
	o := newOpenRouter(t, s)
	if _, err := o.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 10, 0); !errs.Is(err, errs.LLM) || !strings.Contains(err.Error(), "provider down") {
		t.Fatalf("mid-stream error: %v", err)
	}
	s2 := &sseServer{status: 401, errBody: `{"error":{"message":"No auth credentials found","code":401}}`}
	o2 := newOpenRouter(t, s2)
	if _, err := o2.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 10, 0); !errs.Is(err, errs.LLM) || errs.HintOf(err) == "" {
		t.Fatalf("auth: %v", err)
	}
	s3 := &sseServer{scripts: [][]string{{orChunk(map[string]any{"content": "cut"})}}}
	o3 := newOpenRouter(t, s3)
	if _, err := o3.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 10, 0); !errs.Is(err, errs.LLM) {
		t.Fatalf("truncated stream must be an error: %v", err)
	}
}

func TestOpenRouterCancelMidStream(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	s := &sseServer{hold: hold, scripts: [][]string{{orChunk(map[string]any{"content": "x"}), "data: [DONE]"}}}
	o := newOpenRouter(t, s)
	assertStopsWithin200ms(t, func(ctx context.Context) error {
		_, err := o.AgenticTurn(ctx, TurnRequest{Messages: []Message{Text(RoleUser, "q")}})
		return err
	})
}

func TestMakeProviderCloud(t *testing.T) {
	cfg := config.Defaults()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	book := testLedger(t)
	if _, err := MakeProvider(&cfg, "anthropic", Options{Getenv: getenv}); !errs.Is(err, errs.Internal) {
		t.Fatalf("no ledger: %v", err)
	}
	if _, err := MakeProvider(&cfg, "anthropic", Options{Getenv: getenv, Ledger: book}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("no key: %v", err)
	}
	env["ANTHROPIC_API_KEY"] = "sk-ant-env-0123456"
	p, err := MakeProvider(&cfg, "anthropic", Options{Getenv: getenv, Ledger: book})
	if err != nil || p.Model() != "claude-sonnet-4-6" || p.(*Anthropic).Ledger != book {
		t.Fatalf("%v %v", p, err)
	}
	cfg.OpenRouter.APIKey = "sk-or-cfg-0123456"
	p, err = MakeProvider(&cfg, "openrouter:mistral/large", Options{Getenv: getenv, Ledger: book})
	if err != nil || p.Name() != "openrouter" || p.(*OpenRouter).Routing.DataCollection != "deny" {
		t.Fatalf("%v %v", p, err)
	}
}

// recordTurn runs one agentic turn of p, which must not fail, and returns
// its result with the tool calls it dispatched; each call is answered
// prefix+name.
func recordTurn(t *testing.T, ctx context.Context, p Provider, req TurnRequest, prefix string) (TurnResult, []Block) {
	t.Helper()
	var calls []Block
	req.Dispatch = func(_ context.Context, c Block) (ToolOutcome, error) {
		calls = append(calls, c)
		return ToolOutcome{Content: prefix + c.Name}, nil
	}
	res, err := p.AgenticTurn(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return res, calls
}

// assertStopsWithin200ms starts run, cancels it once the stream is in flight
// and requires it to return a cancellation within 200 ms.
func assertStopsWithin200ms(t *testing.T, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errs.Is(err, errs.Cancelled) {
			t.Fatalf("err = %v, want cancelled", err)
		}
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Fatalf("stopped after %v", d)
		}
	case <-time.After(200 * time.Millisecond):
		t.Fatal("turn still running 200 ms after stop")
	}
}
