package mcpserver

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/drafts"
)

// NewDraftIn is a new draft.
type NewDraftIn struct {
	Title    string `json:"title" jsonschema:"the draft's title"`
	Filename string `json:"filename,omitempty" jsonschema:"its main file, e.g. paper.md or notes.tex (default draft.md)"`
	Content  string `json:"content" jsonschema:"the file's text"`
}

// DraftRef names a draft's file.
type DraftRef struct {
	DraftID  string `json:"draft_id" jsonschema:"the id create_draft or list_drafts gave"`
	Filename string `json:"filename,omitempty" jsonschema:"a file of the draft (default its main file)"`
}

// EditIn is a proposed edit.
type EditIn struct {
	DraftRef
	NewText string `json:"new_text" jsonschema:"the whole new text of the file; the user reviews the difference hunk by hunk"`
	Summary string `json:"summary,omitempty" jsonschema:"one line on what the edit does, shown to the user"`
}

// ListDraftsIn takes nothing.
type ListDraftsIn struct{}

// DraftOut is what a drafts tool did.
type DraftOut struct {
	DraftID string `json:"draft_id,omitempty"`
	Message string `json:"message"`
}

func (c *conn) addDraftTools(srv *mcp.Server) {
	if c.a.Drafts == nil {
		return
	}
	tool(srv, "create_draft", "Create a draft",
		"Create a new draft (a writing project in Jarvis's drafts folder) with one file. Jarvis's drafts are the only place this server writes.",
		nil, false, c.createDraft)
	tool(srv, "list_drafts", "List drafts", "List the drafts with their files.", nil, true, c.listDrafts)
	tool(srv, "read_draft", "Read a draft", "Read a draft's file.", nil, true, c.readDraft)
	tool(srv, "propose_draft_edit", "Propose a draft edit",
		"Propose new text for a draft's file. Nothing changes until the user accepts the changes, hunk by hunk, in Jarvis's editor; "+
			"do not propose the same edit again and do not say it has been applied.",
		nil, false, c.proposeEdit)
}

// draftResult maps the sandbox's answer; its text is the agent's, written
// for a model.
func (c *conn) draftResult(ctx context.Context, r drafts.ToolResult, err error) (*mcp.CallToolResult, DraftOut, error) {
	if r.Private {
		callOf(ctx).MarkPrivate()
	}
	if err != nil {
		return nil, DraftOut{}, err
	}
	return nil, DraftOut{DraftID: r.DraftID, Message: c.redact(r.Text)}, nil
}

func (c *conn) createDraft(ctx context.Context, _ *mcp.CallToolRequest, in NewDraftIn) (*mcp.CallToolResult, DraftOut, error) {
	name := strings.TrimSpace(in.Filename)
	if name == "" {
		name = "draft.md"
	}
	r, err := c.drafts.CreateDraft(ctx, c.draftsCaller(), in.Title, name, in.Content)
	return c.draftResult(ctx, r, err)
}

func (c *conn) listDrafts(ctx context.Context, _ *mcp.CallToolRequest, _ ListDraftsIn) (*mcp.CallToolResult, DraftOut, error) {
	r, err := c.drafts.ListDrafts(ctx, c.draftsCaller())
	return c.draftResult(ctx, r, err)
}

func (c *conn) readDraft(ctx context.Context, _ *mcp.CallToolRequest, in DraftRef) (*mcp.CallToolResult, DraftOut, error) {
	r, err := c.drafts.ReadDraft(ctx, c.draftsCaller(), in.DraftID, in.Filename)
	return c.draftResult(ctx, r, err)
}

func (c *conn) proposeEdit(ctx context.Context, _ *mcp.CallToolRequest, in EditIn) (*mcp.CallToolResult, DraftOut, error) {
	r, err := c.drafts.ProposeDraftEdit(ctx, c.draftsCaller(), in.DraftID, in.Filename, in.NewText, in.Summary)
	return c.draftResult(ctx, r, err)
}
