package drafts

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Caller describes the chat session a tool call comes from.
type Caller struct {
	SessionID string
	Private   bool // the session has touched private data
	Cloud     bool // the session's model is a cloud provider
}

// ReviewChannel hands a proposal to the human (the editor's diff review).
// It returns once the proposal is queued; the human answers later through
// Workspace.Apply, which is the only path that writes the change.
type ReviewChannel func(ctx context.Context, p *Proposal) error

// SourceReader fetches the text a draft is created from (a vault note or a
// knowledge-base document). It applies the knowledge base's privacy rules
// itself and reports whether the source was private.
type SourceReader func(ctx context.Context, source string, c Caller) (title, text string, private bool, err error)

// ToolResult is what an agent tool returns: text for the model and a short
// summary for the UI.
type ToolResult struct {
	Text    string
	Summary string
	DraftID string
}

// Agent is the model's entire write surface: create drafts and files, list
// and read them, and propose edits. There is no delete and no path outside
// the drafts root in any of its signatures.
type Agent struct {
	W          *Workspace
	Review     ReviewChannel
	ReadSource SourceReader
}

func visibilityFor(c Caller, sourcePrivate bool) string {
	if c.Private || sourcePrivate {
		return Private
	}
	return Public
}

// CreateDraft makes a new draft with one file.
func (a *Agent) CreateDraft(_ context.Context, c Caller, title, filename, content string) (ToolResult, error) {
	d, err := a.W.Create(title, filename, content, visibilityFor(c, false), c.SessionID)
	if err != nil {
		return ToolResult{}, err
	}
	return ToolResult{
		Text:    fmt.Sprintf("Created draft %s (%q) with %s. The user can open it in the editor.", d.ID, d.Title, filename),
		Summary: "created draft " + d.Title, DraftID: d.ID,
	}, nil
}

// CreateDraftFrom makes a new draft seeded with a source's text; a draft
// made from a private source is private.
func (a *Agent) CreateDraftFrom(ctx context.Context, c Caller, source, title, filename string) (ToolResult, error) {
	if a.ReadSource == nil {
		return ToolResult{}, errs.New(errs.Internal, "create_draft_from", "no source reader is wired")
	}
	srcTitle, text, private, err := a.ReadSource(ctx, source, c)
	if err != nil {
		return ToolResult{}, err
	}
	if title == "" {
		title = srcTitle
	}
	d, err := a.W.Create(title, filename, text, visibilityFor(c, private), c.SessionID)
	if err != nil {
		return ToolResult{}, err
	}
	return ToolResult{
		Text:    fmt.Sprintf("Created draft %s (%q) from %s as %s. Propose edits with propose_draft_edit.", d.ID, d.Title, source, filename),
		Summary: "created draft from " + source, DraftID: d.ID,
	}, nil
}

// AddDraftFile adds a new file; changing an existing one needs a proposal.
func (a *Agent) AddDraftFile(_ context.Context, c Caller, id, filename, content string) (ToolResult, error) {
	if err := a.W.AddFile(id, filename, content); err != nil {
		return ToolResult{}, err
	}
	return ToolResult{Text: fmt.Sprintf("Added %s to draft %s.", filename, id), Summary: "added " + filename, DraftID: id}, nil
}

// ListDrafts lists drafts. A cloud session sees private drafts only as
// placeholders: even their titles may come from private notes.
func (a *Agent) ListDrafts(_ context.Context, c Caller) (ToolResult, error) {
	list, err := a.W.List()
	if err != nil {
		return ToolResult{}, err
	}
	if len(list) == 0 {
		return ToolResult{Text: "There are no drafts yet.", Summary: "no drafts"}, nil
	}
	var b strings.Builder
	for _, d := range list {
		if d.Visibility == Private && c.Cloud {
			fmt.Fprintf(&b, "- %s: (private draft, not readable with a cloud model)\n", d.ID)
			continue
		}
		fmt.Fprintf(&b, "- %s: %q, files %s, main %s, updated %s\n", d.ID, d.Title, strings.Join(d.Files, ", "), d.MainFile, d.UpdatedAt.Format("2006-01-02 15:04"))
	}
	return ToolResult{Text: b.String(), Summary: fmt.Sprintf("%d drafts", len(list))}, nil
}

// ReadDraft returns a file's text, wrapped as retrieved data. Private drafts
// refuse cloud sessions: the transcript rule extended to the artefact.
func (a *Agent) ReadDraft(_ context.Context, c Caller, id, filename string) (ToolResult, error) {
	d, err := a.W.Get(id)
	if err != nil {
		return ToolResult{}, err
	}
	if d.Visibility == Private && c.Cloud {
		return ToolResult{}, errs.New(errs.Privacy, "read_draft", "draft %s is private and cannot be read by a cloud model", id)
	}
	if filename == "" {
		filename = d.MainFile
	}
	text, _, err := a.W.Read(id, filename)
	if err != nil {
		return ToolResult{}, err
	}
	return ToolResult{
		Text:    fmt.Sprintf("BEGIN RETRIEVED DATA (draft %s, %s)\n%s\nEND RETRIEVED DATA", id, filename, text),
		Summary: "read " + filename, DraftID: id,
	}, nil
}

// ProposeDraftEdit builds a proposal and defers it to the human. Nothing is
// written; the model is told so in fixed words.
func (a *Agent) ProposeDraftEdit(ctx context.Context, c Caller, id, filename, newText, summary string) (ToolResult, error) {
	if a.Review == nil {
		return ToolResult{}, errs.New(errs.Internal, "propose_draft_edit", "no review channel is wired")
	}
	d, err := a.W.Get(id)
	if err != nil {
		return ToolResult{}, err
	}
	if filename == "" {
		filename = d.MainFile
	}
	p, err := a.W.Propose(id, filename, newText, summary, c.SessionID)
	if err != nil {
		return ToolResult{}, err
	}
	if err := a.Review(ctx, p); err != nil {
		_ = a.W.Discard(p.Token) // the proposal never reached the human; drop it
		return ToolResult{}, err
	}
	return ToolResult{
		Text: fmt.Sprintf("%s The user will review %d change(s) to %s in the editor. Do not propose the same edit again and do not say it has been applied.",
			ProposalNotice, len(p.Hunks), filename),
		Summary: fmt.Sprintf("proposed %d change(s) to %s", len(p.Hunks), filename), DraftID: id,
	}, nil
}
