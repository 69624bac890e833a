package chat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// create_draft_from copies a vault note as it is on disk, a paper from its
// chunks; a private source makes a private draft and a private turn, and a
// cloud session is told a private source does not exist.
func TestCreateDraftFromReadsTheKnowledgeBase(t *testing.T) {
	f := newKB(t)
	ws, err := drafts.New(filepath.Join(t.TempDir(), "drafts"), []string{".md"}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	f.tools.Tools["create_draft_from"] = DraftTools(&drafts.Agent{W: ws, ReadSource: f.kb.ReadSource})["create_draft_from"]
	paper, _ := filepath.Abs("../pdf/testdata/annotated.pdf")
	res, err := ingest.BuildPaper(context.Background(), ingest.Paper{Path: paper, Mode: ingest.FullText}, ingest.Options{ChunkSize: 90, ChunkOverlap: 40})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.eng.Store.Ingest(context.Background(), f.eng.Embedder(), res.Chunks, nil); err != nil {
		t.Fatal(err)
	}
	draft := func(s *Session, source string) (string, *Ledger) {
		t.Helper()
		ctx, l, _ := turnCtx()
		out, err := f.tools.Dispatch(ctx, s, call("create_draft_from", map[string]any{"source": source, "filename": "copy.md"}), func(Event) {})
		if err != nil {
			t.Fatal(err)
		}
		return out.Content, l
	}
	read := func(out string) (*drafts.Draft, string) {
		t.Helper()
		id := strings.Fields(out)[2]
		d, err := ws.Get(id)
		if err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		text, _, _ := ws.Read(id, "copy.md")
		return d, text
	}

	out, l := draft(cloud, "garden/tomatoes.md")
	if d, text := read(out); text != vaultNotes["garden/tomatoes.md"] || d.Visibility != drafts.Public || d.Title != "tomatoes" || l.Private() {
		t.Fatalf("vault note: %+v %q", d, text)
	}
	out, _ = draft(cloud, res.Source)
	d, text := read(out)
	if d.Visibility != drafts.Public || d.Title != res.Title || !strings.Contains(text, "accuracy") {
		t.Fatalf("paper: %+v\n%s", d, text)
	}
	// The paragraph cut into overlapping chunks reads as it was written.
	const intro = "Transformers compare every token with every other token, which is costly. We show that sparse attention keeps accuracy while cutting memory use. Our method selects a few global tokens and a sliding local window."
	if flat := strings.Join(strings.Fields(text), " "); strings.Count(flat, intro) != 1 {
		t.Fatalf("paper text:\n%s", text)
	}
	out, l = draft(local, "private/diary.md")
	if d, text := read(out); d.Visibility != drafts.Private || !strings.Contains(text, "grant budget") || !l.Private() {
		t.Fatalf("private note, local session: %+v %q %v", d, text, l.Private())
	}
	hiddenLikeMissing(t, f, "create_draft_from", "source", "private/diary.md", "private/none.md", "filename", "copy.md")
	os.WriteFile(filepath.Join(f.root, "garden", "fresh.md"), []byte("# Fresh\n\nNot indexed yet.\n"), 0o644)
	if out, _ := draft(cloud, "garden/fresh.md"); !strings.Contains(out, "Created draft") {
		t.Fatalf("an unindexed vault note: %s", out)
	}
}

// add_document refuses a PDF that resolves into a private vault folder from
// wherever it is named; a cloud session is told no such PDF exists.
func TestAddDocumentClassifiesTheResolvedPath(t *testing.T) {
	f := newKB(t)
	f.tools.Tools["add_document"] = AddDocumentTool(f.kb, &Papers{Papers: kbtools.Papers{Options: ingest.Options{ChunkSize: 1024}}})
	pdf, _ := os.ReadFile("../pdf/testdata/annotated.pdf")
	os.WriteFile(filepath.Join(f.root, "private", "scan.pdf"), pdf, 0o644)
	link := filepath.Join(t.TempDir(), "scan.pdf")
	os.Symlink(filepath.Join(f.root, "private", "scan.pdf"), link)
	for _, p := range []string{link, filepath.Join(f.root, "garden", "..", "private", "scan.pdf")} {
		ctx, _, _ := turnCtx()
		if _, err := f.tools.Dispatch(ctx, local, call("add_document", map[string]any{"source": p, "mode": "full_text"}), func(Event) {}); !errs.Is(err, errs.Privacy) {
			t.Fatalf("%s: %v", p, err)
		}
	}
	hiddenLikeMissing(t, f, "add_document", "source", link, filepath.Join(t.TempDir(), "none.pdf"), "mode", "full_text")
	if c, _ := f.eng.Store.CountWhere(context.Background(), kb.Filter{DocTypes: []string{kb.DocPaper}}); c.Chunks != 0 {
		t.Fatalf("a private PDF was stored: %+v", c)
	}
}

// The withheld notice is for the user: it is shown with the reply but never
// indexed into chat history, where a later cloud session could find it.
// Secrets in tool results never reach the transcript or the session file.
func TestWithheldLineStaysLocalAndSecretsStayOut(t *testing.T) {
	f := newKB(t)
	const secret = "sk-secret-123456"
	h := &HistoryIndexer{Store: f.eng.Store, Embed: f.eng.Embedder(), Redact: llm.Redactor{secret}.Redact}
	r, _ := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		out, err := req.Dispatch(ctx, llm.Block{ID: "1", Name: "search_kb", Arguments: map[string]any{"query": "tomato grant"}})
		if err != nil || strings.Contains(out.Content, secret) {
			return llm.TurnResult{}, err
		}
		out, _ = req.Dispatch(ctx, llm.Block{ID: "2", Name: "leak", Arguments: map[string]any{}})
		if strings.Contains(out.Content, secret) {
			return llm.TurnResult{Reply: "the tool result carried the key"}, nil
		}
		return llm.TurnResult{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, Content: "key " + secret}}}},
			Reply: "Tomatoes like sun [source: garden/tomatoes.md]."}, nil
	})
	f.tools.Tools["leak"] = Tool{Def: llm.Tool{Name: "leak"}, Run: func(context.Context, *Session, map[string]any) (string, string, error) {
		return "upstream said: bad key " + secret, "leak", nil
	}}
	r.Tools, r.History = f.tools, h
	r.Sessions.Redact = llm.Redactor{secret}.Redact
	s := r.Sessions.New(llm.Spec{Provider: "anthropic", Model: "claude"}, false)
	done, err := r.Start(context.Background(), s, "tomatoes? my key is "+secret, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	last := s.Display[len(s.Display)-1]
	if !strings.HasSuffix(last.Text, last.Withheld) || !strings.Contains(last.Withheld, "withheld from this cloud model") || strings.Contains(last.Text, "carried the key") {
		t.Fatalf("reply %+v", last)
	}
	chunks, _ := f.eng.Store.Document(context.Background(), kb.Filter{Source: ChatSource(s.ID)})
	if len(chunks) != 1 || strings.Contains(chunks[0].Content, "withheld") || strings.Contains(chunks[0].Content, secret) {
		t.Fatalf("indexed exchange: %+v", chunks)
	}
	b, _ := os.ReadFile(filepath.Join(r.Sessions.Dir, s.ID+".json"))
	if len(b) == 0 || strings.Contains(string(b), secret) {
		t.Fatalf("session file holds the key:\n%s", b)
	}
}
