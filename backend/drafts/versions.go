package drafts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// Version is one snapshot of a file in .versions/.
type Version struct {
	ID   string    `json:"id"` // <unix-nanos>--<file>
	File string    `json:"file"`
	Size int       `json:"size"`
	At   time.Time `json:"at"` // when the snapshot was taken
}

func (w *Workspace) versionsPath(id string) (string, error) {
	dir, err := w.draftDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, versionsDir), nil
}

func (w *Workspace) snapshot(id, filename string, content []byte) error {
	vdir, err := w.versionsPath(id)
	if err != nil {
		return err
	}
	if err := fsutil.EnsurePrivateDir(vdir); err != nil {
		return errs.Wrap(errs.Internal, "drafts.snapshot", err)
	}
	name := fmt.Sprintf("%020d--%s", w.now().UnixNano(), filename)
	return w.atomicWrite(filepath.Join(vdir, name), content)
}

// Versions lists snapshots of filename, newest first.
func (w *Workspace) Versions(id, filename string) ([]Version, error) {
	if _, err := w.Resolve(id, filename); err != nil {
		return nil, err
	}
	vdir, err := w.versionsPath(id)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(vdir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Version{}, nil
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "drafts.Versions", err)
	}
	out := []Version{}
	for _, e := range entries {
		_, file, ok := strings.Cut(e.Name(), "--")
		if !ok || file != filename || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, Version{ID: e.Name(), File: file, Size: int(info.Size()), At: versionTime(e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// versionTime reads the snapshot time out of a version id.
func versionTime(versionID string) time.Time {
	stamp, _, _ := strings.Cut(versionID, "--")
	nanos, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, nanos).UTC()
}

// SaveVersioned is Save for the human's own edits: the text it replaces is
// kept as a version first, so every save can be undone from History. A
// save that changes nothing, or that Save refuses (stale hash), adds none.
func (w *Workspace) SaveVersioned(id, filename, content, expectHash string) (string, error) {
	path, err := w.Resolve(id, filename)
	if err != nil {
		return "", err
	}
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", errs.Wrap(errs.Internal, "drafts.SaveVersioned", err)
	}
	if err == nil && string(cur) != content && (expectHash == "" || Hash(cur) == expectHash) {
		if err := w.snapshot(id, filename, cur); err != nil {
			return "", err
		}
	}
	return w.Save(id, filename, content, expectHash)
}

func (w *Workspace) versionFile(id, versionID string) (string, string, error) {
	stamp, file, ok := strings.Cut(versionID, "--")
	if !ok || stamp == "" || strings.Trim(stamp, "0123456789") != "" {
		return "", "", errs.New(errs.Invalid, "drafts", "invalid version id %q", versionID)
	}
	if _, err := w.Resolve(id, file); err != nil {
		return "", "", err
	}
	vdir, err := w.versionsPath(id)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(vdir, versionID), file, nil
}

// ReadVersion returns a snapshot's content.
func (w *Workspace) ReadVersion(id, versionID string) (string, error) {
	p, _, err := w.versionFile(id, versionID)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", errs.New(errs.NotFound, "drafts.ReadVersion", "no version %s", versionID)
	}
	if err != nil {
		return "", errs.Wrap(errs.Internal, "drafts.ReadVersion", err)
	}
	return string(b), nil
}

// RestoreVersion snapshots the current text first (so a restore is itself
// undoable), then writes the chosen version back.
func (w *Workspace) RestoreVersion(id, versionID string) (string, error) {
	content, err := w.ReadVersion(id, versionID)
	if err != nil {
		return "", err
	}
	_, file, _ := w.versionFile(id, versionID) // validated by ReadVersion
	path, err := w.Resolve(id, file)
	if err != nil {
		return "", err
	}
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", errs.Wrap(errs.Internal, "drafts.RestoreVersion", err)
	}
	if err == nil {
		if err := w.snapshot(id, file, cur); err != nil {
			return "", err
		}
	}
	if err := w.writeFile(path, []byte(content)); err != nil {
		return "", err
	}
	return Hash([]byte(content)), w.touch(id, path)
}
