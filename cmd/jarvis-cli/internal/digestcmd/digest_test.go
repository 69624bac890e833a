package digestcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/digest/digesttest"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

type oneReply string

func (r oneReply) CompleteText(context.Context, string, int, int) (string, error) {
	return string(r), nil
}

// digestHome is the configuration of a fresh data directory that digests
// two cs.LG papers and nothing from bioRxiv, into a temporary folder.
func digestHome(t *testing.T) *config.Config {
	t.Helper()
	cfg := configtest.New(t)
	cfg.Digest.OutputDir = t.TempDir()
	cfg.Digest.ArxivCategories = []config.Quota{{Name: "cs.LG", Limit: 2}}
	cfg.Digest.BiorxivCategories, cfg.Digest.BiorxivKeywords = nil, nil
	return cfg
}

func TestDigestDisabledPrintsHowToEnable(t *testing.T) {
	io, _, out, _ := iostreams.Test()
	cfg := config.Defaults()
	cmd := New(io, func() (*config.Config, error) { return &cfg, nil }, &Options{})
	cmd.SetArgs([]string{"run"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "jarvis-cli config set digest.enabled true") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestDigestForceRunsAndPrintsCounts(t *testing.T) {
	srv := digesttest.ServeArxiv(t, "")
	cfg := digestHome(t)
	io, _, out, _ := iostreams.Test()
	opts := &Options{
		Arxiv: &digest.Arxiv{BaseURL: srv.URL, HTTP: srv.Client(), PageSize: 10, Delay: time.Millisecond, Retry: digest.Retry{Attempts: 1}},
		LLM:   oneReply(`[{"id":0,"score":9},{"id":1,"score":4}]`),
	}
	cmd := New(io, func() (*config.Config, error) { return cfg, nil }, opts)
	cmd.SetArgs([]string{"run", "--force"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fetched 2 papers (2 unique), selected 2", "digest: " + cfg.Digest.OutputDir, "indexed: 0 full text, 1 summary fallback"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// digest.arxiv_url and digest.biorxiv_url point the real clients at a
// mirror or, here, a loopback server speaking both APIs.
func TestDigestRunUsesTheConfiguredServers(t *testing.T) {
	feed := digesttest.Feed(t)
	details, err := os.ReadFile("../../../../backend/digest/testdata/biorxiv_page.json")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		switch {
		case r.URL.Path == "/api/query":
			w.Write(feed)
		case strings.HasPrefix(r.URL.Path, "/biorxiv/details/biorxiv/"):
			w.Write(details)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cfg := digestHome(t)
	cfg.Digest.ArxivURL, cfg.Digest.BiorxivURL = srv.URL+"/api/query", srv.URL+"/biorxiv"
	cfg.Digest.BiorxivCategories = []config.Quota{{Name: "bioinformatics", Limit: 1}}
	io, _, out, _ := iostreams.Test()
	cmd := New(io, func() (*config.Config, error) { return cfg, nil }, &Options{LLM: oneReply(`[{"id":0,"score":5},{"id":1,"score":4},{"id":2,"score":3}]`)})
	cmd.SetArgs([]string{"run", "--force"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "fetched 3 papers") {
		t.Fatalf("output:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(paths, "/api/query") || !slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, "/biorxiv/details/") }) {
		t.Fatalf("requests: %q", paths)
	}
}

// A digest run with a cloud model leaves one ledger record for the
// scoring request (public abstracts: no knowledge-base document) and one
// per paper summary naming that paper, one record per request on the wire.
func TestADigestRunIsInTheLedgerRequestByRequest(t *testing.T) {
	arxiv := digesttest.ServeArxiv(t, "")
	var mu sync.Mutex
	requests := 0
	anthropic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(name string, v any) {
			j, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, j)
		}
		ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
			"model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": `[{"id":0,"score":9},{"id":1,"score":4}]`}})
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 5}})
		ev("message_stop", map[string]any{"type": "message_stop"})
	}))
	defer anthropic.Close()
	cfg := digestHome(t)
	cfg.Chat.Provider, cfg.Anthropic.BaseURL = "anthropic:claude-test", anthropic.URL
	io, _, out, _ := iostreams.Test()
	getenv := func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "sk-ant-test-0000"
		}
		return ""
	}
	opts := &Options{Arxiv: &digest.Arxiv{BaseURL: arxiv.URL, HTTP: arxiv.Client(), PageSize: 10, Delay: time.Millisecond, Retry: digest.Retry{Attempts: 1}}, Getenv: getenv}
	cmd := New(io, func() (*config.Config, error) { return cfg, nil }, opts)
	cmd.SetArgs([]string{"run", "--force"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	book, err := ledger.Open(cfg.LedgerDir(), cfg.Ledger.KeepDays)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	rs, err := book.List(context.Background(), ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(rs) != requests {
		t.Fatalf("%d records for %d requests", len(rs), requests)
	}
	scoring := 0
	for _, r := range rs {
		if r.Provider != "anthropic" || r.Local || r.Outcome != ledger.OK || r.Body == "" || strings.Contains(r.Body, "sk-ant-test-0000") {
			t.Errorf("record: %+v", r)
		}
		switch r.Purpose {
		case ledger.PurposeDigest:
			scoring++
			if len(r.Sources) != 0 {
				t.Errorf("the scoring request carries no knowledge-base document: %+v", r.Sources)
			}
		case ledger.PurposeSummary:
			if len(r.Sources) != 1 || !strings.Contains(r.Sources[0].Key, "arxiv.org") {
				t.Errorf("a summary names its paper: %+v", r.Sources)
			}
		default:
			t.Errorf("unexpected purpose %q", r.Purpose)
		}
	}
	if scoring != 1 {
		t.Fatalf("%d scoring records, want 1 (%+v)", scoring, rs)
	}
}
