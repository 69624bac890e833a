package agent_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// rawServer answers HTTP requests with bytes written by hand, so a test can
// send what net/http would never write: a status line that carries a key.
type rawServer struct {
	ln      net.Listener
	mu      sync.Mutex
	n       int
	respond func(n int, body []byte) string
	bodies  [][]byte
}

func newRawServer(t *testing.T) *rawServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(conn)
		}
	}()
	return s
}

func (s *rawServer) serve(conn net.Conn) {
	defer conn.Close()
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return
	}
	body, _ := io.ReadAll(req.Body)
	s.mu.Lock()
	s.n++
	s.bodies = append(s.bodies, body)
	n, respond := s.n, s.respond
	s.mu.Unlock()
	io.WriteString(conn, respond(n, body))
}

func (s *rawServer) script(fn func(n int, body []byte) string) {
	s.mu.Lock()
	s.n, s.respond = 0, fn
	s.mu.Unlock()
}

func response(status, headers, body string) string {
	return fmt.Sprintf("HTTP/1.1 %s\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s", status, headers, len(body), body)
}

func stream(events ...string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + strings.Join(events, "")
}

var messageStart = sse("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "m", "type": "message", "role": "assistant",
	"model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}})

func textReply(text string) string {
	return stream(messageStart,
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}}),
		sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}),
		sse("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 1}}),
		sse("message_stop", map[string]any{"type": "message_stop"}))
}

func toolUse(name string, args map[string]any) string {
	b, _ := json.Marshal(args)
	return stream(messageStart,
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": name, "input": map[string]any{}}}),
		sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b)}}),
		sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0}),
		sse("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "tool_use"}, "usage": map[string]any{"output_tokens": 1}}),
		sse("message_stop", map[string]any{"type": "message_stop"}))
}

// A provider that echoes the API key back — in the error body, the status
// line, a header, a long body cut anywhere across the key, an SSE error, a
// tool's failure, the reply itself — must not get the key written anywhere
// under the data dir: sessions, indexed history, logs.
func TestSecretsNeverReachTheDataDir(t *testing.T) {
	const key = apiKey
	srv := newRawServer(t)
	home, _ := filepath.EvalSymlinks(t.TempDir())
	t.Setenv("JARVIS_HOME", home)
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	emb, _ := models(t)
	cfg.Vault.Path = filepath.Join(home, "vault")
	os.MkdirAll(cfg.Vault.Path, 0o755)
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = emb, ""
	cfg.Anthropic.BaseURL, cfg.Anthropic.APIKey = "http://"+srv.ln.Addr().String(), key
	pdf, _ := os.ReadFile("../pdf/testdata/paper.pdf")
	paper := filepath.Join(t.TempDir(), "paper.pdf")
	os.WriteFile(paper, pdf, 0o644)

	// As the desktop app does: the process log, redacted.
	if _, err := logs.Open(cfg.LogsDir()); err != nil {
		t.Fatal(err)
	}
	logs.SetRedact(llm.Redactor(llm.Secrets(cfg, os.Getenv)).Redact)
	t.Cleanup(func() { logs.SetRedact(nil); logs.Close() })
	ag, err := agent.New(cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil || ag.EngineErr != nil {
		t.Fatal(err, ag.EngineErr)
	}
	defer ag.Close()

	fail := func(status, headers, body string) func(int, []byte) string {
		return func(int, []byte) string { return response(status, headers+"Content-Type: application/json\r\n", body) }
	}
	scenarios := map[string]func(int, []byte) string{
		"error body":  fail("401 Unauthorized", "", `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key `+key+`"}}`),
		"status line": fail("403 Forbidden key "+key, "", `{"type":"error","error":{"type":"permission_error","message":"denied"}}`),
		"header":      fail("400 Bad Request", "X-Echo: "+key+"\r\n", `upstream rejected the request`),
		"sse error": func(int, []byte) string {
			return stream(messageStart, sse("error", map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "overloaded for " + key}}))
		},
		"reply": func(int, []byte) string { return textReply("Your key is " + key + ".") },
		"tool failure": func(n int, _ []byte) string {
			switch n {
			case 1:
				return toolUse("add_document", map[string]any{"source": paper, "mode": "summary"})
			case 2: // the summary request, made by the tool
				return response("403 Forbidden key "+key, "", `{"error":{"message":"no"}}`)
			}
			return textReply("The paper could not be summarised.")
		},
	}
	// A long error body is cut before it is shown: the key wholly inside
	// the part kept, wholly past it, and straddling the cut at every
	// offset (the body is redacted whole before it is shortened).
	const cut = 8192
	offsets := []int{cut - len(key) - 1, cut}
	for before := cut - len(key) + 1; before < cut; before++ {
		offsets = append(offsets, before)
	}
	for _, before := range offsets {
		scenarios[fmt.Sprintf("long body, key at %d", before)] = fail("400 Bad Request", "", strings.Repeat("x", before)+key+" tail")
	}

	for name, respond := range scenarios {
		srv.script(respond)
		s := ag.Sessions.New(llm.ParseSpec(cloudSpec), false)
		var events []chat.Event
		done, err := ag.Runner.Start(context.Background(), s, "probe "+name, func(e chat.Event) { events = append(events, e) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		<-done
		srv.mu.Lock()
		for _, b := range srv.bodies {
			// A tool's failure goes back to the model: not with a key in it.
			if strings.Contains(string(b), key[:len(key)/2]) {
				t.Errorf("%s: a request body carries the key", name)
			}
		}
		srv.bodies = nil
		srv.mu.Unlock()
		for _, e := range events {
			if data, _ := json.Marshal(e.Data); strings.Contains(e.Text+string(data), key[:len(key)/2]) {
				t.Errorf("%s: an event shown to the user carries the key: %q", name, e.Text)
			}
			if e.Kind == chat.EventError {
				logs.L().Error("turn failed", "session", s.ID, "err", e.Text)
			}
		}
		// Components that log a raw provider error rely on the log's own
		// redaction.
		srv.script(respond)
		p, err := ag.Provider(cloudSpec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Complete(context.Background(), []llm.Message{llm.Text(llm.RoleUser, "hi")}, 10, 0); err != nil {
			logs.L().Error("model call failed", "err", err)
		}
	}
	logs.Close()

	found := 0
	err = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found++
		// The whole key, or any long enough start of it (a key cut short
		// by a truncation is still a leaked key).
		for n := len(key); n >= 16; n-- {
			if i := strings.Index(string(b), key[:n]); i >= 0 {
				rel, _ := filepath.Rel(home, path)
				t.Errorf("%s holds %d bytes of the API key: …%s…", rel, n, b[max(i-60, 0):min(i+n+20, len(b))])
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sessions, _ := os.ReadDir(cfg.SessionsDir())
	if found < 5 || len(sessions) != len(scenarios) {
		t.Fatalf("the sweep read %d files, %d sessions for %d scenarios", found, len(sessions), len(scenarios))
	}
}
