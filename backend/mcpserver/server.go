// Package mcpserver serves the knowledge base to other AI apps (Claude
// Desktop, Claude Code, Cursor, any MCP client) over the Model Context
// Protocol, on the official Go SDK.
//
// An MCP client is a model Jarvis does not run, so it is a cloud caller:
// every tool and resource goes through kbtools with Caller.Cloud set, the
// same code path as a cloud chat session, and private material is absent,
// not even counted. [mcp] allow_private turns the client into a local
// caller, for users who run their client against a local model.
package mcpserver

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// Name is the server's name in the MCP handshake and in client configs.
const Name = "jarvis"

// Options configure a Server.
type Options struct {
	Version      string // Jarvis's version, for the handshake
	AllowPrivate bool   // [mcp] allow_private
	Log          *CallLog
	Getenv       func(string) string // for the secrets redacted from results
	// Review is told of each draft-edit proposal (it waits in the drafts
	// tree for the human either way); nil: nobody is told.
	Review drafts.ReviewChannel
}

// Server builds one MCP server per client connection over the agent's
// knowledge base, drafts and answer loop.
type Server struct {
	a      *agent.Agent
	o      Options
	kb     *kbtools.KB // nil when the knowledge base could not be opened
	drafts *drafts.Agent
	redact func(string) string
}

// New assembles the server. A missing knowledge base is not fatal: the
// drafts tools are served and the knowledge-base tools say why they are
// absent.
func New(a *agent.Agent, o Options) *Server {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	review := o.Review
	if review == nil {
		review = func(context.Context, *drafts.Proposal) error { return nil }
	}
	s := &Server{a: a, o: o, redact: llm.Redactor(llm.Secrets(a.Cfg, o.Getenv)).Redact,
		drafts: &drafts.Agent{W: a.Drafts, Review: review}}
	if a.Engine != nil {
		eng := a.Engine
		s.kb = eng.Tools()
	}
	return s
}

// conn is one client connection: what it may see and whether it has
// already been handed private material (only possible with allow_private;
// it is then private for good, like a chat session).
type conn struct {
	*Server
	private atomic.Bool
}

// MCP returns a fresh protocol server for one client connection.
func (s *Server) MCP() *mcp.Server {
	c := &conn{Server: s}
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Jarvis knowledge base", Version: s.o.Version}, &mcp.ServerOptions{
		Instructions: instructions(s.o.AllowPrivate),
		Logger:       nil, // stdout is the protocol's; errors reach the client and the call log
	})
	c.addTools(srv)
	c.addResources(srv)
	srv.AddReceivingMiddleware(c.record)
	return srv
}

func instructions(allowPrivate bool) string {
	text := "Jarvis is the user's local knowledge base: their notes (an Obsidian vault), papers and past conversations. " +
		"Use search first, then get_document to read a hit in full; cite results by their citation label. " +
		"Records (notes with frontmatter such as job applications or meetings) are listed with query_records. " +
		"ask runs Jarvis's own answer loop on the user's configured model and returns a cited answer. " +
		"Writes go to drafts only: create_draft makes a new one, and propose_draft_edit proposes changes that the user accepts or rejects in Jarvis."
	if !allowPrivate {
		text += " Only the user's public material is served here; private notes are never sent to this client."
	}
	return text
}

// caller is the connection as the knowledge-base operations see it, with
// the request's record as its ledger.
func (c *conn) caller(ctx context.Context) kbtools.Caller {
	return kbtools.Caller{Cloud: !c.o.AllowPrivate, Private: c.private.Load(), Who: "mcp", Ledger: callOf(ctx)}
}

// draftsCaller is the connection as the drafts sandbox sees it.
func (c *conn) draftsCaller() drafts.Caller {
	return drafts.Caller{SessionID: "mcp", Private: c.private.Load(), Cloud: !c.o.AllowPrivate}
}

// logFailure reports a call-log write that failed; the client's call goes on.
func logFailure(err error) { logs.L().Warn("mcp: the call log could not be written", "err", err) }

// ServeStdio serves one client over its standard streams until it closes
// them or ctx ends. Only protocol goes to out.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.MCP().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil // the client went away, or we were told to stop
	}
	return errs.Wrap(errs.Internal, "mcp.stdio", err)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
