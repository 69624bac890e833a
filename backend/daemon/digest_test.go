package daemon

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/digest/digesttest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// With rag.figure_captions on, a paper the digest scores 9 or more is
// indexed in full text with its figures captioned by the configured model
// (a loopback server speaking Ollama's protocol scores and captions).
func TestDigestCaptionsFiguresOfTopPapers(t *testing.T) {
	arxiv := digesttest.ServeArxiv(t, "../pdf/testdata/paper.pdf")
	var captions atomic.Int32
	ollama := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/tags" {
			w.Write([]byte(`{"models":[]}`))
			return
		}
		body, _ := io.ReadAll(r.Body)
		reply := `[{"id":0,"score":9,"summary":"MoE for cytometry.","reason":"methods","track":"ml"},{"id":1,"score":5}]`
		if strings.Contains(string(body), `"images"`) {
			captions.Add(1)
			reply = "A bar chart of accuracy by window size."
		}
		line := func(v any) { b, _ := json.Marshal(v); w.Write(append(b, '\n')) }
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": reply}, "done": false})
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop"})
	}))
	defer ollama.Close()
	cfg := configtest.New(t)
	cfg.Chat.Provider, cfg.Chat.OllamaURL = "ollama", ollama.URL
	cfg.Digest.OutputDir = t.TempDir()
	cfg.Digest.ArxivCategories = []config.Quota{{Name: "cs.LG", Limit: 2}}
	cfg.Digest.BiorxivCategories, cfg.Digest.BiorxivKeywords = nil, nil
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = "", ""
	cfg.RAG.FigureCaptions, cfg.RAG.FigureMinPixels = true, 1000
	svc := &Services{Cfg: cfg, Getenv: func(string) string { return "" }}
	defer svc.Close()
	ax := digesttest.Client(arxiv)
	ax.Delay = time.Millisecond
	out, err := svc.RunDigest(context.Background(), DigestOptions{Arxiv: ax})
	if err != nil || out.FullText != 1 {
		t.Fatalf("%v %+v", err, out)
	}
	e, err := svc.Engine()
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := e.Store.Document(context.Background(), kb.Filter{Source: "https://arxiv.org/abs/2611.01234"})
	if err != nil {
		t.Fatal(err)
	}
	figures := 0
	for _, c := range chunks {
		if c.Meta.AnnotationKind == "figure" && strings.Contains(c.Content, "bar chart") {
			figures++
		}
	}
	if figures == 0 || captions.Load() == 0 {
		t.Fatalf("a paper scored 9 has %d captioned figures (%d caption calls) of %d chunks", figures, captions.Load(), len(chunks))
	}
}
