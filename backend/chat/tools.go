package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// Tool is one agent tool: its schema and its handler.
type Tool struct {
	Def       llm.Tool
	Run       func(ctx context.Context, s *Session, args map[string]any) (text, summary string, err error)
	Available func(s *Session) bool // nil: always offered
}

// Toolbox dispatches tool calls by name. Recoverable mistakes (bad
// arguments, unknown ids, conflicts) go back to the model as error results
// with the reason, so it can correct itself; privacy refusals and stops end
// the turn.
type Toolbox struct {
	Tools map[string]Tool
}

// Definitions lists the tools offered to this session, in name order.
func (tb *Toolbox) Definitions(s *Session) []llm.Tool {
	var out []llm.Tool
	for _, n := range slices.Sorted(maps.Keys(tb.Tools)) {
		if t := tb.Tools[n]; t.Available == nil || t.Available(s) {
			out = append(out, t.Def)
		}
	}
	return out
}

// offered is the named tool if this session is offered it.
func (tb *Toolbox) offered(s *Session, name string) (Tool, bool) {
	t, ok := tb.Tools[name]
	return t, ok && (t.Available == nil || t.Available(s))
}

// RunOutside runs one tool for a caller outside any turn (an MCP client):
// the agent's own code, with a ledger of its own, which is returned with
// what the tool retrieved and whether private data was in it.
func (tb *Toolbox) RunOutside(ctx context.Context, s *Session, name string, args map[string]any, emit func(Event)) (string, *Ledger, error) {
	t, ok := tb.offered(s, name)
	if !ok {
		return "", nil, errs.New(errs.NotFound, name, "the tool %s is not available", name)
	}
	if emit == nil {
		emit = func(Event) {}
	}
	ctx, l := withLedger(ctx, emit)
	text, _, err := t.Run(ctx, s, args)
	return text, l, err
}

// Dispatch runs one call.
func (tb *Toolbox) Dispatch(ctx context.Context, s *Session, call llm.Block, emit func(Event)) (llm.ToolOutcome, error) {
	t, ok := tb.offered(s, call.Name)
	if !ok {
		return llm.ToolOutcome{Content: fmt.Sprintf("Error: there is no tool named %q.", call.Name), IsError: true}, nil
	}
	l := LedgerFrom(ctx)
	before := l.count()
	text, summary, err := t.Run(ctx, s, call.Arguments)
	if err != nil {
		if errs.Is(err, errs.Privacy) || errs.Is(err, errs.Cancelled) || errs.Is(err, errs.Internal) {
			return llm.ToolOutcome{}, err
		}
		// The hint goes on its own line, where a model acts on it best.
		msg := "Error: " + err.Error()
		if h := errs.HintOf(err); h != "" {
			msg = strings.TrimSuffix(msg, " ("+h+")") + "\nHint: " + h
		}
		emit(Event{Kind: EventTool, Text: call.Name + " failed", Data: map[string]any{"tool": call.Name, "error": err.Error()}})
		return llm.ToolOutcome{Content: msg, IsError: true}, nil
	}
	// Structured evidence (source, chunk ids, pages) for the UI's tool box.
	emit(Event{Kind: EventTool, Text: summary, Data: map[string]any{"tool": call.Name, "evidence": l.since(before)}})
	return llm.ToolOutcome{Content: text}, nil
}

func str(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

func schema(required []string, props map[string]string) json.RawMessage {
	p := map[string]any{}
	for k, desc := range props {
		p[k] = map[string]string{"type": "string", "description": desc}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": p, "required": required}) // maps of strings always marshal
	return b
}

// caller describes the session to the drafts sandbox; private data read
// earlier in this same turn already counts.
func caller(ctx context.Context, s *Session) drafts.Caller {
	return drafts.Caller{SessionID: s.ID, Private: s.Private || LedgerFrom(ctx).Private(), Cloud: cloudSession(s)}
}

// DraftTools exposes the drafts sandbox — the model's entire write surface.
func DraftTools(a *drafts.Agent) map[string]Tool {
	wrap := func(fn func(ctx context.Context, c drafts.Caller, args map[string]any) (drafts.ToolResult, error)) func(context.Context, *Session, map[string]any) (string, string, error) {
		return func(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
			r, err := fn(ctx, caller(ctx, s), args)
			if r.Private { // even with an error: it may name a private draft's file
				LedgerFrom(ctx).MarkPrivate()
			}
			return r.Text, r.Summary, err
		}
	}
	return map[string]Tool{
		"create_draft": {Def: llm.Tool{Name: "create_draft", Description: "Create a new draft document in the drafts sandbox.",
			Parameters: schema([]string{"title", "filename", "content"}, map[string]string{"title": "document title", "filename": "file name with extension (.md .tex .bib .txt .csv)", "content": "full text"})},
			Run: wrap(func(ctx context.Context, c drafts.Caller, a2 map[string]any) (drafts.ToolResult, error) {
				return a.CreateDraft(ctx, c, str(a2, "title"), str(a2, "filename"), str(a2, "content"))
			})},
		"create_draft_from": {Def: llm.Tool{Name: "create_draft_from", Description: "Create a draft seeded with the text of a vault note, a paper or another document from the knowledge base.",
			Parameters: schema([]string{"source", "filename"}, map[string]string{"source": "vault-relative note path or document source, as search results cite it", "title": "optional title (default: the source's)", "filename": "file name for the copy (.md .tex .bib .txt .csv)"})},
			Run: wrap(func(ctx context.Context, c drafts.Caller, a2 map[string]any) (drafts.ToolResult, error) {
				return a.CreateDraftFrom(ctx, c, str(a2, "source"), str(a2, "title"), str(a2, "filename"))
			})},
		"add_draft_file": {Def: llm.Tool{Name: "add_draft_file", Description: "Add a new file to an existing draft (never overwrites).",
			Parameters: schema([]string{"draft_id", "filename", "content"}, map[string]string{"draft_id": "draft id", "filename": "new file name", "content": "full text"})},
			Run: wrap(func(ctx context.Context, c drafts.Caller, a2 map[string]any) (drafts.ToolResult, error) {
				return a.AddDraftFile(ctx, c, str(a2, "draft_id"), str(a2, "filename"), str(a2, "content"))
			})},
		"list_drafts": {Def: llm.Tool{Name: "list_drafts", Description: "List drafts in the sandbox.", Parameters: schema(nil, map[string]string{})},
			Run: wrap(func(ctx context.Context, c drafts.Caller, _ map[string]any) (drafts.ToolResult, error) {
				return a.ListDrafts(ctx, c)
			})},
		"read_draft": {Def: llm.Tool{Name: "read_draft", Description: "Read a draft file.",
			Parameters: schema([]string{"draft_id"}, map[string]string{"draft_id": "draft id", "filename": "file (default: the main file)"})},
			Run: wrap(func(ctx context.Context, c drafts.Caller, a2 map[string]any) (drafts.ToolResult, error) {
				res, err := a.ReadDraft(ctx, c, str(a2, "draft_id"), str(a2, "filename"))
				if err == nil {
					// The draft's text goes to the model: the cloud ledger names it.
					key := "draft:" + str(a2, "draft_id")
					if f := str(a2, "filename"); f != "" {
						key += "/" + f
					}
					LedgerFrom(ctx).carry(ledger.Source{Key: key, Title: "draft " + str(a2, "draft_id")})
				}
				return res, err
			})},
		"propose_draft_edit": {Def: llm.Tool{Name: "propose_draft_edit", Description: "Propose a new full text for an existing draft file; the user reviews each change before anything is written.",
			Parameters: schema([]string{"draft_id", "new_text"}, map[string]string{"draft_id": "draft id", "filename": "file (default: the main file)", "new_text": "the complete proposed text", "summary": "one line on what changes"})},
			Run: wrap(func(ctx context.Context, c drafts.Caller, a2 map[string]any) (drafts.ToolResult, error) {
				return a.ProposeDraftEdit(ctx, c, str(a2, "draft_id"), str(a2, "filename"), str(a2, "new_text"), str(a2, "summary"))
			})},
	}
}
