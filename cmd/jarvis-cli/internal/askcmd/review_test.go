package askcmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// scriptedAnthropic plays one tool call per request in Anthropic's
// streaming Messages format, then a final answer; it keeps the bodies.
func scriptedAnthropic(t *testing.T, calls []map[string]any, answer string) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		i := len(bodies)
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name string, v any) {
			j, _ := json.Marshal(v)
			io.WriteString(w, "event: "+name+"\ndata: "+string(j)+"\n\n")
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
			"model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
		stop := "end_turn"
		if i < len(calls) {
			args, _ := json.Marshal(calls[i]["arguments"])
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": calls[i]["name"], "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
			stop = "tool_use"
		} else {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": answer}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 5}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), bodies...) }
}

// reviewConfig is a data dir with one note, a cloud chat model and
// ask-before-sending on.
func reviewConfig(t *testing.T) (*config.Config, func() []string) {
	t.Helper()
	cfg := tomatoVault(t)
	srv, bodies := scriptedAnthropic(t, []map[string]any{
		{"name": "index_vault", "arguments": map[string]any{}},
		{"name": "search_kb", "arguments": map[string]any{"query": "tomato watering"}},
	}, "Something was withheld.")
	cfg.Chat.Provider, cfg.Anthropic.BaseURL, cfg.Ledger.AskBeforeSending = "anthropic:claude-test", srv.URL, true
	return cfg, bodies
}

func key(name string) string {
	if name == "ANTHROPIC_API_KEY" {
		return "sk-ant-test-0000"
	}
	return ""
}

// On a terminal, ask shows each passage a cloud model would get and
// withholds the ones the person names; the model gets the placeholder.
func TestAskOnATerminalReviewsWhatACloudModelIsSent(t *testing.T) {
	cfg, bodies := reviewConfig(t)
	io, in, _, errb := iostreams.Test()
	io.Terminal = true
	in.WriteString("w 9\nw 1\n") // a passage that does not exist is asked again
	if err := Run(context.Background(), io, cfg, key, &Options{KBOnly: true}, "tomatoes?"); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	for _, want := range []string{"? Send 1 passage from 1 document (", "to anthropic:claude-test?", "1. tomatoes — Tomatoes [garden/tomatoes.md]",
		"│ Tomato plants need full sun and deep watering.", "· answer s, c, or w with passage numbers from 1 to 1", "withheld 1 of 1 passages"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	sent := bodies()
	if len(sent) != 3 {
		t.Fatalf("%d requests", len(sent))
	}
	if strings.Contains(sent[2], "deep watering") || !strings.Contains(sent[2], chat.WithheldPassage) {
		t.Fatalf("the withheld passage went, or no placeholder did:\n%s", sent[2])
	}
}

// Without a terminal there is nobody to ask: ask refuses before sending
// anything, and says how to go on.
func TestAskWithoutATerminalRefusesToSendUnreviewed(t *testing.T) {
	cfg, bodies := reviewConfig(t)
	io, _, _, errb := iostreams.Test()
	err := Run(context.Background(), io, cfg, key, &Options{KBOnly: true}, "tomatoes?")
	if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "no terminal to ask on") || !strings.Contains(errs.HintOf(err), "ledger.ask_before_sending = false") {
		t.Fatalf("err = %v (hint %q)\n%s", err, errs.HintOf(err), errb)
	}
	if n := len(bodies()); n != 0 {
		t.Fatalf("%d requests were sent", n)
	}
}

func TestParseDecision(t *testing.T) {
	for line, want := range map[string]string{"\n": "send", "s\n": "send", "c\n": "cancel", "w 2, 3\n": "withhold [1 2]", "w\n": "?", "w 4\n": "?", "x\n": "?", "c now\n": "?"} {
		d, ok := parseDecision(line, 3)
		got := "?"
		switch {
		case !ok:
		case !d.Send:
			got = "cancel"
		case len(d.Withhold) > 0:
			b, _ := json.Marshal(d.Withhold)
			got = "withhold " + strings.ReplaceAll(strings.Trim(string(b), "[]"), ",", " ")
			got = "withhold [" + strings.TrimPrefix(got, "withhold ") + "]"
		default:
			got = "send"
		}
		if got != want {
			t.Errorf("%q → %s, want %s", line, got, want)
		}
	}
}
