package app

import (
	"context"
	"strings"
	gosync "sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/drafts/render"
)

// DraftsEvent tells the window the drafts tree changed (a draft, a file, a
// save or a proposal, from this process or jarvis-cli).
const DraftsEvent = "drafts"

// Editor serves the drafts editor: files, saves with a hash check, history,
// the Markdown preview, proposals under review, compile and export, the
// file manager, and the chat docked beside a draft.
type Editor struct {
	ws   *drafts.Workspace
	cfg  *config.Config
	core *core
	chat *Chat
	// PickSave asks where to save a file (the desktop's save dialog; ""
	// when cancelled); the window wires it to the Wails runtime.
	PickSave func(title, name string) (string, error)

	mu     gosync.Mutex
	pdfDir string                 // compiled PDFs, private, removed on Close
	pdfs   map[string]compiledPDF // by reference
	stop   context.CancelFunc     // the drafts watcher
}

// DraftView is a draft in the editor's list: its folder (named in the
// delete confirmation) and the days retention leaves it (nil when it is
// kept or retention is off).
type DraftView struct {
	drafts.Draft
	Path     string `json:"path"`
	DaysLeft *int   `json:"days_left"`
}

// FileView is one open file.
type FileView struct {
	Draft string `json:"draft"`
	File  string `json:"file"`
	Text  string `json:"text"`
	Hash  string `json:"hash"`
}

// Drafts lists the sandbox.
func (e *Editor) Drafts() ([]DraftView, error) {
	list, err := e.ws.List()
	out := make([]DraftView, 0, len(list))
	now := time.Now()
	for _, d := range list {
		v := DraftView{Draft: d}
		v.Path, _ = e.ws.Dir(d.ID) // listed a moment ago; an empty path only shortens the confirmation
		if left, ok := drafts.DaysLeft(d, e.cfg.Drafts.RetentionDays, now); ok {
			v.DaysLeft = &left
		}
		out = append(out, v)
	}
	return out, err
}

// Open reads a draft file.
func (e *Editor) Open(id, file string) (FileView, error) {
	text, hash, err := e.ws.Read(id, file)
	return FileView{Draft: id, File: file, Text: text, Hash: hash}, err
}

// Save writes the human's text if the file still has expectHash (else a
// Conflict error: someone else saved first); the text it replaces becomes a
// version in History.
func (e *Editor) Save(id, file, text, expectHash string) (string, error) {
	return e.ws.SaveVersioned(id, file, text, expectHash)
}

// Versions is the History panel.
func (e *Editor) Versions(id, file string) ([]drafts.Version, error) {
	v, err := e.ws.Versions(id, file)
	if v == nil {
		v = []drafts.Version{}
	}
	return v, err
}

// ReadVersion shows an old version.
func (e *Editor) ReadVersion(id, version string) (string, error) {
	return e.ws.ReadVersion(id, version)
}

// CompareVersion is what restoring a version would change: hunks from the
// file's saved text to the version's.
func (e *Editor) CompareVersion(id, version string) ([]drafts.Hunk, error) {
	old, err := e.ws.ReadVersion(id, version)
	if err != nil {
		return nil, err
	}
	_, file, _ := strings.Cut(version, "--") // validated by ReadVersion
	cur, _, err := e.ws.Read(id, file)
	if err != nil {
		return nil, err
	}
	h := drafts.BuildHunks(cur, old)
	if h == nil {
		h = []drafts.Hunk{}
	}
	return h, nil
}

// Restore brings an old version back (the current text is snapshotted first).
func (e *Editor) Restore(id, version string) (string, error) { return e.ws.RestoreVersion(id, version) }

// Proposals are the agent's edits waiting for review on a draft.
func (e *Editor) Proposals(id string) []drafts.Proposal {
	p := e.ws.Pending(id)
	if p == nil {
		p = []drafts.Proposal{}
	}
	return p
}

// WaitingProposal is a proposal in the editor's "Waiting for review" list:
// which draft it belongs to, by title, and whether it can still apply.
type WaitingProposal struct {
	drafts.Proposal
	DraftTitle string `json:"draft_title"`
}

// Waiting lists every proposal waiting for review, whichever process made
// it (this window's agent or `jarvis-cli ask`), oldest first. Proposals are
// stored in the drafts tree, so the list survives restarts.
func (e *Editor) Waiting() []WaitingProposal {
	out := []WaitingProposal{}
	titles := map[string]string{}
	for _, p := range e.ws.Pending("") {
		title, ok := titles[p.DraftID]
		if !ok {
			if d, err := e.ws.Get(p.DraftID); err == nil {
				title = d.Title
			}
			titles[p.DraftID] = title
		}
		out = append(out, WaitingProposal{Proposal: p, DraftTitle: title})
	}
	return out
}

// Proposal opens one waiting proposal for review by its token.
func (e *Editor) Proposal(token string) (drafts.Proposal, error) { return e.ws.Find(token) }

// Apply writes the accepted hunks of a proposal (one shot).
func (e *Editor) Apply(token string, accepted []int) (string, error) {
	return e.ws.Apply(token, accepted)
}

// Discard rejects a whole proposal.
func (e *Editor) Discard(token string) error { return e.ws.Discard(token) }

// DiscardAll sets the given waiting proposals aside in one undoable batch.
func (e *Editor) DiscardAll(tokens []string) (drafts.Discarded, error) {
	return e.ws.DiscardAll(tokens)
}

// UndoDiscard puts a batch back in the waiting list.
func (e *Editor) UndoDiscard(batch string) (int, error) { return e.ws.UndoDiscard(batch) }

func (e *Editor) toolchain() render.Toolchain {
	d := e.cfg.Drafts
	return render.Toolchain{LatexEngine: d.LatexEngine, PDFEngine: d.PDFEngine, Margin: d.PDFMargin,
		Timeout: time.Duration(d.CompileTimeoutSeconds) * time.Second}
}

// Tools says which of compile (LaTeX) and export (pandoc) exist here, so
// the editor hides the buttons it cannot honour.
func (e *Editor) Tools() render.Availability { return e.toolchain().Available() }

// NewDraft creates a draft the human starts (public: it touched no
// session's private data).
func (e *Editor) NewDraft(title, filename string) (drafts.Draft, error) {
	d, err := e.ws.Create(title, filename, "", drafts.Public, "")
	if err != nil {
		return drafts.Draft{}, err
	}
	return *d, nil
}

// SetKeep exempts a draft from retention (or stops exempting it).
func (e *Editor) SetKeep(id string, keep bool) error { return e.ws.SetKeep(id, keep) }
