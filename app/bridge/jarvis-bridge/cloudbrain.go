package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// The demo's cloud model: the same scripted brain behind Anthropic's
// Messages API (server-sent events), so the window's cloud paths (ask
// before sending, the ledger, the Library's per-document counts) run end
// to end against the real Anthropic client. Every request body is kept,
// and GET /received hands them back: the e2e test checks on the wire that
// a passage the user withheld never left.

// cloudModel is the model id the demo configures for Anthropic.
const cloudModel = "claude-demo"

// received holds the bodies of the Messages requests, oldest first.
var received struct {
	sync.Mutex
	bodies []json.RawMessage
}

// serveAnthropic mounts the scripted Messages API on mux.
func serveAnthropic(mux *http.ServeMux) {
	mux.HandleFunc("GET /received", func(w http.ResponseWriter, r *http.Request) {
		received.Lock()
		defer received.Unlock()
		json.NewEncoder(w).Encode(append([]json.RawMessage{}, received.bodies...)) // [] rather than null
	})
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		var raw json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		received.Lock()
		received.bodies = append(received.bodies, raw)
		received.Unlock()
		var req struct {
			Tools    []json.RawMessage `json:"tools"`
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Type    string `json:"type"`
					Text    string `json:"text"`
					Content string `json:"content"` // a tool_result's text
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(raw, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":"%v"}}`, err), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		ev := &sseWriter{w: w}
		ev.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_demo", "type": "message", "role": "assistant", "content": []any{}, "model": cloudModel,
			"stop_reason": nil, "usage": map[string]any{"input_tokens": len(raw) / 4, "output_tokens": 1}}})
		last := req.Messages[len(req.Messages)-1]
		var question, result string
		for _, b := range last.Content {
			switch b.Type {
			case "text":
				question += b.Text
			case "tool_result":
				result += b.Content
			}
		}
		switch {
		case len(req.Tools) == 0: // a session title, a summary: one line
			ev.text(0, "Watering tomatoes")
			ev.stop("end_turn")
		case result != "":
			if m := sourceRE.FindStringSubmatch(result); m != nil {
				ev.text(0, fmt.Sprintf("From what you sent: see [source: %s].", m[1]))
			} else {
				ev.text(0, "Nothing was sent that I could cite.")
			}
			ev.stop("end_turn")
		default:
			ev.toolUse(0, "toolu_demo", "search_kb", map[string]any{"query": strings.TrimSpace(question)})
			ev.stop("tool_use")
		}
	})
}

// sseWriter writes Messages-API stream events.
type sseWriter struct{ w http.ResponseWriter }

func (s *sseWriter) send(event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", event, b)
	s.w.(http.Flusher).Flush()
}

func (s *sseWriter) text(i int, text string) {
	s.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
	s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": text}})
	s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

func (s *sseWriter) toolUse(i int, id, name string, input map[string]any) {
	args, _ := json.Marshal(input)
	s.send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})
	s.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
	s.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}

func (s *sseWriter) stop(reason string) {
	s.send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 12}})
	s.send("message_stop", map[string]any{"type": "message_stop"})
}
