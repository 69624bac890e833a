package askcmd

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

// fakeOllama answers the first request with a create_draft tool call and the
// second with a final answer, in Ollama's NDJSON stream format.
func fakeOllama(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		n++
		call := n
		mu.Unlock()
		line := func(v any) { b, _ := json.Marshal(v); w.Write(append(b, '\n')); w.(http.Flusher).Flush() }
		if call == 1 {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
				map[string]any{"function": map[string]any{"name": "create_draft", "arguments": map[string]any{"title": "Notes", "filename": "n.md", "content": "# Notes\n"}}}}}, "done": false})
		} else {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "I created a draft for you."}, "done": false})
		}
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAskRunsATurnWithToolsAndSavesTheSession(t *testing.T) {
	srv := fakeOllama(t)
	cfg := configtest.New(t)
	cfg.Chat.OllamaURL = srv.URL
	io, _, out, errb := iostreams.Test()
	if err := Run(context.Background(), io, cfg, func(string) string { return "" }, &Options{KBOnly: true}, "make me a notes draft"); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if !strings.Contains(out.String(), "I created a draft for you.") || !strings.Contains(errb.String(), "created draft Notes") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errb)
	}
	list, _ := (&chat.Sessions{Dir: cfg.SessionsDir()}).List()
	if len(list) != 1 || list[0].Spec != "ollama:qwen3-vl:30b" {
		t.Fatalf("sessions = %+v", list)
	}
}

// With the model unreachable, ask still answers from the knowledge base:
// labelled search results with their sources, and the reason on stderr.
func TestAskWithTheModelUnreachableAnswersBySearch(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Chat.OllamaURL = "http://127.0.0.1:1"
	cfg.Vault.Path = t.TempDir()
	os.WriteFile(filepath.Join(cfg.Vault.Path, "lease.md"), []byte("# Lease\nThe landlord returns the deposit within 30 days."), 0o644)
	eng, err := engine.Open(cfg) // indexed by keyword, as the tray would have done
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Refresher().Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	io, _, out, errb := iostreams.Test()
	err = Run(context.Background(), io, cfg, func(string) string { return "" }, &Options{}, "when does the landlord return the deposit?")
	if err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	for _, want := range []string{chat.OfflineLabel, "127.0.0.1:1", "within 30 days", "Sources:", "lease.md"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errb.String(), "no language model answered") {
		t.Fatalf("stderr:\n%s", errb)
	}
}

// scriptedOllama plays one tool call per request, then a final answer, in
// Ollama's NDJSON stream format.
func scriptedOllama(t *testing.T, calls []map[string]any, answer string) *httptest.Server {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		line := func(v any) { b, _ := json.Marshal(v); w.Write(append(b, '\n')); w.(http.Flusher).Flush() }
		if i < len(calls) {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"function": calls[i]}}}, "done": false})
		} else {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": answer}, "done": false})
		}
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// tomatoVault is a data dir whose vault holds one note,
// garden/tomatoes.md, with an embedder that knows its words and no
// reranker: what the tests of ask's use of the knowledge base share.
func tomatoVault(t *testing.T) *config.Config {
	t.Helper()
	cfg := configtest.New(t)
	root := t.TempDir()
	vaultDir := filepath.Join(root, "vault")
	os.MkdirAll(filepath.Join(vaultDir, "garden"), 0o755)
	note := "# Tomatoes\n\nTomato plants need full sun and deep watering.\n"
	os.WriteFile(filepath.Join(vaultDir, "garden", "tomatoes.md"), []byte(note), 0o644)
	models := filepath.Join(root, "bow")
	if err := embedtest.WriteEmbedder(models, embedtest.Words(note)); err != nil {
		t.Fatal(err)
	}
	cfg.Vault.Path, cfg.RAG.EmbedModel, cfg.RAG.RerankModel = vaultDir, models, ""
	return cfg
}

func TestAskSearchesTheKBCitesAndAsksBeforeRemoving(t *testing.T) {
	cfg := tomatoVault(t)
	srv := scriptedOllama(t, []map[string]any{
		{"name": "index_vault", "arguments": map[string]any{}},
		{"name": "search_kb", "arguments": map[string]any{"query": "tomato watering"}},
		{"name": "remove_document", "arguments": map[string]any{"source": "garden/tomatoes.md"}},
	}, "Water deeply [source: garden/tomatoes.md] and see [source: nowhere.md].")
	cfg.Chat.OllamaURL = srv.URL

	io, in, out, errb := iostreams.Test()
	in.WriteString("n\n") // decline the removal
	if err := Run(context.Background(), io, cfg, func(string) string { return "" }, &Options{KBOnly: true}, "tomatoes?"); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	for _, want := range []string{"Vault synced: 1 added", "searched \"tomato watering\": 1 results", "? Remove \"tomatoes\" from the knowledge base? Type: note. Source: vault note garden/tomatoes.md. 1 chunks.", "removal declined"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
	if !strings.Contains(errb.String(), "Water deeply [source: garden/tomatoes.md]") {
		t.Fatalf("the answer did not stream to stderr:\n%s", errb)
	}
	if !strings.Contains(out.String(), "Sources:\n  - garden/tomatoes.md") || strings.Contains(out.String(), "nowhere.md") {
		t.Fatalf("stdout:\n%s", out)
	}
}

// A proposal made through ask outlives the process: it is stored in the
// drafts tree, ask says where to review it, and the window's workspace
// (a fresh one over the same drafts dir) lists it and applies it.
func TestAskProposalWaitsForTheWindow(t *testing.T) {
	cfg := configtest.New(t)
	var mu sync.Mutex
	n := 0
	draftID := regexp.MustCompile(`Created draft (draft-[0-9a-f]+)`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		line := func(v any) { b, _ := json.Marshal(v); w.Write(append(b, '\n')); w.(http.Flusher).Flush() }
		call := func(name string, args map[string]any) {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
				map[string]any{"function": map[string]any{"name": name, "arguments": args}}}}, "done": false})
		}
		switch i {
		case 0:
			call("create_draft", map[string]any{"title": "Letter", "filename": "letter.md", "content": "Dear all,\nBest\n"})
		case 1:
			id := draftID.FindSubmatch(body)
			if id == nil {
				t.Errorf("no draft id in the second request: %s", body)
				return
			}
			call("propose_draft_edit", map[string]any{"draft_id": string(id[1]), "new_text": "Dear colleagues,\nBest\n", "summary": "warmer greeting"})
		default:
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "I proposed a warmer greeting."}, "done": false})
		}
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true})
	}))
	defer srv.Close()
	cfg.Chat.OllamaURL = srv.URL
	streams, _, _, errb := iostreams.Test()
	if err := Run(context.Background(), streams, cfg, func(string) string { return "" }, &Options{KBOnly: true}, "write and improve a letter"); err != nil {
		t.Fatalf("%v\n%s", err, errb)
	}
	if !strings.Contains(errb.String(), `"Waiting for review"`) || !strings.Contains(errb.String(), "nothing is written until you accept") {
		t.Fatalf("ask must say how to review the proposal:\n%s", errb)
	}
	window, err := drafts.New(cfg.Drafts.Dir, cfg.Drafts.Extensions, cfg.Drafts.MaxFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	waiting := window.Pending("")
	if len(waiting) != 1 || waiting[0].Summary != "warmer greeting" || waiting[0].Stale {
		t.Fatalf("the proposal is not waiting after ask exited: %+v", waiting)
	}
	if _, err := window.Apply(waiting[0].Token, []int{0}); err != nil {
		t.Fatal(err)
	}
	if text, _, _ := window.Read(waiting[0].DraftID, "letter.md"); text != "Dear colleagues,\nBest\n" {
		t.Fatalf("applied text: %q", text)
	}
}

// limitOllama is a model that calls a tool whenever it is offered tools
// and otherwise (the wrap-up request at the tool-call limit) answers
// "Part N.": with max_iterations = 1 every turn pauses at the limit.
func limitOllama(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	parts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Tools []any `json:"tools"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		line := func(v any) { b, _ := json.Marshal(v); w.Write(append(b, '\n')); w.(http.Flusher).Flush() }
		if len(req.Tools) > 0 {
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
				map[string]any{"function": map[string]any{"name": "list_drafts", "arguments": map[string]any{}}}}}, "done": false})
		} else {
			mu.Lock()
			parts++
			n := parts
			mu.Unlock()
			line(map[string]any{"message": map[string]any{"role": "assistant", "content": "Part " + strconv.Itoa(n) + "."}, "done": false})
		}
		line(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ask says when a task went on by itself at the tool-call limit: both
// parts of the answer reach stdout, stderr says a continuation happened,
// and the pause after it names --continue. With auto_continue = 0 it
// pauses at once.
func TestAskSaysATaskContinuedByItself(t *testing.T) {
	for _, auto := range []int{1, 0} {
		srv := limitOllama(t)
		cfg := configtest.New(t)
		cfg.Chat.OllamaURL, cfg.Chat.MaxIterations, cfg.Chat.AutoContinue = srv.URL, 1, auto
		io, _, out, errb := iostreams.Test()
		if err := Run(context.Background(), io, cfg, func(string) string { return "" }, &Options{KBOnly: true}, "list my drafts, then more"); err != nil {
			t.Fatalf("%v\n%s", err, errb)
		}
		stdout, stderr := out.String(), errb.String()
		if !strings.Contains(stderr, "--continue") {
			t.Fatalf("auto %d: the pause does not say how to go on:\n%s", auto, stderr)
		}
		switch auto {
		case 1:
			if !strings.Contains(stdout, "Part 1.") || !strings.Contains(stdout, "Part 2.") || strings.Index(stdout, "Part 1.") > strings.Index(stdout, "Part 2.") ||
				!strings.Contains(stderr, chat.AutoContinueStatus(1, 1)) {
				t.Fatalf("auto 1:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
		case 0:
			if !strings.Contains(stdout, "Part 1.") || strings.Contains(stdout, "Part 2.") || strings.Contains(stderr, "continuing automatically") {
				t.Fatalf("auto 0:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
		}
	}
}
