package drafts

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// Visibility mirrors the knowledge base's: a draft inherits its session's.
const (
	Public  = "public"
	Private = "private"
)

// Meta is draft.json: the sandbox's own bookkeeping for one draft.
type Meta struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	MainFile  string    `json:"main_file"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Visibility is "private" when the creating session was private; a
	// private draft must not be read back to a cloud model.
	Visibility string `json:"visibility"`
	SessionID  string `json:"session_id,omitempty"`
	Keep       bool   `json:"keep"` // exempt from retention
	// ChatSession is the conversation docked beside the draft in the
	// editor (the human's, not the creating session).
	ChatSession string `json:"chat_session,omitempty"`
}

// Draft is a draft's metadata and file list.
type Draft struct {
	Meta
	Files []string `json:"files"`
	// FilesChanged is the newest modification time of any file in the
	// folder, whoever wrote it: a draft edited in another editor is as
	// alive as one edited here.
	FilesChanged time.Time `json:"files_changed"`
}

// LastChange is when the draft last changed, through Jarvis or outside
// it; retention counts from here.
func (d Draft) LastChange() time.Time {
	if d.FilesChanged.After(d.UpdatedAt) {
		return d.FilesChanged
	}
	return d.UpdatedAt
}

// newID names a draft by chance alone: an id travels to models and logs
// that must not learn a private draft's title from it.
func newID() string { return "draft-" + randomToken()[:12] }

// Create makes a new draft folder with its main file. Creation is a free
// write: nothing existed to overwrite.
func (w *Workspace) Create(title, mainFile, content, visibility, sessionID string) (*Draft, error) {
	if visibility != Private {
		visibility = Public
	}
	if strings.TrimSpace(title) == "" {
		return nil, errs.New(errs.Invalid, "drafts.Create", "a draft needs a title")
	}
	id := newID()
	if err := w.checkName(mainFile); err != nil {
		return nil, err
	}
	if err := w.checkSize(len(content), mainFile); err != nil {
		return nil, err
	}
	dir := filepath.Join(w.Root, id)
	if err := os.Mkdir(dir, fsutil.PrivateDirMode); err != nil {
		return nil, errs.Wrap(errs.Internal, "drafts.Create", err)
	}
	now := w.now().UTC()
	meta := Meta{ID: id, Title: title, MainFile: mainFile, CreatedAt: now, UpdatedAt: now, Visibility: visibility, SessionID: sessionID}
	path, err := w.Resolve(id, mainFile)
	if err == nil {
		err = w.writeFile(path, []byte(content))
	}
	if err == nil {
		err = w.stamp(path, now)
	}
	if err == nil {
		err = w.writeMeta(meta)
	}
	if err != nil {
		_ = os.RemoveAll(dir) // a half-made draft is removed; the error is what matters
		return nil, err
	}
	return w.Get(id)
}

// AddFile adds a new file to a draft; an existing name is refused.
func (w *Workspace) AddFile(id, filename, content string) error {
	path, err := w.Resolve(id, filename)
	if err != nil {
		return err
	}
	if _, err := w.meta(id); err != nil {
		return err
	}
	if err := w.createExclusive(path, []byte(content)); err != nil {
		return err
	}
	return w.touch(id, path)
}

// Read returns a file's content and hash.
func (w *Workspace) Read(id, filename string) (string, string, error) {
	path, err := w.Resolve(id, filename)
	if err != nil {
		return "", "", err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", errs.New(errs.NotFound, "drafts.Read", "no file %s in draft %s", filename, id)
	}
	if err != nil {
		return "", "", errs.Wrap(errs.Internal, "drafts.Read", err)
	}
	if err := w.checkSize(len(b), filename); err != nil {
		return "", "", err
	}
	return string(b), Hash(b), nil
}

// Save is the human's own save. When expectHash is set and the file changed
// underneath (another tab, an external edit), the write is refused.
func (w *Workspace) Save(id, filename, content, expectHash string) (string, error) {
	path, err := w.Resolve(id, filename)
	if err != nil {
		return "", err
	}
	if _, err := w.meta(id); err != nil {
		return "", err
	}
	if expectHash != "" {
		cur, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", errs.Wrap(errs.Internal, "drafts.Save", err)
		}
		if Hash(cur) != expectHash {
			return "", errs.New(errs.Conflict, "drafts.Save", "%s changed since it was opened; reload it before saving", filename)
		}
	}
	if err := w.writeFile(path, []byte(content)); err != nil {
		return "", err
	}
	return Hash([]byte(content)), w.touch(id, path)
}

// Get returns one draft.
func (w *Workspace) Get(id string) (*Draft, error) {
	meta, err := w.meta(id)
	if err != nil {
		return nil, err
	}
	dir, err := w.draftDir(id)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "drafts.Get", err)
	}
	d := &Draft{Meta: *meta, Files: []string{}, FilesChanged: w.newestFileTime(dir)}
	for _, e := range entries {
		if e.Type().IsRegular() && w.checkName(e.Name()) == nil {
			d.Files = append(d.Files, e.Name())
		}
	}
	return d, nil
}

// List returns every draft, most recently updated first. Folders without a
// readable draft.json are skipped, not fatal.
func (w *Workspace) List() ([]Draft, error) {
	ids, err := w.draftIDs()
	if err != nil {
		return nil, err
	}
	var out []Draft
	for _, id := range ids {
		d, err := w.Get(id)
		if err != nil {
			continue
		}
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].LastChange().After(out[j].LastChange()) })
	return out, nil
}

// SetKeep marks a draft exempt from (or subject to) retention.
func (w *Workspace) SetKeep(id string, keep bool) error {
	return w.updateMeta(id, func(m *Meta) { m.Keep = keep })
}

// SetChatSession records the conversation the editor docks beside a draft.
func (w *Workspace) SetChatSession(id, sessionID string) error {
	if sessionID != "" {
		if err := ValidateID(sessionID); err != nil {
			return err
		}
	}
	return w.updateMeta(id, func(m *Meta) { m.ChatSession = sessionID })
}

// updateMeta changes draft.json's bookkeeping; the draft's own age (what
// retention counts) is left alone.
func (w *Workspace) updateMeta(id string, change func(*Meta)) error {
	meta, err := w.meta(id)
	if err != nil {
		return err
	}
	change(meta)
	return w.writeMeta(*meta)
}

func (w *Workspace) metaPath(id string) (string, error) {
	dir, err := w.draftDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, metaFile), nil
}

func (w *Workspace) meta(id string) (*Meta, error) {
	p, err := w.metaPath(id)
	if err != nil {
		return nil, err
	}
	var m Meta
	found, err := fsutil.ReadJSON(p, &m)
	if err != nil {
		return nil, errs.Wrapf(errs.Internal, "drafts", err, "cannot read draft %s", id)
	}
	if !found {
		return nil, errs.New(errs.NotFound, "drafts", "no draft %q", id)
	}
	return &m, nil
}

func (w *Workspace) writeMeta(m Meta) error {
	p, err := w.metaPath(m.ID)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(m, "", "  ") // plain struct: always marshals
	return w.atomicWrite(p, b)
}

// touch records a write to path in draft.json.
func (w *Workspace) touch(id, path string) error {
	m, err := w.meta(id)
	if err != nil {
		return err
	}
	m.UpdatedAt = w.now().UTC()
	if err := w.stamp(path, m.UpdatedAt); err != nil {
		return err
	}
	return w.writeMeta(*m)
}

// stamp gives a file Jarvis just wrote the workspace clock's time when that
// clock is injected, so a file's age and draft.json agree in tests that
// move time; with the real clock the file system's own time stands.
func (w *Workspace) stamp(path string, t time.Time) error {
	if w.Now == nil {
		return nil
	}
	if err := os.Chtimes(path, t, t); err != nil {
		return errs.Wrap(errs.Internal, "drafts.write", err)
	}
	return nil
}

// newestFileTime is the newest modification time of a regular file under a
// draft's folder, subfolders the user made included. Jarvis's own
// bookkeeping (draft.json, dot-folders of versions and proposals, temporary
// files) does not count: reading or reorganising a draft is not editing it.
// A folder that cannot be walked counts as changed just now, so retention
// never removes what it could not inspect.
func (w *Workspace) newestFileTime(dir string) time.Time {
	var newest time.Time
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		if strings.HasPrefix(e.Name(), ".") {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || (filepath.Dir(path) == dir && e.Name() == metaFile) {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		return nil
	})
	if err != nil {
		return w.now().UTC()
	}
	return newest
}
