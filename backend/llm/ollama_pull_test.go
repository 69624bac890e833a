package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// pullServer speaks Ollama's /api/pull (NDJSON progress, then success or an
// error line) and /api/generate (a preload answers done at once).
func pullServer(t *testing.T, block chan struct{}) (*httptest.Server, *[]map[string]any) {
	var seen []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		body["path"] = r.URL.Path
		seen = append(seen, body)
		switch {
		case r.URL.Path == "/api/generate":
			io.WriteString(w, `{"model":"qwen3:4b","done":true,"done_reason":"load"}`)
		case body["model"] == "nosuch:1b":
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "{\"status\":\"pulling manifest\"}\n{\"error\":\"pull model manifest: file does not exist\"}\n")
		default:
			f := w.(http.Flusher)
			io.WriteString(w, "{\"status\":\"pulling manifest\"}\n")
			for i := int64(1); i <= 4; i++ {
				fmt.Fprintf(w, "{\"status\":\"pulling 6a0746a1ec1a\",\"digest\":\"sha256:6a07\",\"total\":400,\"completed\":%d}\n", i*100)
				f.Flush()
				if block != nil && i == 2 {
					<-block // the client cancels here
					return
				}
			}
			io.WriteString(w, "{\"status\":\"verifying sha256 digest\"}\n{\"status\":\"writing manifest\"}\n{\"status\":\"success\"}\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestOllamaPullReportsProgressAndErrors(t *testing.T) {
	srv, seen := pullServer(t, nil)
	o := &Ollama{BaseURL: srv.URL, ModelID: "qwen3:4b"}
	var lines []PullProgress
	if err := o.Pull(context.Background(), "qwen3:4b", func(p PullProgress) { lines = append(lines, p) }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 8 || lines[4].Completed != 400 || lines[4].Total != 400 || lines[7].Status != "success" {
		t.Fatalf("progress: %+v", lines)
	}
	if (*seen)[0]["model"] != "qwen3:4b" || (*seen)[0]["stream"] != true {
		t.Fatalf("request: %+v", (*seen)[0])
	}
	err := o.Pull(context.Background(), "nosuch:1b", nil)
	if !errs.Is(err, errs.LLM) || !strings.Contains(err.Error(), "file does not exist") || errs.HintOf(err) == "" {
		t.Fatalf("a missing model: %v", err)
	}
	if err := o.Pull(context.Background(), " ", nil); !errs.Is(err, errs.Invalid) {
		t.Fatalf("no name: %v", err)
	}
	if err := o.Preload(context.Background(), "30m"); err != nil {
		t.Fatal(err)
	}
	if last := (*seen)[len(*seen)-1]; last["path"] != "/api/generate" || last["keep_alive"] != "30m" || last["model"] != "qwen3:4b" || last["prompt"] != nil {
		t.Fatalf("preload request: %+v", last)
	}
}

func TestOllamaPullStopsWhenCancelled(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	srv, _ := pullServer(t, block)
	o := &Ollama{BaseURL: srv.URL}
	ctx, cancel := context.WithCancel(context.Background())
	var last PullProgress
	err := o.Pull(ctx, "qwen3:4b", func(p PullProgress) {
		last = p
		if p.Completed == 200 {
			cancel()
		}
	})
	if !errs.Is(err, errs.Cancelled) || last.Completed != 200 {
		t.Fatalf("cancelled pull: %v after %+v", err, last)
	}
}
