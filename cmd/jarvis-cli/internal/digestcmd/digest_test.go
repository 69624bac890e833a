package digestcmd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

type oneReply string

func (r oneReply) CompleteText(context.Context, string, int, int) (string, error) {
	return string(r), nil
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
	feed, err := os.ReadFile("../../../../backend/digest/testdata/arxiv_page.xml")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(feed) }))
	defer srv.Close()
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, _ := config.Load()
	cfg.Digest.OutputDir = t.TempDir()
	cfg.Digest.ArxivCategories = []config.Quota{{Name: "cs.LG", Limit: 2}}
	cfg.Digest.BiorxivCategories, cfg.Digest.BiorxivKeywords = nil, nil
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
	feed, err := os.ReadFile("../../../../backend/digest/testdata/arxiv_page.xml")
	if err != nil {
		t.Fatal(err)
	}
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
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, _ := config.Load()
	cfg.Digest.OutputDir = t.TempDir()
	cfg.Digest.ArxivURL, cfg.Digest.BiorxivURL = srv.URL+"/api/query", srv.URL+"/biorxiv"
	cfg.Digest.ArxivCategories = []config.Quota{{Name: "cs.LG", Limit: 2}}
	cfg.Digest.BiorxivCategories, cfg.Digest.BiorxivKeywords = []config.Quota{{Name: "bioinformatics", Limit: 1}}, nil
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
