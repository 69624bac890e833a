package drafts

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Stale lists drafts whose newest file (or Jarvis's own record of a
// write) is at least days old, excluding kept ones. Zero
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
		if !d.Keep && d.LastChange().Before(cutoff) {
			out = append(out, d)
		}
	}
	return out, nil
}

// Prune deletes stale drafts and returns their ids. With Delete (the
// human's own) it is the only deletion in Jarvis that touches files, and
// both take draft ids (validated and contained), never caller-supplied
// paths.
func (w *Workspace) Prune(days int) ([]string, error) {
	return w.prune(days, nil)
}

// PruneListed deletes the drafts among listed that are still stale: what a
// human was shown and agreed to, minus any draft edited since. A draft that
// went stale after the listing is left for the next sweep.
func (w *Workspace) PruneListed(days int, listed []string) ([]string, error) {
	if len(listed) == 0 {
		return nil, nil
	}
	return w.prune(days, listed)
}

func (w *Workspace) prune(days int, only []string) ([]string, error) {
	stale, err := w.Stale(days)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, d := range stale {
		if only != nil && !slices.Contains(only, d.ID) {
			continue
		}
		if err := w.remove(d.ID, "drafts.Prune"); err != nil {
			return removed, err
		}
		removed = append(removed, d.ID)
	}
	return removed, nil
}

// Delete removes a draft and everything in it, its waiting proposals
// included. It is the human's own delete (the editor's, after a
// confirmation naming the folder): no agent tool reaches it.
func (w *Workspace) Delete(id string) error {
	if _, err := w.meta(id); err != nil {
		return err
	}
	return w.remove(id, "drafts.Delete")
}

// remove deletes one draft folder: an id, validated and contained, never a
// caller's path, and only a direct child of the drafts root.
func (w *Workspace) remove(id, op string) error {
	dir, err := w.draftDir(id)
	if err != nil {
		return err
	}
	if filepath.Dir(dir) != filepath.Clean(w.Root) {
		return errs.New(errs.Internal, op, "refusing to remove %s outside the drafts root", dir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return errs.Wrapf(errs.Internal, op, err, "removing draft %s", id)
	}
	return nil // its waiting proposals lived in its folder
}

// DaysLeft is how many days remain before retention removes d, counting
// from its last change like Stale does; ok is false when it never will (a
// kept draft, or retention off).
func DaysLeft(d Draft, days int, now time.Time) (left int, ok bool) {
	if days <= 0 || d.Keep {
		return 0, false
	}
	remaining := d.LastChange().Add(time.Duration(days) * 24 * time.Hour).Sub(now)
	if remaining <= 0 {
		return 0, true
	}
	return int((remaining + 24*time.Hour - 1) / (24 * time.Hour)), true
}

// Dir is a draft's folder (for the file manager), checked like every path.
func (w *Workspace) Dir(id string) (string, error) {
	if _, err := w.meta(id); err != nil {
		return "", err
	}
	return w.draftDir(id)
}
