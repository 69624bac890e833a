package drafts

import (
	"os"
	"sort"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// ProposalNotice is the fixed line an agent gets back when a proposal is
// deferred to the human: nothing was written.
const ProposalNotice = "Proposal only — jarvis never writes to a file unless you accept the specific change."

// Proposal is an agent's suggested edit to one draft file, held until the
// human answers it. It lives in memory only: a restart clears pending
// proposals, which is also the coarse way to discard them.
type Proposal struct {
	Token     string `json:"token"`
	DraftID   string `json:"draft_id"`
	File      string `json:"file"`
	BaseHash  string `json:"base_hash"`
	SessionID string `json:"session_id,omitempty"`
	Summary   string `json:"summary"`
	Hunks     []Hunk `json:"hunks"`
	oldText   string
}

// Propose builds hunks between the file's current text and newText and
// returns a one-shot token. It writes nothing.
func (w *Workspace) Propose(id, filename, newText, summary, sessionID string) (*Proposal, error) {
	old, hash, err := w.Read(id, filename)
	if err != nil {
		return nil, err
	}
	if err := w.checkSize(len(newText), filename); err != nil {
		return nil, err
	}
	hunks := BuildHunks(old, newText)
	if len(hunks) == 0 {
		return nil, errs.New(errs.Invalid, "drafts.Propose", "the proposed text is identical to %s; nothing to review", filename)
	}
	p := &Proposal{Token: randomToken(), DraftID: id, File: filename, BaseHash: hash, SessionID: sessionID, Summary: summary, Hunks: hunks, oldText: old}
	w.mu.Lock()
	w.proposals[p.Token] = p
	w.mu.Unlock()
	return p, nil
}

// Pending lists proposals waiting for review, optionally for one draft.
func (w *Workspace) Pending(id string) []Proposal {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []Proposal
	for _, p := range w.proposals {
		if id == "" || p.DraftID == id {
			out = append(out, *p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Token < out[j].Token })
	return out
}

// Discard drops a pending proposal.
func (w *Workspace) Discard(token string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.proposals[token]; !ok {
		return errs.New(errs.NotFound, "drafts.Discard", "no pending proposal with that token")
	}
	delete(w.proposals, token)
	return nil
}

// Apply is the only path that writes an agent's change: it consumes the
// token, refuses a proposal whose file moved since it was made, snapshots the
// current text into .versions/, and atomically writes the old text with the
// accepted hunks applied. Accepting none just discards the proposal.
func (w *Workspace) Apply(token string, accepted []int) (string, error) {
	w.mu.Lock()
	p, ok := w.proposals[token]
	if ok {
		delete(w.proposals, token) // one-shot, whatever happens next
	}
	w.mu.Unlock()
	if !ok {
		return "", errs.New(errs.Conflict, "drafts.Apply", "this proposal was already answered or discarded")
	}
	chosen := map[int]bool{}
	for _, i := range accepted {
		if i < 0 || i >= len(p.Hunks) {
			return "", errs.New(errs.Invalid, "drafts.Apply", "hunk %d does not exist (0..%d)", i, len(p.Hunks)-1)
		}
		chosen[i] = true
	}
	path, err := w.Resolve(p.DraftID, p.File)
	if err != nil {
		return "", err
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		return "", errs.Wrap(errs.Internal, "drafts.Apply", err)
	}
	if Hash(cur) != p.BaseHash {
		return "", errs.New(errs.Conflict, "drafts.Apply", "%s changed after the proposal was made; ask for a fresh proposal", p.File)
	}
	if len(chosen) == 0 {
		return p.BaseHash, nil
	}
	if err := w.snapshot(p.DraftID, p.File, cur); err != nil {
		return "", err
	}
	updated := ApplyHunks(p.oldText, p.Hunks, chosen)
	if err := w.writeFile(path, []byte(updated)); err != nil {
		return "", err
	}
	return Hash([]byte(updated)), w.touch(p.DraftID)
}
