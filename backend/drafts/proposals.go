package drafts

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// ProposalNotice is the fixed line an agent gets back when a proposal is
// deferred to the human: nothing was written.
const ProposalNotice = "Proposal only — jarvis never writes to a file unless you accept the specific change."

// proposalsDir holds a draft's waiting proposals, one JSON file each. It
// lives inside the draft, so a proposal made by one process (jarvis-cli
// ask) is reviewable in another (the window), survives restarts, and goes
// with its draft when retention removes it. Like .versions/ it is hidden
// from the draft's file list and from compiles.
const proposalsDir = ".proposals"

// tokenPattern is what randomToken makes; anything else is not a proposal.
var tokenPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Proposal is an agent's suggested edit to one draft file, held until the
// human accepts or discards it. Stale is set when the file changed after
// the proposal was made: it can no longer be applied.
type Proposal struct {
	Token     string    `json:"token"`
	DraftID   string    `json:"draft_id"`
	File      string    `json:"file"`
	BaseHash  string    `json:"base_hash"`
	SessionID string    `json:"session_id,omitempty"`
	Summary   string    `json:"summary"`
	Hunks     []Hunk    `json:"hunks"`
	CreatedAt time.Time `json:"created_at"`
	Stale     bool      `json:"stale"`
}

// storedProposal is the file on disk: the proposal and the text it was made
// against (the hunks apply to that text).
type storedProposal struct {
	Proposal
	OldText string `json:"old_text"`
}

func (w *Workspace) proposalPath(id, token string) (string, error) {
	if !tokenPattern.MatchString(token) {
		return "", errs.New(errs.NotFound, "drafts.proposal", "no pending proposal with that token")
	}
	dir, err := w.draftDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, proposalsDir, token+".json"), nil
}

// Propose builds hunks between the file's current text and newText and
// stores them as a waiting proposal under a one-shot token. The file itself
// is not written.
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
	p := Proposal{Token: randomToken(), DraftID: id, File: filename, BaseHash: hash, SessionID: sessionID, Summary: summary,
		Hunks: hunks, CreatedAt: w.now().UTC()}
	path, err := w.proposalPath(id, p.Token)
	if err != nil {
		return nil, err
	}
	if err := fsutil.EnsurePrivateDir(filepath.Dir(path)); err != nil {
		return nil, errs.Wrap(errs.Internal, "drafts.Propose", err)
	}
	b, err := json.Marshal(storedProposal{Proposal: p, OldText: old})
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "drafts.Propose", err)
	}
	if err := w.atomicWrite(path, b); err != nil {
		return nil, err
	}
	return &p, nil
}

// load reads one stored proposal; found is false when there is none.
func (w *Workspace) load(id, token string) (storedProposal, bool, error) {
	var sp storedProposal
	path, err := w.proposalPath(id, token)
	if err != nil {
		return sp, false, err
	}
	found, err := fsutil.ReadJSON(path, &sp)
	if err != nil {
		return sp, found, errs.Wrap(errs.Internal, "drafts.proposal", err)
	}
	return sp, found, nil
}

// stale reports whether the file moved since the proposal was made.
func (w *Workspace) stale(p Proposal) bool {
	_, hash, err := w.Read(p.DraftID, p.File)
	return err != nil || hash != p.BaseHash
}

// Pending lists the proposals waiting for review, optionally for one draft,
// oldest first. Each says whether it went stale. An unreadable proposal
// file is logged and skipped, never fatal to the list.
func (w *Workspace) Pending(id string) []Proposal {
	ids := []string{id}
	if id == "" {
		var err error
		if ids, err = w.draftIDs(); err != nil {
			logs.L().Error("drafts: cannot list the drafts root", "dir", w.Root, "err", err)
			return nil
		}
	}
	var out []Proposal
	for _, d := range ids {
		dir, err := w.draftDir(d)
		if err != nil {
			continue // not a draft id: nothing can be waiting there
		}
		entries, err := os.ReadDir(filepath.Join(dir, proposalsDir))
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				logs.L().Warn("drafts: proposals unreadable", "draft", d, "err", err)
			}
			continue
		}
		for _, e := range entries {
			token, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || !tokenPattern.MatchString(token) {
				continue
			}
			sp, found, err := w.load(d, token)
			if err != nil || !found {
				if err != nil {
					logs.L().Warn("drafts: proposal skipped", "draft", d, "token", token, "err", err)
				}
				continue
			}
			p := sp.Proposal
			p.Stale = w.stale(p)
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].Token < out[j].Token
	})
	return out
}

// Find returns one waiting proposal by its token.
func (w *Workspace) Find(token string) (Proposal, error) {
	for _, p := range w.Pending("") {
		if p.Token == token {
			return p, nil
		}
	}
	return Proposal{}, errs.New(errs.NotFound, "drafts.Find", "no pending proposal with that token; it was answered or discarded")
}

// claim removes a proposal's file and returns what it held. Removal is the
// one-shot step: of two processes answering the same proposal, exactly one
// removes the file, and the other is told it was already answered.
func (w *Workspace) claim(token string) (storedProposal, error) {
	p, err := w.Find(token)
	if err != nil {
		return storedProposal{}, errs.New(errs.Conflict, "drafts.Apply", "this proposal was already answered or discarded")
	}
	sp, found, err := w.load(p.DraftID, token)
	if err != nil {
		return sp, err
	}
	path, _ := w.proposalPath(p.DraftID, token) // validated by load
	if rerr := os.Remove(path); !found || errors.Is(rerr, fs.ErrNotExist) {
		return sp, errs.New(errs.Conflict, "drafts.Apply", "this proposal was already answered or discarded")
	} else if rerr != nil {
		return sp, errs.Wrap(errs.Internal, "drafts.Apply", rerr)
	}
	return sp, nil
}

// Discard drops a waiting proposal; the file it was about is not touched.
func (w *Workspace) Discard(token string) error {
	if _, err := w.claim(token); err != nil {
		if errs.Is(err, errs.Conflict) {
			return errs.New(errs.NotFound, "drafts.Discard", "no pending proposal with that token")
		}
		return err
	}
	return nil
}

// Apply is the only path that writes an agent's change: it consumes the
// token, refuses a proposal whose file moved since it was made (the
// proposal is dropped: it can never apply), snapshots the current text into
// .versions/, and atomically writes the old text with the accepted hunks
// applied. Accepting none just discards the proposal.
func (w *Workspace) Apply(token string, accepted []int) (string, error) {
	p, err := w.Find(token)
	if err != nil {
		return "", errs.New(errs.Conflict, "drafts.Apply", "this proposal was already answered or discarded")
	}
	// Bad indices are the caller's mistake: the proposal stays waiting.
	chosen := map[int]bool{}
	for _, i := range accepted {
		if i < 0 || i >= len(p.Hunks) {
			return "", errs.New(errs.Invalid, "drafts.Apply", "hunk %d does not exist (0..%d)", i, len(p.Hunks)-1)
		}
		chosen[i] = true
	}
	sp, err := w.claim(token)
	if err != nil {
		return "", err
	}
	path, err := w.Resolve(sp.DraftID, sp.File)
	if err != nil {
		return "", err
	}
	cur, err := os.ReadFile(path)
	if err != nil {
		return "", errs.Wrap(errs.Internal, "drafts.Apply", err)
	}
	if Hash(cur) != sp.BaseHash {
		return "", errs.WithHint(errs.New(errs.Conflict, "drafts.Apply",
			"%s changed after this proposal was made, so it was not applied and has been dropped", sp.File),
			"nothing was written; ask the agent for a fresh proposal against the current text")
	}
	if len(chosen) == 0 {
		return sp.BaseHash, nil
	}
	if err := w.snapshot(sp.DraftID, sp.File, cur); err != nil {
		return "", err
	}
	updated := ApplyHunks(sp.OldText, sp.Hunks, chosen)
	if err := w.writeFile(path, []byte(updated)); err != nil {
		return "", err
	}
	return Hash([]byte(updated)), w.touch(sp.DraftID, path)
}
