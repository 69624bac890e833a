package llm

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm/wiretest"
)

// echoServer answers every request with the body body() returns, under the
// given status and content type.
func echoServer(t *testing.T, status int, contentType string, body func() string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		io.WriteString(w, body())
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestKeyStraddlingTheErrorCutIsRedacted places the key at every offset
// around the length an error body is shortened to: redaction runs on the
// whole text first, so no piece of the key survives the cut.
func TestKeyStraddlingTheErrorCutIsRedacted(t *testing.T) {
	key := wiretest.Keys["anthropic"]
	bodies := map[string]func(off int) string{
		"plain text": func(off int) string { return strings.Repeat("x", off) + key + strings.Repeat("y", 64) },
		"JSON error": func(off int) string {
			b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "authentication_error", "message": strings.Repeat("x", off) + key + " tail"}})
			return string(b)
		},
	}
	for name, body := range bodies {
		for off := errorBodyShown - len(key) - 40; off <= errorBodyShown+2; off++ {
			url := echoServer(t, http.StatusUnauthorized, "application/json", func() string { return body(off) })
			a := &Anthropic{BaseURL: url, APIKey: key, ModelID: "m", Redact: Redactor{key}.Redact}
			_, err := a.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 10, 0)
			if err == nil {
				t.Fatal("no error")
			}
			if wiretest.Leaks(err.Error(), key) {
				t.Fatalf("%s, key at offset %d: a piece of the key survived: …%s", name, off, err.Error()[max(0, len(err.Error())-80):])
			}
		}
	}
}

// TestKeyInLongStreamErrorsIsRedacted covers the same cut for error events
// inside a stream, on both SSE providers, and for Ollama's error lines.
func TestKeyInLongStreamErrorsIsRedacted(t *testing.T) {
	key := wiretest.Keys["openrouter"]
	redact := Redactor{key}.Redact
	for off := errorBodyShown - len(key) - 20; off <= errorBodyShown+2; off += 3 {
		msg := strings.Repeat("m", off) + key + "!"
		anth, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
		or, _ := json.Marshal(map[string]any{"error": map[string]any{"code": "server_error", "message": msg}, "choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "error"}}})
		oll, _ := json.Marshal(map[string]any{"error": msg})
		providers := map[string]Provider{
			"anthropic":  &Anthropic{BaseURL: echoServer(t, 200, "text/event-stream", func() string { return "event: error\ndata: " + string(anth) + "\n\n" }), APIKey: key, ModelID: "m", Redact: redact},
			"openrouter": &OpenRouter{BaseURL: echoServer(t, 200, "text/event-stream", func() string { return "data: " + string(or) + "\n\n" }), APIKey: key, ModelID: "m", Redact: redact},
			"ollama":     &Ollama{BaseURL: echoServer(t, 200, "application/x-ndjson", func() string { return string(oll) + "\n" }), ModelID: "m", Redact: redact},
		}
		for name, p := range providers {
			_, err := p.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 10, 0)
			if !errs.Is(err, errs.LLM) {
				t.Fatalf("%s: %v", name, err)
			}
			if wiretest.Leaks(err.Error(), key) {
				t.Fatalf("%s, key at offset %d survived", name, off)
			}
		}
	}
}

// TestKeyPastTheReadCapIsNotHalfShown: a body longer than what is read
// loses a tail longer than any key, so a key cut by the read cap cannot
// appear without its end.
func TestKeyPastTheReadCapIsNotHalfShown(t *testing.T) {
	key := wiretest.Keys["anthropic"]
	for _, off := range []int{errorBodyRead - len(key)/2, errorBodyRead - 1, errorBodyRead - len(key)} {
		got := readErrorBody(strings.NewReader(strings.Repeat("z", off) + key + strings.Repeat("z", 100)))
		if wiretest.Leaks(RedactSecrets(string(got), []string{key}), key) {
			t.Fatalf("offset %d: part of the key was kept", off)
		}
	}
}

// TestStatusLineAndTransportErrorsAreRedacted: a server that puts the key
// where net/http quotes it back (a malformed status line) has it scrubbed.
func TestStatusLineAndTransportErrorsAreRedacted(t *testing.T) {
	key := wiretest.Keys["openrouter"]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, _ := w.(http.Hijacker).Hijack()
		defer conn.Close()
		buf.WriteString("HTTP/1.1 " + key + " OK\r\n\r\n")
		buf.Flush()
	}))
	defer srv.Close()
	o := &OpenRouter{BaseURL: srv.URL, APIKey: key, ModelID: "m", Redact: Redactor{key}.Redact}
	_, err := o.Complete(context.Background(), []Message{Text(RoleUser, "q")}, 10, 0)
	if err == nil || wiretest.Leaks(err.Error(), key) || !strings.Contains(err.Error(), Redacted) {
		t.Fatalf("err = %v", err)
	}
}

// TestStopCancelsARetryWait: a Stop during the wait a 529 asked for ends the
// turn at once as cancelled, with no further request.
func TestStopCancelsARetryWait(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("retry-after", "20")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer srv.Close()
	a := &Anthropic{BaseURL: srv.URL, APIKey: "k", ModelID: "m"}
	var waiting atomic.Bool
	assertStopsWithin200ms(t, func(ctx context.Context) error {
		ctx = WithStatus(ctx, func(line string) {
			waiting.Store(strings.Contains(line, "Anthropic is overloaded — retrying in 20 s, 2 of 4"))
		})
		_, err := a.AgenticTurn(ctx, TurnRequest{Messages: []Message{Text(RoleUser, "q")}})
		return err
	})
	if !waiting.Load() || requests.Load() != 1 {
		t.Fatalf("waiting %v, %d requests", waiting.Load(), requests.Load())
	}
}
