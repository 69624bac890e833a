package mcpserver

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// AskIn is a question for Jarvis's own answer loop.
type AskIn struct {
	Question  string `json:"question" jsonschema:"the question, in the user's words"`
	SessionID string `json:"session_id,omitempty" jsonschema:"continue the conversation an earlier ask returned"`
	KBOnly    *bool  `json:"kb_only,omitempty" jsonschema:"answer only from the knowledge base (default true); false lets the model add general knowledge, said so in the answer"`
}

// Cited is one source an answer cites.
type Cited struct {
	Source string `json:"source"`
	URI    string `json:"uri"`
	Title  string `json:"title,omitempty"`
	Page   int    `json:"page,omitempty"`
}

// AskOut is the answer.
type AskOut struct {
	Answer    string  `json:"answer"`
	Citations []Cited `json:"citations"` // every one was retrieved for this answer
	SessionID string  `json:"session_id"`
	Model     string  `json:"model"`
	// Offline: no model could be reached, and the answer is the best
	// passages, cited.
	Offline bool   `json:"offline,omitempty"`
	Notice  string `json:"notice,omitempty"`
}

// PaperIn is a paper to add.
type PaperIn struct {
	Source string `json:"source" jsonschema:"an arXiv id or link (2401.01234, https://arxiv.org/abs/2401.01234) or a DOI (arXiv or bioRxiv, 10.1101/...)"`
	Mode   string `json:"mode,omitempty" jsonschema:"full_text (default: the whole paper, searchable) or summary (a model's summary only)"`
}

// PaperOut says what was added, or what to ask the user.
type PaperOut struct {
	Message string  `json:"message"`
	Added   []Cited `json:"added,omitempty"`
}

func (c *conn) addAskTools(srv *mcp.Server) {
	if _, ok := c.a.Runner.Tools.(*chat.Toolbox); !ok {
		return
	}
	tool(srv, "ask", "Ask Jarvis",
		"Ask Jarvis's own research assistant, on the model the user configured: it searches the knowledge base, reads what it needs and answers "+
			"with citations, every one of them a source it retrieved. Slower than search; use it for questions that need several documents. "+
			"Pass session_id to follow up.",
		nil, true, c.ask)
	if c.kb != nil {
		tool(srv, "add_paper", "Add a paper",
			"Add a paper to the knowledge base from arXiv or by DOI (as `jarvis-cli kb add` does). If it is already stored, the answer says so and nothing changes.",
			map[string][]any{"mode": {ingest.FullText, ingest.Summary}}, false, c.addPaper)
	}
}

// progress reports a long call's steps to a client that asked for them.
func progress(ctx context.Context, req *mcp.CallToolRequest) func(string) {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return func(string) {}
	}
	n := 0.0
	return func(msg string) {
		n++
		// A client that went away gets no progress; the call still ends.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: n, Message: msg})
	}
}

func (c *conn) ask(ctx context.Context, req *mcp.CallToolRequest, in AskIn) (*mcp.CallToolResult, AskOut, error) {
	const op = "ask"
	q := strings.TrimSpace(in.Question)
	if q == "" {
		return nil, AskOut{}, errs.New(errs.Invalid, op, "question is empty")
	}
	s, err := c.askSession(in)
	if err != nil {
		return nil, AskOut{}, err
	}
	step := progress(ctx, req)
	// A task that reaches the tool-call limit may go on by itself
	// ([chat] auto_continue): each part ends in a reply, and the answer is
	// all of them.
	var final *chat.Event
	var parts []chat.Event
	done, err := c.a.Runner.Start(ctx, s, q, func(e chat.Event) {
		switch e.Kind {
		case chat.EventDelta:
		case chat.EventTool, chat.EventStatus:
			step(c.redact(e.Text))
		case chat.EventConfirm, chat.EventReview:
			// Nobody at this end can confirm: a removal the model asks
			// for is declined, so no MCP call deletes anything (and a
			// review, which public-only sessions never ask, sends nothing).
			if token, _ := e.Data.(map[string]any)["token"].(string); token != "" {
				_ = c.a.Confirm.Answer(token, false) // the token is the runner's own, just issued
			}
		case chat.EventReply:
			parts = append(parts, e)
		default:
			final = &e
		}
	})
	if err != nil {
		return nil, AskOut{}, err
	}
	select {
	case <-done:
	case <-ctx.Done():
		// The client cancelled or went away: stop the turn, keep nothing.
		c.a.Runner.Stop(s.ID)
		<-done
		return nil, AskOut{}, errs.Wrap(errs.Cancelled, op, ctx.Err())
	}
	if len(parts) == 0 {
		msg := "no answer"
		if final != nil {
			msg = final.Text
		}
		return nil, AskOut{}, errs.New(errs.LLM, op, "%s", c.redact(msg))
	}
	last, _ := parts[len(parts)-1].Data.(map[string]any)
	if last["refused"] == true {
		return nil, AskOut{}, errs.New(errs.LLM, op, "%v", last["notice"])
	}
	out := AskOut{Citations: []Cited{}, SessionID: s.ID, Model: s.ModelSpec()}
	out.Offline, _ = last["offline"].(bool)
	out.Notice, _ = last["notice"].(string)
	rec := callOf(ctx)
	texts := make([]string, 0, len(parts))
	cited := map[string]bool{}
	for _, p := range parts {
		data, _ := p.Data.(map[string]any)
		if t := strings.TrimSpace(p.Text); t != "" {
			texts = append(texts, c.redact(t))
		}
		cites, _ := data["citations"].([]kbtools.Citation)
		for _, ct := range cites {
			if !cited[ct.Place()] { // a later part carries the evidence of the earlier ones
				cited[ct.Place()] = true
				rec.Add(ct)
				out.Citations = append(out.Citations, Cited{Source: ct.Source, URI: ResourceURI(ct.Source), Title: c.redact(ct.Title), Page: ct.Page})
			}
		}
		if priv, _ := data["private"].(bool); priv {
			rec.MarkPrivate()
		}
	}
	out.Answer = strings.Join(texts, "\n\n")
	return nil, out, nil
}

// askSession is a new conversation for the question, or the earlier one
// it follows up. Without allow_private it is public-only: its answers go
// to the client, so it searches like a cloud session whatever model runs
// it, and an earlier conversation that is not public-only is not there.
func (c *conn) askSession(in AskIn) (*chat.Session, error) {
	sessions := c.a.Sessions
	if id := strings.TrimSpace(in.SessionID); id != "" {
		noSession := errs.WithHint(errs.New(errs.NotFound, "ask", "no conversation %q", id), "leave session_id out to start a new one")
		s, err := sessions.Load(id)
		if err != nil || (!c.o.AllowPrivate && (!s.PublicOnly || s.Private)) {
			return nil, noSession
		}
		return s, nil
	}
	spec, err := llm.Resolve(c.a.Cfg, c.a.Cfg.Chat.Provider)
	if err != nil {
		return nil, err
	}
	kbOnly := in.KBOnly == nil || *in.KBOnly
	s := sessions.New(spec, kbOnly)
	s.PublicOnly = !c.o.AllowPrivate
	return s, nil
}

func (c *conn) addPaper(ctx context.Context, req *mcp.CallToolRequest, in PaperIn) (*mcp.CallToolResult, PaperOut, error) {
	const op = "add_paper"
	src := strings.TrimSpace(in.Source)
	if _, remote, err := ingest.ParseRemote(src); err != nil || !remote || filepath.IsAbs(src) {
		return nil, PaperOut{}, errs.WithHint(errs.New(errs.Invalid, op, "%q is not an arXiv id or link or a DOI", src),
			"local PDFs are added in Jarvis's Library or with jarvis-cli kb add")
	}
	mode := in.Mode
	if mode == "" {
		mode = ingest.FullText
	}
	spec, err := llm.Resolve(c.a.Cfg, c.a.Cfg.Chat.Provider)
	if err != nil {
		return nil, PaperOut{}, err
	}
	// The agent's own add_document, run for a session that stands for this
	// client: public-only unless allow_private, never saved.
	s := &chat.Session{ID: "mcp", Provider: spec.Provider, Model: spec.Model, KBOnly: true, PublicOnly: !c.o.AllowPrivate, Private: c.private.Load()}
	step := progress(ctx, req)
	text, l, err := c.a.Runner.Tools.(*chat.Toolbox).RunOutside(ctx, s, "add_document", map[string]any{"source": src, "mode": mode},
		func(e chat.Event) {
			if e.Kind == chat.EventStatus {
				step(c.redact(e.Text))
			}
		})
	if err != nil {
		return nil, PaperOut{}, err
	}
	out := PaperOut{Message: c.redact(text)}
	rec := callOf(ctx)
	for _, ct := range l.Retrieved() {
		rec.Add(ct)
		out.Added = append(out.Added, Cited{Source: ct.Source, URI: ResourceURI(ct.Source), Title: c.redact(ct.Title)})
	}
	if l.Private() {
		rec.MarkPrivate()
	}
	return nil, out, nil
}
