package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/digest/digesttest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/mcpserver"
)

// arxivServer is digesttest's loopback arXiv (the Atom feed of a query,
// the PDF); with hold set, the PDF never comes: the request is reported
// (started), then its cancellation (cancelled).
type arxivServer struct {
	arxiv              *digesttest.Arxiv
	hold               bool
	started, cancelled chan struct{}
}

func (a *arxivServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	if a.hold && strings.HasPrefix(r.URL.Path, "/pdf/") {
		a.started <- struct{}{}
		<-r.Context().Done()
		a.cancelled <- struct{}{}
		return
	}
	a.arxiv.ServeHTTP(w, r)
}

func newArxiv(t *testing.T, hold bool) (*arxivServer, agent.Options) {
	t.Helper()
	a := &arxivServer{arxiv: digesttest.NewArxiv(t, "../pdf/testdata/annotated.pdf"), hold: hold,
		started: make(chan struct{}, 4), cancelled: make(chan struct{}, 4)}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return a, agent.Options{Arxiv: digesttest.Client(srv)}
}

// connectWithProgress connects a client that collects the progress
// messages the server sends.
func (f *fixture) connectWithProgress(t *testing.T) (*mcp.ClientSession, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "9.9"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Message)
			mu.Unlock()
		}})
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

// add_paper fetches the paper, tells a client that asked for progress
// what it is doing, files it as a public paper a search then finds, and
// names it in the call log.
func TestAddPaperReportsProgressAndFilesAPublicPaper(t *testing.T) {
	_, o := newArxiv(t, false)
	f := newFixtureWith(t, false, vaultNotes, o)
	cs, progress := f.connectWithProgress(t)
	params := &mcp.CallToolParams{Name: "add_paper", Arguments: map[string]any{"source": "arXiv:2611.01234"}}
	params.SetProgressToken("add-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("add_paper: %v %s", err, errorText(res))
	}
	var out mcpserver.PaperOut
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	const abs = "https://arxiv.org/abs/2611.01234"
	if len(out.Added) != 1 || out.Added[0].Source != abs || !strings.Contains(out.Message, "public paper") {
		t.Fatalf("add_paper answered %+v", out)
	}
	// Progress arrives as notifications, which may trail the result a little.
	want := []string{"looking up arXiv:2611.01234", "downloading the PDF of", "reading and indexing"}
	deadline := time.Now().Add(5 * time.Second)
	for len(progress()) < len(want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := progress()
	if len(got) != len(want) {
		t.Fatalf("progress %q, want %d steps", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("step %d = %q, want it to start %q", i, got[i], w)
		}
	}
	docs, err := f.ag.Engine.Store.Document(context.Background(), kb.Filter{Source: abs})
	if err != nil || len(docs) == 0 || docs[0].Meta.Visibility != kb.Public || docs[0].Meta.DocType != kb.DocPaper {
		t.Fatalf("stored: %v %+v", err, docs)
	}
	var found mcpserver.SearchOut
	if res, _ := call(t, cs, "search", map[string]any{"query": "cytometry", "kind": "papers"}, &found); res.IsError || len(found.Results) == 0 || found.Results[0].Source != abs {
		t.Errorf("search for the added paper: %s %+v", errorText(res), found)
	}
	entries, err := mcpserver.NewCallLog(f.cfg.MCPDir(), nil).Tail(0)
	if err != nil {
		t.Fatal(err)
	}
	var logged bool
	for _, e := range entries {
		if e.Name == "add_paper" && len(e.Sources) == 1 && e.Sources[0] == abs {
			logged = true
		}
	}
	if !logged {
		t.Errorf("the call log does not name the added paper: %+v", entries)
	}
}

// A client that gives up while the PDF downloads cancels the download:
// nothing is stored, no temporary file is left, and the connection goes on.
func TestAddPaperStopsWhenTheClientCancels(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	a, o := newArxiv(t, true)
	f := newFixtureWith(t, false, vaultNotes, o)
	cs, _ := f.connectWithProgress(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the PDF's request has reached the server.
		select {
		case <-a.started:
			cancel()
		case <-time.After(30 * time.Second):
		}
	}()
	params := &mcp.CallToolParams{Name: "add_paper", Arguments: map[string]any{"source": "https://arxiv.org/abs/2611.01234"}}
	params.SetProgressToken(7)
	if _, err := cs.CallTool(ctx, params); err == nil {
		t.Fatal("the call did not end with its context")
	}
	select {
	case <-a.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the PDF download was not cancelled")
	}
	// The tool returns once the download fails; give it that moment.
	deadline := time.Now().Add(5 * time.Second)
	for {
		left, _ := os.ReadDir(tmp)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a cancelled add left %v in the temporary dir", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if docs, err := f.ag.Engine.Store.Document(context.Background(), kb.Filter{Source: "https://arxiv.org/abs/2611.01234"}); err != nil || len(docs) != 0 {
		t.Errorf("a cancelled add stored %d chunks (%v)", len(docs), err)
	}
	var out mcpserver.SearchOut
	if res, _ := call(t, cs, "search", map[string]any{"query": "compost"}, &out); res.IsError || len(out.Results) == 0 {
		t.Errorf("search after a cancelled add: %s", errorText(res))
	}
}
