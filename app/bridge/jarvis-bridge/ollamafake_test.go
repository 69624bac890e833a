package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// The demo's Ollama fake, driven by the real client: a pull streams
// progress up to the model's size and installs it, a cancelled pull is
// recorded as cut and installs nothing, and the preload is recorded with
// its keep_alive.
func TestOllamaFakePullCancelAndPreload(t *testing.T) {
	defer func(p time.Duration) { pullPace = p }(pullPace)
	pullPace = time.Millisecond
	mux := http.NewServeMux()
	serveOllamaModels(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	o := &llm.Ollama{BaseURL: srv.URL, ModelID: "qwen3:4b"}
	var lines []llm.PullProgress
	if err := o.Pull(ctx, "qwen3:4b", func(p llm.PullProgress) { lines = append(lines, p) }); err != nil {
		t.Fatal(err)
	}
	if n := len(lines); n != pullSteps+5 || lines[0].Status != "pulling manifest" || lines[n-1].Status != "success" {
		t.Fatalf("progress lines: %+v", lines)
	}
	layer := lines[pullSteps+1]
	if layer.Total != 2_500_000_000 || layer.Completed != layer.Total || lines[2].Completed <= lines[1].Completed {
		t.Fatalf("the layer's progress does not climb to its size: %+v", lines[1:pullSteps+2])
	}
	names, err := llm.InstalledModels(ctx, nil, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 2 || names[1] != "qwen3:4b" {
		t.Fatalf("installed after the pull: %v", names)
	}

	// A pull cancelled midway: cut, and the model is not installed.
	pullPace = 20 * time.Millisecond
	cctx, cancel := context.WithCancel(ctx)
	err = o.Pull(cctx, "llama3.2:3b", func(p llm.PullProgress) {
		if p.Completed > 0 {
			cancel()
		}
	})
	if errs.CodeOf(err) != errs.Cancelled {
		t.Fatalf("a cancelled pull: %v", err)
	}
	if err := o.Preload(ctx, "30m"); err != nil {
		t.Fatal(err)
	}
	var got []ollamaRequest
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get(srv.URL + "/ollama/received")
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if len(got) == 3 && got[1].Cut || time.Now().After(deadline) {
			break
		}
	}
	if len(got) != 3 || got[0].Path != "/api/pull" || got[0].Cut || !got[1].Cut || got[2].Path != "/api/generate" {
		t.Fatalf("received: %+v", got)
	}
	var pre struct {
		Model     string `json:"model"`
		KeepAlive string `json:"keep_alive"`
	}
	if err := json.Unmarshal(got[2].Body, &pre); err != nil || pre.Model != "qwen3:4b" || pre.KeepAlive != "30m" {
		t.Fatalf("the preload: %s (%v)", got[2].Body, err)
	}
	if installed("llama3.2:3b") {
		t.Fatal("a cancelled pull installed its model")
	}
}
