package drafts

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// discardedDir holds proposals discarded together, one folder per batch,
// until the window that discarded them closes: "Discard all" can be undone
// for as long as the person who clicked it is still looking.
const discardedDir = ".discarded"

var batchPattern = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Discarded says what DiscardAll set aside.
type Discarded struct {
	Batch string `json:"batch"` // for UndoDiscard
	Count int    `json:"count"`
}

// DiscardAll sets aside every waiting proposal among tokens in one batch.
// A proposal answered meanwhile (by another window or jarvis-cli) is
// skipped: moving its file is the same one-shot step as answering it.
func (w *Workspace) DiscardAll(tokens []string) (Discarded, error) {
	const op = "drafts.DiscardAll"
	out := Discarded{Batch: randomToken()}
	waiting := map[string]Proposal{}
	for _, p := range w.Pending("") {
		waiting[p.Token] = p
	}
	for _, token := range tokens {
		p, ok := waiting[token]
		if !ok {
			continue
		}
		from, err := w.proposalPath(p.DraftID, token)
		if err != nil {
			return out, err
		}
		dir, err := w.batchDir(p.DraftID, out.Batch)
		if err != nil {
			return out, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return out, errs.Wrap(errs.Internal, op, err)
		}
		if err := os.Rename(from, filepath.Join(dir, filepath.Base(from))); errors.Is(err, fs.ErrNotExist) {
			continue // answered meanwhile
		} else if err != nil {
			return out, errs.Wrap(errs.Internal, op, err)
		}
		out.Count++
	}
	return out, nil
}

// UndoDiscard puts a batch's proposals back in the waiting list. One whose
// file changed since shows as stale there, exactly as it would have.
func (w *Workspace) UndoDiscard(batch string) (int, error) {
	const op = "drafts.UndoDiscard"
	if !batchPattern.MatchString(batch) {
		return 0, errs.New(errs.Invalid, op, "invalid discard batch %q", batch)
	}
	ids, err := w.draftIDs()
	if err != nil {
		return 0, err
	}
	restored := 0
	for _, id := range ids {
		dir, err := w.batchDir(id, batch)
		if err != nil {
			return restored, err
		}
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return restored, errs.Wrap(errs.Internal, op, err)
		}
		for _, e := range entries {
			token, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok {
				continue
			}
			to, err := w.proposalPath(id, token)
			if err != nil {
				continue // not a name Jarvis writes: left where it is
			}
			if err := os.Rename(filepath.Join(dir, e.Name()), to); err != nil {
				return restored, errs.Wrap(errs.Internal, op, err)
			}
			restored++
		}
		_ = os.Remove(dir) // empty now; a leftover is purged with the rest
	}
	if restored == 0 {
		return 0, errs.New(errs.NotFound, op, "nothing to undo: those proposals are gone")
	}
	return restored, nil
}

// PurgeDiscarded deletes every set-aside batch: a new window starts without
// an undo for what an earlier one discarded.
func (w *Workspace) PurgeDiscarded() error {
	ids, err := w.draftIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		dir, err := w.draftDir(id)
		if err != nil {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, discardedDir)); err != nil {
			return errs.Wrap(errs.Internal, "drafts.PurgeDiscarded", err)
		}
	}
	return nil
}

func (w *Workspace) batchDir(id, batch string) (string, error) {
	dir, err := w.draftDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, discardedDir, batch), nil
}

// draftIDs lists the folders of the drafts root that are draft ids.
func (w *Workspace) draftIDs() ([]string, error) {
	entries, err := os.ReadDir(w.Root)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "drafts", err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && ValidateID(e.Name()) == nil {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}
