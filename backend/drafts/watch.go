package drafts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Watch calls changed, at most once per debounce, whenever something in
// the drafts tree changes: a draft or file made or removed, a save, a
// proposal made or answered — by this process or another (jarvis-cli
// ask writes proposals into the same tree). It watches the root, each
// draft folder and each draft's hidden folders (proposals), and returns
// when ctx ends.
func (w *Workspace) Watch(ctx context.Context, debounce time.Duration, changed func()) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return errs.Wrap(errs.Internal, "drafts.Watch", err)
	}
	defer fw.Close()
	root := filepath.Clean(w.Root)
	if err := fw.Add(root); err != nil {
		return errs.Wrap(errs.Internal, "drafts.Watch", err)
	}
	// depth is a folder's place under the root: 1 a draft, 2 a draft's
	// bookkeeping folder; deeper folders are none of ours.
	depth := func(p string) int {
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return 0
		}
		return len(strings.Split(rel, string(filepath.Separator)))
	}
	var add func(dir string)
	add = func(dir string) {
		if d := depth(dir); d < 1 || d > 2 {
			return
		}
		if err := fw.Add(dir); err != nil {
			return // it went away again, or a watch limit: the next event retries
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				add(filepath.Join(dir, e.Name()))
			}
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return errs.Wrap(errs.Internal, "drafts.Watch", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			add(filepath.Join(root, e.Name()))
		}
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			timer.Reset(debounce) // events may have been dropped: look again
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
					add(ev.Name)
				}
			}
			timer.Reset(debounce)
		case <-timer.C:
			changed()
		}
	}
}
