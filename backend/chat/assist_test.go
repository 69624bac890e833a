package chat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/prompts"
)

// A past exchange comes back as a 300-character excerpt, cut on a character
// boundary even inside Chinese text, with its citation intact.
func TestChatHistoryResultsAreCappedAt300Characters(t *testing.T) {
	f := newKB(t)
	h := &HistoryIndexer{Store: f.eng.Store, Embed: f.eng.Embedder()}
	reply := "Tomato seedlings need deep watering. " + strings.Repeat("番茄幼苗需要深度浇水。", 60) + "FINAL-SENTENCE-MARKER"
	r, a := newRunner(t, func(context.Context, llm.TurnRequest) (llm.TurnResult, error) {
		return llm.TurnResult{Reply: reply}, nil
	})
	r.History, r.Tools = h, f.tools
	done, _ := r.Start(context.Background(), a, "how should I water tomato seedlings?", func(Event) {})
	<-done
	ctx, _, _ := turnCtx()
	out, err := f.tools.Dispatch(ctx, local2, call("search_chat_history", map[string]any{"query": "watering tomato seedlings"}), func(Event) {})
	if err != nil || !strings.Contains(out.Content, "[source: chat:"+a.ID+"]") {
		t.Fatalf("%v\n%s", err, out.Content)
	}
	if strings.Contains(out.Content, "FINAL-SENTENCE-MARKER") || !utf8.ValidString(out.Content) {
		t.Fatalf("the exchange came back whole or cut mid-character:\n%s", out.Content)
	}
	body := between(t, out.Content, BeginData, EndData)
	for _, exchange := range strings.Split(body, "\n--- ")[1:] {
		lines := strings.SplitN(exchange, "\n", 2)
		text := strings.TrimSpace(lines[len(lines)-1])
		if n := utf8.RuneCountInString(text); n > historyExcerptChars || !strings.HasSuffix(text, "…") {
			t.Fatalf("an excerpt of %d characters (cap %d): %q", n, historyExcerptChars, text)
		}
	}
}

func between(t *testing.T, s, begin, end string) string {
	t.Helper()
	i, j := strings.Index(s, begin), strings.LastIndex(s, end)
	if i < 0 || j < i {
		t.Fatalf("no retrieved-data block in %q", s)
	}
	return s[i+len(begin) : j]
}

// Without a storage mode add_document adds nothing and tells the model to
// ask the user; an unknown mode is refused.
func TestAddDocumentAsksForTheStorageMode(t *testing.T) {
	f := newKB(t)
	f.tools.Tools["add_document"] = AddDocumentTool(f.kb, &Papers{Papers: kbtools.Papers{Options: ingest.Options{ChunkSize: 1024}}})
	local, _ := filepath.Abs("../pdf/testdata/annotated.pdf")
	ctx, _, _ := turnCtx()
	before, _ := f.eng.Store.Count(context.Background())
	out, err := f.tools.Dispatch(ctx, local2, call("add_document", map[string]any{"source": local}), func(Event) {})
	if err != nil || out.IsError || !strings.Contains(out.Content, "Ask the user") || !strings.Contains(out.Content, "mode=full_text") {
		t.Fatalf("%v %+v", err, out)
	}
	if after, _ := f.eng.Store.Count(context.Background()); after.Chunks != before.Chunks {
		t.Fatalf("a paper was added without a mode: %d → %d chunks", before.Chunks, after.Chunks)
	}
	// A bad argument is the model's to fix: an error result, not a failed turn.
	if out, err := f.tools.Dispatch(ctx, local2, call("add_document", map[string]any{"source": local, "mode": "abstract"}), func(Event) {}); err != nil || !out.IsError || !strings.Contains(out.Content, `unknown mode "abstract"`) {
		t.Fatalf("unknown mode: %v %+v", err, out)
	}
	out, err = f.tools.Dispatch(ctx, local2, call("add_document", map[string]any{"source": local, "mode": "full_text"}), func(Event) {})
	if err != nil || !strings.Contains(out.Content, "Added") {
		t.Fatalf("with the user's mode the paper is added: %v %+v", err, out)
	}
}

// The shipped system prompt states what a removal does, in the words the
// removal previews use, and tells the model to ask for a storage mode.
func TestShippedSystemPromptCarriesTheRemovalNotice(t *testing.T) {
	sys, err := prompts.Default(prompts.System)
	if err != nil {
		t.Fatal(err)
	}
	notice := strings.ToLower(strings.TrimPrefix(kbtools.RemoveNotice, "Database entry only — "))
	if !strings.Contains(strings.ToLower(sys), notice) {
		t.Fatalf("the system prompt lacks %q", notice)
	}
	if !strings.Contains(sys, "summary or the full text") {
		t.Fatal("the system prompt does not ask for the storage mode")
	}
	if _, err := os.Stat("../../prompts/system_prompt.md"); err != nil {
		t.Fatalf("shipped prompt file: %v", err)
	}
}

// inbox_status names a failed file with its reason; a file that resolves
// into a private folder is absent for a cloud model and makes a local
// session private.
func TestInboxStatusToolFollowsPrivacy(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rows := []ingest.InboxFile{
		{Name: "damaged.pdf", State: ingest.InboxFailed, Error: "pdf.Open: no pages (damaged)", At: at},
		{Name: "journal-scan.pdf", State: ingest.InboxWaiting, Private: true},
		{Name: "paper.pdf", State: ingest.InboxIndexed, Title: "Sparse Attention"},
	}
	tool := InboxTool(func(context.Context) ([]ingest.InboxFile, error) { return rows, nil })
	ctx, l, _ := turnCtx()
	out, _, err := tool.Run(ctx, cloud, nil)
	if err != nil || !strings.Contains(out, "damaged.pdf: failed 2026-11-30 09:00: pdf.Open: no pages (damaged)") ||
		!strings.Contains(out, `paper.pdf: indexed as "Sparse Attention"`) || !strings.Contains(out, "1 failed, 0 waiting, 1 indexed") {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "journal-scan") || l.Private() {
		t.Fatalf("the private file reached the cloud model:\n%s", out)
	}
	ctx, l, _ = turnCtx()
	out, _, _ = tool.Run(ctx, local2, nil)
	if !strings.Contains(out, "journal-scan.pdf: waiting") || !l.Private() {
		t.Fatalf("a local model sees it, and the turn becomes private: %v\n%s", l.Private(), out)
	}
}

// A vault note's citation carries its Obsidian wikilink, with the heading
// of the cited section; a paper's does not.
func TestVaultCitationsCarryTheirWikilink(t *testing.T) {
	f := newKB(t)
	ctx, l, _ := turnCtx()
	if _, err := f.tools.Dispatch(ctx, local2, call("search_kb", map[string]any{"query": "Section 7 of the long tomato manual"}), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range l.since(0) {
		if c.Source == "manual/long.md" {
			found = true
			if !strings.HasPrefix(c.Wikilink, "[[manual/long#Part ") {
				t.Fatalf("citation %+v", c)
			}
		}
	}
	if !found {
		t.Fatalf("the long manual was not cited: %+v", l.since(0))
	}
	if paper := kbtools.CitationOf(kb.Chunk{Meta: kb.Metadata{Source: "https://arxiv.org/abs/2401.01234", DocType: kb.DocPaper}}); paper.Wikilink != "" {
		t.Fatalf("a paper has no wikilink: %+v", paper)
	}
}
