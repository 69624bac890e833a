package agent_test

import (
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// call is one tool call a fake model makes.
type call struct {
	Tool string
	Args map[string]any
}

// Both fakes are reached through the real provider clients (llm.Anthropic
// and llm.Ollama) that the agent builds from configuration.

// fakeCloud speaks Anthropic's streaming Messages API. Each turn it asks
// for the planned tool call once, then ends the turn; it keeps every
// request body it was sent, byte for byte, which is what a provider sees.
type fakeCloud struct {
	script
}

// script is what both fakes keep: the tool call planned for the next
// turn and every request body sent to them, under one lock.
type script struct {
	mu     sync.Mutex
	plan   *call
	bodies [][]byte
}

func (f *script) expect(c *call) {
	f.mu.Lock()
	f.plan, f.bodies = c, nil
	f.mu.Unlock()
}

// planned is the tool the next turn's call is to, "" for none.
func (f *script) planned() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.plan == nil {
		return ""
	}
	return f.plan.Tool
}

func (f *script) seen() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.bodies...)
}

func sse(name string, v any) string {
	b, _ := json.Marshal(v)
	return "event: " + name + "\ndata: " + string(b) + "\n\n"
}

func (f *fakeCloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	plan := f.plan
	f.plan = nil
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, sse("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
		"model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}}))
	stop := "end_turn"
	if plan != nil {
		args, _ := json.Marshal(plan.Args)
		io.WriteString(w, sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": plan.Tool, "input": map[string]any{}}}))
		io.WriteString(w, sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}}))
		stop = "tool_use"
	} else {
		io.WriteString(w, sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}))
		io.WriteString(w, sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "Noted."}}))
	}
	io.WriteString(w, sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}))
	io.WriteString(w, sse("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 5}}))
	io.WriteString(w, sse("message_stop", map[string]any{"type": "message_stop"}))
}

// fakeOllama speaks Ollama's /api/chat. It makes the planned tool call, and
// once it has the result it answers by repeating the result word for word:
// a local model that launders whatever it was shown into its reply, and so
// into the transcript and the chat history.
type fakeOllama struct {
	script
	last call // the call it made last
}

func (f *fakeOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" {
		io.WriteString(w, `{"models":[{"name":"local:test"}]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	plan := f.plan
	if plan != nil {
		f.last = *plan
	}
	f.plan = nil
	f.mu.Unlock()
	msg := map[string]any{"role": "assistant", "content": "Nothing to add."}
	if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
		// Its own arguments (echoed by some results) are not what it
		// launders; the first part of a result is plenty, and a capped
		// echo keeps history from snowballing.
		echo := last.Content
		f.mu.Lock()
		var args []string
		for _, a := range f.last.Args {
			if s, ok := a.(string); ok && s != "" {
				args = append(args, s)
			}
		}
		f.mu.Unlock()
		// Longest first, in a fixed order: a short argument ("x") must not
		// eat into a longer one before that one is masked whole.
		slices.SortFunc(args, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
		for _, s := range args {
			echo = strings.ReplaceAll(echo, s, "<ARG>")
		}
		msg["content"] = "Here is what I found: " + echo[:min(len(echo), 2000)]
	} else if plan != nil {
		msg = map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"function": map[string]any{"name": plan.Tool, "arguments": plan.Args}}}}
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	line, _ := json.Marshal(map[string]any{"model": "local:test", "message": msg, "done": false})
	w.Write(append(line, '\n'))
	io.WriteString(w, `{"model":"local:test","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`+"\n")
}
