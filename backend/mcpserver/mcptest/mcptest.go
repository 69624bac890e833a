// Package mcptest holds what the MCP server's tests share: a local model
// behind a loopback server speaking Ollama's /api/chat.
package mcptest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
)

// Answer is the fake model's reply once it has seen a search result: it
// cites a public note it was shown and a private one it was not, so a
// test sees the unretrieved citation dropped.
const Answer = "The grant paid for the compost bins [source: garden/compost.md]. See also [source: private/diary.md]."

// Ollama speaks Ollama's /api/chat: it searches the knowledge base for
// "grant" once, then answers with Answer (or the next of Answers). It keeps every request body,
// which is everything the model was shown.
type Ollama struct {
	// Answers, when set, are given in turn instead of Answer, one per
	// answer (a task continued past the tool-call limit answers again).
	Answers []string

	mu      sync.Mutex
	bodies  [][]byte
	answers int
}

func (f *Ollama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" {
		io.WriteString(w, `{"models":[{"name":"local:test"}]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
		Tools    []json.RawMessage                `json:"tools"`
	}
	json.Unmarshal(body, &req)
	msg := map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"function": map[string]any{"name": "search_kb", "arguments": map[string]any{"query": "grant"}}}}}
	// It answers after a search result, and when no tools are offered (at
	// the tool-call limit the model is asked to answer with what it has).
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "tool" || len(req.Tools) == 0 {
		f.mu.Lock()
		answer := Answer
		if f.answers < len(f.Answers) {
			answer = f.Answers[f.answers]
		}
		f.answers++
		f.mu.Unlock()
		msg = map[string]any{"role": "assistant", "content": answer}
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	line, _ := json.Marshal(map[string]any{"model": "local:test", "message": msg, "done": false})
	w.Write(append(line, '\n'))
	io.WriteString(w, `{"model":"local:test","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`+"\n")
}

// Seen is every request body so far, joined.
func (f *Ollama) Seen() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Join(f.bodies, nil)
}
