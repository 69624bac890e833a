package drafts

import (
	"os"
	"path/filepath"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Stale lists drafts untouched for at least days, excluding kept ones. Zero
// days disables retention and returns nothing.
func (w *Workspace) Stale(days int) ([]Draft, error) {
	if days <= 0 {
		return nil, nil
	}
	all, err := w.List()
	if err != nil {
		return nil, err
	}
	cutoff := w.now().Add(-time.Duration(days) * 24 * time.Hour)
	var out []Draft
	for _, d := range all {
		if !d.Keep && d.UpdatedAt.Before(cutoff) {
			out = append(out, d)
		}
	}
	return out, nil
}

// Prune deletes stale drafts and returns their ids. It is the only deletion
// in Jarvis that touches files, and it takes draft ids (validated and
// contained), never caller-supplied paths.
func (w *Workspace) Prune(days int) ([]string, error) {
	stale, err := w.Stale(days)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, d := range stale {
		dir, err := w.draftDir(d.ID)
		if err != nil {
			return removed, err
		}
		if filepath.Dir(dir) != filepath.Clean(w.Root) {
			return removed, errs.New(errs.Internal, "drafts.Prune", "refusing to remove %s outside the drafts root", dir)
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, errs.Wrapf(errs.Internal, "drafts.Prune", err, "removing draft %s", d.ID)
		}
		removed = append(removed, d.ID)
	}
	return removed, nil
}
