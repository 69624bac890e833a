// Package vaultwatch keeps the knowledge base in step with the vault as
// files change (fsnotify): a saved, renamed or deleted note is found — or
// gone — by keyword search within moments. It is the only package that
// imports fsnotify; what a change means for the index is vault's job.
package vaultwatch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/jarvis-kb/jarvis/backend/vault"
)

// Defaults for the timing knobs.
const (
	DefaultDebounce = 300 * time.Millisecond // editors save in bursts (temp file, rename, chmod)
	DefaultMaxDelay = time.Second            // a steady stream of events still gets indexed
	DefaultPoll     = 2 * time.Second        // how often a missing vault is looked for
)

// Watcher syncs one vault. A full refresh runs when watching starts (to
// catch what changed while nobody watched), when a folder appears or
// disappears, and when the kernel dropped events; otherwise only the paths
// that changed are refreshed. A vault folder that disappears (an unmounted
// drive, a sync client) is waited for, never treated as "every note was
// deleted".
type Watcher struct {
	Refresher *vault.Refresher
	Debounce  time.Duration
	MaxDelay  time.Duration
	Poll      time.Duration
	// OnChange is told what each sync did (to start the backfill, to tell
	// the window); it runs on the watcher's goroutine.
	OnChange func(vault.Result)
	// OnSynced is told after every sync, even one that found the changes
	// already stored by another process watching the same vault (the
	// other process's chunks may still wait for their vectors).
	OnSynced func()
	Log      func(format string, args ...any)
}

func (w *Watcher) logf(format string, args ...any) {
	if w.Log != nil {
		w.Log(format, args...)
	}
}

// Run watches until ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	debounce, maxDelay, poll := w.Debounce, w.MaxDelay, w.Poll
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	if maxDelay <= 0 {
		maxDelay = DefaultMaxDelay
	}
	if poll <= 0 {
		poll = DefaultPoll
	}
	missing := false
	for {
		if !isDir(w.Refresher.Root) {
			if !missing {
				w.logf("vault watch: %s is not there; waiting for it", w.Refresher.Root)
				missing = true
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(poll):
			}
			continue
		}
		missing = false
		err := w.watch(ctx, debounce, maxDelay, poll)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			w.logf("vault watch: %v; starting over", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(poll):
			}
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// errVaultGone ends one watch session: the root folder went away.
var errVaultGone = errors.New("the vault folder disappeared")

// watch runs one session: watches on every folder, an initial refresh, then
// events until the vault disappears or ctx ends.
func (w *Watcher) watch(ctx context.Context, debounce, maxDelay, poll time.Duration) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	dirs := map[string]bool{}
	if err := w.addTree(fw, w.Refresher.Root, dirs); err != nil {
		return err
	}
	w.sync(ctx, nil, true)

	pending := map[string]bool{}
	full := false
	var first time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	// The root's own removal is not always reported (a bind mount, a
	// rename of a parent): check it on every quiet poll too.
	check := time.NewTicker(poll)
	defer check.Stop()
	flush := func() {
		paths := make([]string, 0, len(pending))
		for p := range pending {
			paths = append(paths, p)
		}
		clear(pending)
		w.sync(ctx, paths, full)
		full = false
		first = time.Time{}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-check.C:
			if !isDir(w.Refresher.Root) {
				return errVaultGone
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return errors.New("watcher closed")
			}
			w.logf("vault watch: %v", err)
			full = true // events may have been dropped (queue overflow)
			timer.Reset(debounce)
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("watcher closed")
			}
			if ev.Name == w.Refresher.Root && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				return errVaultGone
			}
			rel, ok := w.rel(ev.Name)
			if !ok {
				continue
			}
			switch {
			case ev.Has(fsnotify.Create) && isDir(ev.Name):
				// A new or moved-in folder: watch it and index what it holds.
				if err := w.addTree(fw, ev.Name, dirs); err != nil {
					w.logf("vault watch: %v", err)
				}
				full = true
			case ev.Has(fsnotify.Remove|fsnotify.Rename) && dirs[ev.Name]:
				delete(dirs, ev.Name)
				full = true // a folder left: its notes go in the refresh
			default:
				pending[rel] = true
			}
			if first.IsZero() {
				first = time.Now()
			}
			wait := min(debounce, maxDelay-time.Since(first))
			timer.Reset(max(wait, 0))
		case <-timer.C:
			flush()
		}
	}
}

// rel maps an absolute event path to a vault-relative slash path, dropping
// paths the vault never indexes (hidden or excluded) so editors' swap files
// and .obsidian churn cost nothing.
func (w *Watcher) rel(p string) (string, bool) {
	rel, err := filepath.Rel(w.Refresher.Root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if vault.HiddenPath(rel) || vault.Excluded(w.Refresher.Exclude, rel) {
		return "", false
	}
	return rel, true
}

// addTree watches dir and every folder under it the vault indexes.
func (w *Watcher) addTree(fw *fsnotify.Watcher, dir string, dirs map[string]bool) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder that vanished mid-walk
		}
		if !d.IsDir() {
			return nil
		}
		if p != w.Refresher.Root {
			if _, ok := w.rel(p); !ok {
				return filepath.SkipDir
			}
		}
		if err := fw.Add(p); err != nil {
			return err
		}
		dirs[p] = true
		return nil
	})
}

// sync refreshes the changed paths (or the whole vault) and reports.
func (w *Watcher) sync(ctx context.Context, paths []string, full bool) {
	var total vault.Result
	if full {
		res, err := w.Refresher.Refresh(ctx)
		if err != nil {
			w.logf("vault watch: refresh: %v", err)
		}
		total = res
	} else if len(paths) > 0 {
		res, err := w.Refresher.RefreshFiles(ctx, paths)
		if err != nil {
			w.logf("vault watch: %v", err)
		}
		total = res
	}
	for _, warning := range total.Warnings {
		w.logf("vault watch: warning: %s", warning)
	}
	if w.OnChange != nil && total.Added+total.Updated+total.Deleted+total.Reclassified > 0 {
		w.OnChange(total)
	}
	if w.OnSynced != nil && (full || len(paths) > 0) {
		w.OnSynced()
	}
}
