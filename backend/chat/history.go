package chat

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// ChatSource is the knowledge-base source of a session's exchanges.
func ChatSource(id string) string { return "chat:" + id }

// HistoryIndexer puts finished exchanges into the knowledge base as
// doc_type "chat", so later sessions can search them. Indexing follows the
// display list (what the human saw), which compaction never shrinks.
type HistoryIndexer struct {
	Store *kb.Store
	Embed kb.Embedder
	// Redact scrubs secrets from the text before it is stored (nil: none).
	Redact func(string) string
}

// exchanges pairs user messages with the assistant reply that followed.
func exchanges(d []DisplayItem) [][2]DisplayItem {
	var out [][2]DisplayItem
	for i := 0; i+1 < len(d); i++ {
		if d[i].Role == "user" && d[i+1].Role == "assistant" {
			out = append(out, [2]DisplayItem{d[i], d[i+1]})
			i++
		}
	}
	return out
}

// Index adds the session's exchanges not indexed yet, and, when the session
// has become private, re-marks every chunk it already has as private. The
// caller saves the session afterwards (IndexedExchanges moved).
func (h *HistoryIndexer) Index(ctx context.Context, s *Session) error {
	source := ChatSource(s.ID)
	vis := kb.Public
	if s.Private {
		vis = kb.Private
		if _, err := h.Store.UpdateFields(ctx, kb.Filter{Source: source, Visibility: []string{kb.Public}}, map[string]any{"visibility": kb.Private}); err != nil {
			return err
		}
	}
	all := exchanges(s.Display)
	if s.IndexedExchanges >= len(all) {
		return nil
	}
	var chunks []kb.Chunk
	for i, ex := range all[s.IndexedExchanges:] {
		// The line about withheld private matches was for the user; it is
		// not part of what was said and is never indexed.
		reply := strings.TrimSuffix(ex[1].Text, withheldSep+ex[1].Withheld)
		text := "User: " + ex[0].Text + "\nAssistant: " + reply
		if h.Redact != nil {
			text = h.Redact(text)
		}
		chunks = append(chunks, kb.Chunk{Content: text, EmbedText: text, Meta: kb.Metadata{
			DocType: kb.DocChat, Visibility: vis, Source: source, Title: s.Title,
			ChunkIndex: s.IndexedExchanges + i, ModifiedAt: ex[1].At.UTC().Format("2006-01-02T15:04:05Z")}})
	}
	if err := h.Store.Ingest(ctx, h.Embed, chunks, nil); err != nil {
		return err
	}
	s.IndexedExchanges = len(all)
	return nil
}

// Retitle gives a renamed session's indexed exchanges its new title, so
// search_chat_history shows the name the user chose (metadata only).
func (h *HistoryIndexer) Retitle(ctx context.Context, id, title string) error {
	if _, err := h.Store.UpdateFields(ctx, kb.Filter{Source: ChatSource(id)}, map[string]any{"title": title}); err != nil {
		return errs.Wrapf(errs.RAG, "chat.Retitle", err, "the session was renamed, but its indexed exchanges keep the old title")
	}
	return nil
}

// Forget removes a deleted session's exchanges from the knowledge base.
func (h *HistoryIndexer) Forget(ctx context.Context, id string) error {
	_, err := h.Store.DeleteWhere(ctx, kb.Filter{Source: ChatSource(id)})
	return err
}

// historyExcerptChars caps each past exchange a search returns: enough to
// recognise the conversation and cite it, not a second transcript in the
// context window.
const historyExcerptChars = 300

// excerpt keeps the first n characters (runes, never half a UTF-8
// sequence) and marks the cut.
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimRightFunc(string(r[:n-1]), unicode.IsSpace) + "…"
}

// HistoryTool is search_chat_history: past conversations, never the running
// one; a cloud model sees public sessions only, ranked as if the private
// ones did not exist.
func HistoryTool(k *KB) Tool {
	return Tool{
		Def: llm.Tool{Name: "search_chat_history", Description: "Search earlier conversations with the user (not this one).",
			Parameters: schema([]string{"query"}, map[string]string{"query": "what to look for", "n": "number of results"})},
		Run: func(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
			q := strings.TrimSpace(str(args, "query"))
			if q == "" {
				return "", "", errs.New(errs.Invalid, "search_chat_history", "query is empty")
			}
			found, err := k.Search(ctx, kbCaller(ctx, s), kbtools.SearchArgs{Query: q, N: max(intArg(args, "n", k.NResults), 1),
				Filter: kb.Filter{DocTypes: []string{kb.DocChat}}, ExcludeSource: ChatSource(s.ID)})
			if err != nil {
				return "", "", err
			}
			chunks := found.Chunks
			if len(chunks) == 0 {
				return withCaveat("No earlier conversation matches: "+q, s), "chat history: no matches", nil
			}
			for i := range chunks {
				chunks[i].Content = excerpt(chunks[i].Content, historyExcerptChars)
			}
			text := renderChunks(LedgerFrom(ctx), fmt.Sprintf("%d earlier exchanges for %q:", len(chunks), q), chunks)
			return withCaveat(text, s), fmt.Sprintf("searched chat history %q: %d results", q, len(chunks)), nil
		},
	}
}
