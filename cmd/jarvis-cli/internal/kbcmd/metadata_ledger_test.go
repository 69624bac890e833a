package kbcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// anthropicReplying is a loopback Anthropic Messages API that streams
// reply as one text block and keeps the bodies it was sent.
func anthropicReplying(t *testing.T, reply string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		if r.URL.Path != "/v1/messages" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name string, v map[string]any) {
			data, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
			"model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 40, "output_tokens": 1}}})
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": reply}})
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 12}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

// TestAddingALocalPDFRecordsItsMetadataRequest: `kb add` of a local PDF
// whose authors the file does not give asks the configured (cloud) model for
// its metadata, through the real client and the shared ledger. That one
// request leaves exactly one record, for "paper metadata", naming the
// paper by its path; full-text mode with no figures asks nothing else.
func TestAddingALocalPDFRecordsItsMetadataRequest(t *testing.T) {
	cfg, _ := e2e(t)
	const key = "sk-ant-test-metadata-key-0001"
	srv, sent := anthropicReplying(t, `{"title": "Inferred by the model", "authors": "Ada Model; Bo Guess"}`)
	cfg.Chat.Provider, cfg.Chat.AnthropicModel = "anthropic", "claude-test"
	cfg.Anthropic.BaseURL, cfg.Anthropic.APIKey = srv.URL, key
	paper, err := filepath.Abs("../../../../backend/pdf/testdata/annotated.pdf")
	if err != nil {
		t.Fatal(err)
	}

	out, err := run(t, cfg, "", "add", paper, "--full-text")
	if err != nil || !strings.Contains(out, "added paper") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	bodies := sent()
	if len(bodies) != 1 {
		t.Fatalf("%d requests to the model, want 1 (the metadata)", len(bodies))
	}
	// The model's answer was used: the page gives a title but no authors
	// the reader recognises, so those come from the model.
	s, err := openStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := s.Document(context.Background(), kb.Filter{Source: "file://" + filepath.ToSlash(paper)})
	s.Close()
	if err != nil || len(chunks) == 0 {
		t.Fatalf("stored paper: %v, %d chunks", err, len(chunks))
	}
	if got := chunks[0].Meta.Authors; got != "Ada Model; Bo Guess" {
		t.Fatalf("authors %q: the model's metadata was not used", got)
	}

	book, err := ledger.Open(cfg.LedgerDir(), cfg.Ledger.KeepDays)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	all, err := book.List(context.Background(), ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("%d ledger records for one request: %+v", len(all), all)
	}
	r := all[0]
	if r.Purpose != ledger.PurposeMetadata {
		t.Errorf("purpose %q, want %q", r.Purpose, ledger.PurposeMetadata)
	}
	if len(r.Sources) != 1 || r.Sources[0].Key != paper {
		t.Errorf("sources %+v, want the paper %s", r.Sources, paper)
	}
	if r.Provider != "anthropic" || r.Model != "claude-test" || r.Local || r.Outcome != ledger.OK || r.Session != "" {
		t.Errorf("record: %+v", r)
	}
	if r.RequestBytes != int64(len(bodies[0])) || r.ResponseBytes == 0 || r.InputTokens != 40 || r.OutputTokens != 12 {
		t.Errorf("sizes: request %d B (sent %d), response %d B, tokens %d+%d", r.RequestBytes, len(bodies[0]), r.ResponseBytes, r.InputTokens, r.OutputTokens)
	}
	if !strings.Contains(r.Body, "first page of a research paper") || strings.Contains(r.Body, key) {
		t.Errorf("kept body (redacted metadata prompt expected): %q", r.Body)
	}
	// The paper's own filter finds it, as `jarvis-cli ledger --source` does.
	if bySource, err := book.List(context.Background(), ledger.Filter{Source: paper, Purpose: ledger.PurposeMetadata}); err != nil || len(bySource) != 1 || bySource[0].ID != r.ID {
		t.Errorf("by source: %v %+v", err, bySource)
	}
}
