package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/kbtools/kbtoolstest"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/mcpserver"
	"github.com/jarvis-kb/jarvis/backend/mcpserver/mcptest"
)

// The private canary: no byte of any MCP answer may hold it.
const canary = "zqxcanary"

// vaultNotes are public and private notes, private records among them,
// with the canary in private bodies, titles, paths and frontmatter.
var vaultNotes = map[string]string{
	"garden/compost.md":         "# Compost\n\nTurn the compost heap weekly; the grant paid for the bins.\n",
	"meetings/tanaka-feb.md":    "---\ncategory: meeting\nentity: Tanaka\ndate: 2026-02-10\n---\n# Tanaka in February\n\nTalked about the grant.\n",
	"meetings/tanaka-mar.md":    "---\ncategory: meeting\nentity: Tanaka\ndate: 2026-03-12\n---\n# Tanaka in March\n\nThe grant was approved.\n",
	"meetings/tanaka-apr.md":    "---\ncategory: meeting\nentity: Tanaka\ndate: 2026-04-02\n---\n# Tanaka in April\n\nBudget for the grant.\n",
	"private/diary.md":          "# Diary " + canary + "\n\nWorried about the grant " + canary + " budget.\n",
	"private/" + canary + ".md": "---\ncategory: meeting\nentity: Tanaka\ndate: 2026-03-20\nmood: " + canary + "\n---\n# Tanaka " + canary + "\n\nThe grant, privately.\n",
}

type fixture struct {
	cfg    *config.Config
	ag     *agent.Agent
	model  *mcptest.Ollama
	server *mcpserver.Server
}

// newFixture is a data dir with an indexed vault, a local model behind a
// loopback Ollama, and the MCP server over them.
func newFixture(t *testing.T, allowPrivate bool) *fixture {
	t.Helper()
	return newFixtureOf(t, allowPrivate, vaultNotes)
}

// newFixtureOf is newFixture over the given notes.
func newFixtureOf(t *testing.T, allowPrivate bool, notes map[string]string) *fixture {
	t.Helper()
	return newFixtureWith(t, allowPrivate, notes, agent.Options{})
}

// newFixtureWith is newFixtureOf with the agent's options (its paper
// servers, say).
func newFixtureWith(t *testing.T, allowPrivate bool, notes map[string]string, o agent.Options) *fixture {
	t.Helper()
	root := t.TempDir()
	kbtoolstest.WriteVault(t, root, notes)
	cfg := configtest.New(t)
	model := &mcptest.Ollama{}
	srv := httptest.NewServer(model)
	t.Cleanup(srv.Close)
	cfg.Vault.Path, cfg.Vault.PrivateDirs = root, []string{"private"}
	cfg.Chat.Provider, cfg.Chat.OllamaURL = "ollama:local:test", srv.URL
	o.Getenv = func(string) string { return "" }
	ag, err := agent.New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	if ag.EngineErr != nil {
		t.Fatal(ag.EngineErr)
	}
	if _, err := ag.Engine.Refresher().Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	log := mcpserver.NewCallLog(cfg.MCPDir(), nil)
	return &fixture{cfg: cfg, ag: ag, model: model, server: mcpserver.New(ag, mcpserver.Options{Version: "test", AllowPrivate: allowPrivate, Log: log})}
}

// connect is the official SDK's client over an in-memory transport.
func (f *fixture) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "9.9"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its whole result as the client received
// it, JSON, and the structured part decoded into out (when not nil).
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (*mcp.CallToolResult, []byte) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, _ := json.Marshal(res)
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return res, raw
}

// callOK is call for a call that must succeed: a tool error ends the
// test with the tool's message.
func callOK(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) []byte {
	t.Helper()
	res, raw := call(t, cs, name, args, out)
	if res.IsError {
		t.Fatal(errorText(res))
	}
	return raw
}

func errorText(res *mcp.CallToolResult) string {
	if !res.IsError || len(res.Content) == 0 {
		return ""
	}
	if t, ok := res.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}

func TestToolsAreListedWithSchemasAndNoneDeletes(t *testing.T) {
	cs := newFixture(t, false).connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: description, input and output schema are all needed", tl.Name)
		}
		if strings.Contains(tl.Name, "remove") || strings.Contains(tl.Name, "delete") {
			t.Errorf("a tool that deletes is served: %s", tl.Name)
		}
	}
	for _, name := range []string{"search", "get_document", "list_documents", "query_records", "recent", "ask", "add_paper", "create_draft", "propose_draft_edit", "list_drafts", "read_draft"} {
		if tools[name] == nil {
			t.Errorf("tool %s is missing", name)
		}
	}
	schema, _ := json.Marshal(tools["search"].InputSchema)
	for _, want := range []string{`"required":["query"]`, `"enum":["all","papers","notes","chat"]`} {
		if !bytes.Contains(schema, []byte(want)) {
			t.Errorf("search schema lacks %s: %s", want, schema)
		}
	}
}

func TestSearchServesThePublicPoolOnlyAndLogsTheCall(t *testing.T) {
	f := newFixture(t, false)
	cs := f.connect(t)
	var out mcpserver.SearchOut
	raw := callOK(t, cs, "search", map[string]any{"query": "grant"}, &out)
	if bytes.Contains(bytes.ToLower(raw), []byte(canary)) || bytes.Contains(raw, []byte("private/")) {
		t.Fatalf("private material in a search answer:\n%s", raw)
	}
	if len(out.Results) != 4 || out.Mode != "keyword" || out.Note == "" {
		t.Fatalf("want the 4 public notes by keyword, with the note on keyword search: %+v", out)
	}
	for _, h := range out.Results {
		if h.Citation == "" || h.Source == "" || !strings.HasPrefix(h.URI, "jarvis://doc/") || h.Text == "" {
			t.Errorf("hit without citation, source, URI or text: %+v", h)
		}
	}

	entries, err := mcpserver.NewCallLog(f.cfg.MCPDir(), nil).Tail(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("want one logged call, got %+v", entries)
	}
	e := entries[0]
	if e.Client != "test-client" || e.ClientVersion != "9.9" || e.Name != "search" || !strings.Contains(e.Args, "grant") || len(e.Sources) != 4 || e.Bytes < len(out.Results[0].Text) {
		t.Errorf("log entry = %+v", e)
	}
	// The user, not the client, learns that private matches were held back.
	if e.Withheld != 2 {
		t.Errorf("withheld = %d, want the 2 private matches", e.Withheld)
	}
	st, err := os.Stat(filepath.Join(f.cfg.MCPDir(), mcpserver.LogFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("call log mode: %v %v", st.Mode(), err)
	}
}

// A private document answers exactly like a missing one, in tools and in
// resources.
func TestPrivateDocumentsAnswerLikeMissingOnes(t *testing.T) {
	cs := newFixture(t, false).connect(t)
	private, _ := call(t, cs, "get_document", map[string]any{"source": "private/diary.md"}, nil)
	missing, _ := call(t, cs, "get_document", map[string]any{"source": "private/nothere.md"}, nil)
	if !private.IsError || strings.ReplaceAll(errorText(private), "diary", "nothere") != errorText(missing) {
		t.Errorf("private vs missing:\n%s\n%s", errorText(private), errorText(missing))
	}
	var doc mcpserver.DocumentOut
	if res, _ := call(t, cs, "get_document", map[string]any{"source": "garden/compost.md"}, &doc); res.IsError || len(doc.Parts) == 0 || !strings.Contains(doc.Parts[0].Text, "compost heap") {
		t.Errorf("public document: %s %+v", errorText(res), doc)
	}

	ctx := context.Background()
	_, perr := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ResourceURI("private/diary.md")})
	_, merr := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ResourceURI("private/nothere.md")})
	if perr == nil || merr == nil || strings.ReplaceAll(perr.Error(), "diary", "nothere") != merr.Error() {
		t.Errorf("private vs missing resource:\n%v\n%v", perr, merr)
	}
	got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.ResourceURI("garden/compost.md")})
	if err != nil || len(got.Contents) != 1 || !strings.Contains(got.Contents[0].Text, "compost heap") {
		t.Fatalf("public resource: %v %+v", err, got)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(list)
	if len(list.Resources) != 4 || bytes.Contains(bytes.ToLower(raw), []byte(canary)) || bytes.Contains(raw, []byte("private")) {
		t.Errorf("resources/list: want the 4 public notes only:\n%s", raw)
	}
}

// An entity's timeline: its records oldest first, each with a source id,
// and nothing private for a client that is not allowed private material.
func TestTimelineFollowsAnEntityInDateOrder(t *testing.T) {
	cs := newFixture(t, false).connect(t)
	var out mcpserver.TimelineOut
	raw := callOK(t, cs, "timeline", map[string]any{"entity": "Tanaka"}, &out)
	var records []string
	for _, it := range out.Items {
		if it.Source == "" || it.URI == "" {
			t.Errorf("an item without a source: %+v", it)
		}
		if it.Record {
			records = append(records, it.Source+"@"+it.Date)
		}
	}
	if strings.Join(records, " ") != "meetings/tanaka-feb.md@2026-02-10 meetings/tanaka-mar.md@2026-03-12 meetings/tanaka-apr.md@2026-04-02" {
		t.Errorf("Tanaka's records = %v", records)
	}
	if bytes.Contains(bytes.ToLower(raw), []byte(canary)) {
		t.Errorf("a private record is in the timeline:\n%s", raw)
	}
	if res, _ := call(t, cs, "timeline", map[string]any{"entity": "  "}, nil); !res.IsError {
		t.Error("a timeline of nobody was answered")
	}
}

func TestQueryRecordsFiltersByDateAndSorts(t *testing.T) {
	cs := newFixture(t, false).connect(t)
	var out mcpserver.DocsOut
	raw := callOK(t, cs, "query_records", map[string]any{"category": "meeting", "entity": "Tanaka", "from": "2026-03", "sort": "date_desc"}, &out)
	var got []string
	for _, d := range out.Documents {
		got = append(got, d.Source+"@"+d.Date)
	}
	if strings.Join(got, " ") != "meetings/tanaka-apr.md@2026-04-02 meetings/tanaka-mar.md@2026-03-12" {
		t.Errorf("meetings with Tanaka since March, newest first = %v", got)
	}
	if bytes.Contains(bytes.ToLower(raw), []byte(canary)) {
		t.Errorf("a private record is listed:\n%s", raw)
	}
	res, _ := call(t, cs, "query_records", map[string]any{"sort": "sideways"}, nil)
	if !strings.Contains(errorText(res), "unknown sort") && !strings.Contains(errorText(res), "sort") {
		t.Errorf("a bad sort: %q", errorText(res))
	}
	var recent mcpserver.DocsOut
	if res, _ := call(t, cs, "recent", map[string]any{}, &recent); res.IsError || len(recent.Documents) != 4 || recent.Documents[0].Changed == "" {
		t.Errorf("recent: %s %+v", errorText(res), recent)
	}
	if res, _ := call(t, cs, "recent", map[string]any{"since": "2999-01-01"}, &recent); res.IsError || len(recent.Documents) != 0 {
		t.Errorf("nothing changed after 2999: %s %+v", errorText(res), recent)
	}
}

// ask runs Jarvis's answer loop on the local model, but as a public-only
// session: the model is shown public passages only, and the answer keeps
// only citations of what was retrieved.
func TestAskAnswersFromThePublicPoolWithRetrievedCitations(t *testing.T) {
	f := newFixture(t, false)
	cs := f.connect(t)
	var out mcpserver.AskOut
	raw := callOK(t, cs, "ask", map[string]any{"question": "What did the grant pay for?"}, &out)
	if !strings.Contains(out.Answer, "compost bins") || len(out.Citations) != 1 || out.Citations[0].Source != "garden/compost.md" || out.SessionID == "" {
		t.Fatalf("answer = %+v", out)
	}
	if bytes.Contains(raw, []byte("private/diary.md")) {
		t.Errorf("an unretrieved citation survived:\n%s", raw)
	}
	if seen := f.model.Seen(); bytes.Contains(bytes.ToLower(seen), []byte(canary)) || !bytes.Contains(seen, []byte("compost")) {
		t.Errorf("the model of an MCP ask must see public passages only:\n%s", seen)
	}
	// A follow-up continues the same conversation.
	var again mcpserver.AskOut
	if res, _ := call(t, cs, "ask", map[string]any{"question": "And the bins?", "session_id": out.SessionID}, &again); res.IsError || again.SessionID != out.SessionID {
		t.Errorf("follow-up: %s %+v", errorText(res), again)
	}
}

func TestAllowPrivateServesPrivateNotes(t *testing.T) {
	cs := newFixture(t, true).connect(t)
	var out mcpserver.SearchOut
	if res, _ := call(t, cs, "search", map[string]any{"query": "grant"}, &out); res.IsError || len(out.Results) != 6 {
		t.Fatalf("allow_private: want all 6 notes: %s %d", errorText(res), len(out.Results))
	}
}

func TestDraftToolsCreateAndProposeWithoutWriting(t *testing.T) {
	f := newFixture(t, false)
	cs := f.connect(t)
	var made mcpserver.DraftOut
	if res, _ := call(t, cs, "create_draft", map[string]any{"title": "Grant report", "content": "The grant paid for bins.\n"}, &made); res.IsError || made.DraftID == "" {
		t.Fatalf("create_draft: %s %+v", errorText(res), made)
	}
	var proposed mcpserver.DraftOut
	res, _ := call(t, cs, "propose_draft_edit", map[string]any{"draft_id": made.DraftID, "new_text": "The grant paid for three bins.\n", "summary": "count"}, &proposed)
	if res.IsError || !strings.Contains(proposed.Message, "review") {
		t.Fatalf("propose_draft_edit: %s %+v", errorText(res), proposed)
	}
	text, _, err := f.ag.Drafts.Read(made.DraftID, "draft.md")
	if err != nil || text != "The grant paid for bins.\n" {
		t.Errorf("a proposal changed the file before review: %q %v", text, err)
	}
	if pending := f.ag.Drafts.Pending(made.DraftID); len(pending) != 1 {
		t.Errorf("want one proposal waiting for review: %d", len(pending))
	}
}

// stuckOllama accepts a chat and never answers, until the request is
// cancelled; it reports each cancellation.
type stuckOllama struct{ cancelled chan struct{} }

func (s *stuckOllama) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/chat" {
		io.WriteString(w, `{"models":[{"name":"local:test"}]}`)
		return
	}
	io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
	<-r.Context().Done()
	s.cancelled <- struct{}{}
}

// A client that gives up on an ask (notifications/cancelled) stops the
// turn: the model's request is cancelled and nothing of it is kept.
func TestACancelledAskStopsTheTurn(t *testing.T) {
	f := newFixture(t, false)
	stuck := &stuckOllama{cancelled: make(chan struct{}, 4)}
	srv := httptest.NewServer(stuck)
	defer srv.Close()
	f.cfg.Chat.OllamaURL = srv.URL
	cs := f.connect(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": "What did the grant pay for?"}})
	if err == nil {
		t.Fatal("the ask did not end with its context")
	}
	select {
	case <-stuck.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the model's request was not cancelled")
	}
	// The client's call ends with its context; the server's turn winds
	// down just after (the model's request is cancelled first), so the
	// conversation may still be there for a moment, never for good.
	var sessions []chat.Summary
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var errList []error
		if sessions, errList = f.ag.Sessions.List(); len(errList) > 0 {
			t.Fatal(errList)
		}
		if len(sessions) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(sessions) != 0 {
		t.Errorf("a cancelled ask left a conversation behind: %+v", sessions)
	}
	// The connection is still good.
	var out mcpserver.SearchOut
	if res, _ := call(t, cs, "search", map[string]any{"query": "compost"}, &out); res.IsError || len(out.Results) == 0 {
		t.Errorf("search after a cancelled call: %s", errorText(res))
	}
}

// Another process (here another handle on the same data dir, as the tray
// is) indexes a new note: a running server finds it without a restart.
func TestTheServerSeesNotesIndexedElsewhere(t *testing.T) {
	f := newFixture(t, false)
	cs := f.connect(t)
	if err := os.WriteFile(filepath.Join(f.cfg.Vault.Path, "garden", "worms.md"), []byte("# Worms\n\nThe wormery needs shredded cardboard.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := agent.New(f.cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil || other.EngineErr != nil {
		t.Fatal(err, other.EngineErr)
	}
	defer other.Close()
	if _, err := other.Engine.Refresher().Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out mcpserver.SearchOut
	if res, _ := call(t, cs, "search", map[string]any{"query": "wormery"}, &out); res.IsError || len(out.Results) != 1 || out.Results[0].Source != "garden/worms.md" {
		t.Errorf("a note indexed by another process: %s %+v", errorText(res), out)
	}
}

// An MCP client's ask is recorded in the ledger like any chat turn: one
// record per model request, for its session, naming the public notes it
// carried and no private one.
func TestAnAskIsRecordedInTheLedger(t *testing.T) {
	f := newFixture(t, false)
	cs := f.connect(t)
	var out mcpserver.AskOut
	callOK(t, cs, "ask", map[string]any{"question": "What did the grant pay for?"}, &out)
	book, err := ledger.Shared(f.cfg.LedgerDir(), f.cfg.Ledger.KeepDays)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := book.List(context.Background(), ledger.Filter{Session: out.SessionID})
	if err != nil || len(rs) < 2 {
		t.Fatalf("%d records for an ask that searched, then answered: %v", len(rs), err)
	}
	var carried []string
	for _, r := range rs {
		if r.Purpose != ledger.PurposeChat || !r.Local || r.Outcome != ledger.OK {
			t.Errorf("record %+v", r)
		}
		for _, s := range r.Sources {
			carried = append(carried, s.Key)
		}
	}
	if !slices.Contains(carried, "garden/compost.md") {
		t.Fatalf("the records do not name the note the answer used: %v", carried)
	}
	for _, k := range carried {
		if strings.HasPrefix(k, "private/") {
			t.Fatalf("a private note is named: %v", carried)
		}
	}
}

// query_records orders and bounds by another frontmatter field when the
// client names one.
func TestQueryRecordsByAnotherField(t *testing.T) {
	notes := map[string]string{
		"jobs/a.md": "---\ncategory: job_application\ndeadline: 2026-05-01\n---\n# A\n\nApplied.\n",
		"jobs/b.md": "---\ncategory: job_application\ndeadline: 2026-03-15\n---\n# B\n\nApplied.\n",
		"jobs/d.md": "---\ncategory: job_application\ndeadline: 2026-04-02\n---\n# D\n\nApplied.\n",
	}
	cs := newFixtureOf(t, false, notes).connect(t)
	var out mcpserver.DocsOut
	callOK(t, cs, "query_records", map[string]any{"category": "job_application", "field": "deadline", "from": "2026-04", "sort": "date_asc"}, &out)
	var got []string
	for _, d := range out.Documents {
		got = append(got, d.Source)
	}
	if strings.Join(got, " ") != "jobs/d.md jobs/a.md" {
		t.Fatalf("due from April, soonest first = %v", got)
	}
}
