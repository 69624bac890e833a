package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The demo's local model server also manages models as Ollama does, so the
// setup panel's "Download" runs end to end against the real client: GET
// /api/tags lists what is installed (the scripted "demo" and whatever was
// pulled), POST /api/pull streams Ollama's NDJSON progress lines ({status,
// digest, total, completed}, then "success") slowly enough to be watched
// and cancelled, and POST /api/generate with no prompt is the preload
// (keep_alive) a chat's opening sends. GET /ollama/received hands back what
// the pull and generate endpoints were sent, in order, with whether a pull
// was cut off before it finished: the e2e test checks the preload on it.

// pullSteps and pullPace shape a pull: pullSteps progress lines for the
// model's one layer, pullPace apart (six seconds in all, time for the e2e
// test to watch it, screenshot it and cancel one).
const pullSteps = 40

var pullPace = 150 * time.Millisecond

// ollamaRequest is one request the model-management endpoints received.
type ollamaRequest struct {
	Path string          `json:"path"`
	Body json.RawMessage `json:"body"`
	// Cut is set on a pull the client stopped before "success".
	Cut bool `json:"cut,omitempty"`
}

// ollamaState is the fake's installed models and what it was sent.
var ollamaState = struct {
	sync.Mutex
	installed []string
	received  []*ollamaRequest
}{installed: []string{"demo"}}

// pullSizes are the download sizes of the recommended models, in bytes, so
// the progress a pull reports matches the size the panel states.
var pullSizes = map[string]int64{"qwen3:4b": 2_500_000_000, "llama3.2:3b": 2_000_000_000, "qwen3:8b": 5_200_000_000, "gemma3:4b": 3_300_000_000}

// record keeps a request body and returns its entry (for marking it cut).
func record(path string, body json.RawMessage) *ollamaRequest {
	ollamaState.Lock()
	defer ollamaState.Unlock()
	e := &ollamaRequest{Path: path, Body: body}
	ollamaState.received = append(ollamaState.received, e)
	return e
}

// serveOllamaModels mounts the model-management endpoints on mux.
func serveOllamaModels(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/tags", func(w http.ResponseWriter, r *http.Request) {
		ollamaState.Lock()
		defer ollamaState.Unlock()
		models := []any{}
		for _, name := range ollamaState.installed {
			models = append(models, map[string]any{"name": name, "model": name, "digest": strings.TrimPrefix(digest(name), "sha256:")})
		}
		json.NewEncoder(w).Encode(map[string]any{"models": models})
	})
	mux.HandleFunc("GET /ollama/received", func(w http.ResponseWriter, r *http.Request) {
		ollamaState.Lock()
		defer ollamaState.Unlock()
		json.NewEncoder(w).Encode(append([]*ollamaRequest{}, ollamaState.received...)) // [] rather than null
	})
	mux.HandleFunc("POST /api/generate", func(w http.ResponseWriter, r *http.Request) {
		var raw json.RawMessage
		var req struct {
			Model  string `json:"model"`
			Prompt string `json:"prompt"`
		}
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &req) != nil {
			http.Error(w, `{"error":"invalid JSON"}`, http.StatusBadRequest)
			return
		}
		record("/api/generate", raw)
		if !installed(req.Model) {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "model '" + req.Model + "' not found"})
			return
		}
		// An empty prompt loads the model and answers at once, as Ollama does.
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "created_at": time.Now().UTC().Format(time.RFC3339Nano),
			"response": "", "done": true, "done_reason": "load"})
	})
	mux.HandleFunc("POST /api/pull", func(w http.ResponseWriter, r *http.Request) {
		var raw json.RawMessage
		var req struct {
			Model string `json:"model"`
			Name  string `json:"name"` // the older spelling
		}
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil || json.Unmarshal(raw, &req) != nil {
			http.Error(w, `{"error":"invalid JSON"}`, http.StatusBadRequest)
			return
		}
		e := record("/api/pull", raw)
		name := req.Model
		if name == "" {
			name = req.Name
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		line := func(v any) {
			b, _ := json.Marshal(v)
			w.Write(append(b, '\n'))
			w.(http.Flusher).Flush()
		}
		total, ok := pullSizes[name]
		if !ok {
			// Ollama answers an unknown name with an error line in the stream.
			line(map[string]any{"status": "pulling manifest"})
			line(map[string]any{"error": "pull model manifest: file does not exist"})
			return
		}
		line(map[string]any{"status": "pulling manifest"})
		d := digest(name)
		for i := 0; i <= pullSteps; i++ {
			select {
			case <-r.Context().Done():
				ollamaState.Lock()
				e.Cut = true
				ollamaState.Unlock()
				return
			case <-time.After(pullPace):
			}
			line(map[string]any{"status": "pulling " + d[7:19], "digest": d, "total": total, "completed": total * int64(i) / pullSteps})
		}
		for _, s := range []string{"verifying sha256 digest", "writing manifest"} {
			line(map[string]any{"status": s})
		}
		ollamaState.Lock()
		if !contains(ollamaState.installed, name) {
			ollamaState.installed = append(ollamaState.installed, name)
		}
		ollamaState.Unlock()
		line(map[string]any{"status": "success"})
	})
}

// installed reports whether the fake has name (with or without ":latest").
func installed(name string) bool {
	ollamaState.Lock()
	defer ollamaState.Unlock()
	return contains(ollamaState.installed, strings.TrimSuffix(name, ":latest"))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// digest is a stable layer digest for a model name, as Ollama spells one.
func digest(name string) string {
	sum := sha256.Sum256([]byte(name))
	return "sha256:" + hex.EncodeToString(sum[:])
}
