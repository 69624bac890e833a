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

// SourceReader fetches the text a draft is created from (a vault note, a
// paper or another knowledge-base document). It applies the knowledge
// base's privacy rules itself — a cloud caller is answered about a private
// source exactly as about a missing one — and reports whether the source
// was private.
type SourceReader func(ctx context.Context, source string, c Caller) (title, text string, private bool, err error)

// ToolResult is what an agent tool returns: text for the model and a short
// summary for the UI. Private is set when the result (or the error returned
// with it) carries something of a private draft or source, so the session
// that received it becomes private.
type ToolResult struct {
	Text    string
	Summary string
	DraftID string
	Private bool
}

// Agent is the model's entire write surface: create drafts and files, list
// and read them, and propose edits. There is no delete and no path outside
// the drafts root in any of its signatures.
//
// Privacy: a cloud session cannot see private drafts at all — every tool
// answers about one exactly as about a draft that does not exist, so no
// title, file name, size or content comparison leaks. A local session may
// use them, and any use marks it private.
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

// errNoDraft is the one answer for a draft the caller may not know of.
func errNoDraft(id string) error {
	return errs.WithHint(errs.New(errs.NotFound, "drafts", "no draft %q", id), "list_drafts shows the drafts you can use")
}

// draft returns a draft the caller may use. A private draft is invisible to
// a cloud caller: the same error as a missing one.
func (a *Agent) draft(c Caller, id string) (*Draft, ToolResult, error) {
	if err := ValidateID(id); err != nil {
		return nil, ToolResult{}, err
	}
	d, err := a.W.Get(id)
	if errs.Is(err, errs.NotFound) || err == nil && d.Visibility == Private && c.Cloud {
		return nil, ToolResult{}, errNoDraft(id)
	}
	if err != nil {
		return nil, ToolResult{}, err
	}
	return d, ToolResult{DraftID: id, Private: d.Visibility == Private}, nil
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
	if private && c.Cloud { // the reader must have refused; never trust it to
		return ToolResult{}, errs.New(errs.Internal, "create_draft_from", "the source reader returned a private source to a cloud session")
	}
	if title == "" {
		title = srcTitle
	}
	d, err := a.W.Create(title, filename, text, visibilityFor(c, private), c.SessionID)
	if err != nil {
		return ToolResult{Private: private}, err
	}
	return ToolResult{
		Text:    fmt.Sprintf("Created draft %s (%q) from %s as %s. Propose edits with propose_draft_edit.", d.ID, d.Title, source, filename),
		Summary: "created draft from " + source, DraftID: d.ID, Private: private,
	}, nil
}

// AddDraftFile adds a new file; changing an existing one needs a proposal.
func (a *Agent) AddDraftFile(_ context.Context, c Caller, id, filename, content string) (ToolResult, error) {
	_, r, err := a.draft(c, id)
	if err != nil {
		return r, err
	}
	if err := a.W.AddFile(id, filename, content); err != nil {
		return r, err
	}
	r.Text, r.Summary = fmt.Sprintf("Added %s to draft %s.", filename, id), "added "+filename
	return r, nil
}

// ListDrafts lists the drafts the caller may use; a cloud session's list
// has no private drafts in it at all.
func (a *Agent) ListDrafts(_ context.Context, c Caller) (ToolResult, error) {
	list, err := a.W.List()
	if err != nil {
		return ToolResult{}, err
	}
	var r ToolResult
	var b strings.Builder
	n := 0
	for _, d := range list {
		if d.Visibility == Private {
			if c.Cloud {
				continue
			}
			r.Private = true
		}
		n++
		fmt.Fprintf(&b, "- %s: %q, files %s, main %s, updated %s\n", d.ID, d.Title, strings.Join(d.Files, ", "), d.MainFile, d.LastChange().Format("2006-01-02 15:04"))
	}
	if n == 0 {
		r.Text, r.Summary = "There are no drafts yet.", "no drafts"
		return r, nil
	}
	r.Text, r.Summary = b.String(), fmt.Sprintf("%d drafts", n)
	return r, nil
}

// ReadDraft returns a file's text, wrapped as retrieved data.
func (a *Agent) ReadDraft(_ context.Context, c Caller, id, filename string) (ToolResult, error) {
	d, r, err := a.draft(c, id)
	if err != nil {
		return r, err
	}
	if filename == "" {
		filename = d.MainFile
	}
	text, _, err := a.W.Read(id, filename)
	if err != nil {
		return r, err
	}
	r.Text = fmt.Sprintf("BEGIN RETRIEVED DATA (draft %s, %s)\n%s\nEND RETRIEVED DATA", id, filename, text)
	r.Summary = "read " + filename
	return r, nil
}

// ProposeDraftEdit builds a proposal and defers it to the human. Nothing is
// written; the model is told so in fixed words.
func (a *Agent) ProposeDraftEdit(ctx context.Context, c Caller, id, filename, newText, summary string) (ToolResult, error) {
	if a.Review == nil {
		return ToolResult{}, errs.New(errs.Internal, "propose_draft_edit", "no review channel is wired")
	}
	d, r, err := a.draft(c, id)
	if err != nil {
		return r, err
	}
	if filename == "" {
		filename = d.MainFile
	}
	p, err := a.W.Propose(id, filename, newText, summary, c.SessionID)
	if err != nil {
		return r, err
	}
	if err := a.Review(ctx, p); err != nil {
		_ = a.W.Discard(p.Token) // the proposal never reached the human; drop it
		return r, err
	}
	r.Text = fmt.Sprintf("%s The user will review %d change(s) to %s in the editor. Do not propose the same edit again and do not say it has been applied.",
		ProposalNotice, len(p.Hunks), filename)
	r.Summary = fmt.Sprintf("proposed %d change(s) to %s", len(p.Hunks), filename)
	return r, nil
}
