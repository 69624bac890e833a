package backup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// failSwapAfter, when >= 0, makes the swap fail after that many parts
// (tests use it to prove a failed swap puts everything back).
var failSwapAfter = -1

// Result is what a restore did.
type Result struct {
	Manifest *Manifest
	Restored []string // the parts replaced, by name
	Warnings []string // cleanup that did not finish (the restore itself did)
}

// Restore replaces cfg's data (the store, sessions, drafts, prompts and the
// config file) with the set in dir. It verifies the whole set first, refuses
// while another Jarvis process uses the data dir, stages a full copy of each
// part beside its target, and only then swaps the parts in; if a swap fails,
// the ones already made are undone. A part the set does not hold (it did
// not exist when the set was made) is emptied, so the result is the set.
func Restore(ctx context.Context, cfg *config.Config, dir string) (*Result, error) {
	const op = "backup.Restore"
	m, err := Verify(ctx, dir)
	if err != nil {
		return nil, err
	}
	ps, err := parts(cfg)
	if err != nil {
		return nil, err
	}
	if !holds(m, "ledger") {
		// A set made before the ledger was backed up says nothing about
		// what was sent since: the record of it stays.
		ps = slices.DeleteFunc(ps, func(p part) bool { return p.name == "ledger" })
	}
	if !holds(m, "images") {
		// A set without image copies (made before there were any, or
		// before they were backed up) leaves today's copies in place.
		ps = slices.DeleteFunc(ps, func(p part) bool { return p.name == "images" })
	}
	lock, free, err := fsutil.TryExclusive(daemon.DataDirLockPath(cfg))
	if err != nil {
		return nil, err
	}
	if !free {
		who := "the window, the tray or `jarvis-cli sync`"
		if h, running := daemon.SchedulerHolder(cfg); running {
			who += "; the scheduler runs as " + h.String()
		}
		return nil, errs.New(errs.Conflict, op, "the data dir %s is in use by a running Jarvis (%s); close it and restore again", cfg.Home, who)
	}
	defer lock.Release()

	token, err := randomToken()
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	staged, err := stage(ctx, m, ps, dir, token)
	if err != nil {
		return nil, err
	}
	if err := swap(staged); err != nil {
		return nil, err
	}
	res := &Result{Manifest: m}
	for _, s := range staged {
		res.Restored = append(res.Restored, s.name)
		if s.old == "" {
			continue
		}
		if err := os.RemoveAll(s.old); err != nil {
			w := fmt.Sprintf("the previous %s could not be removed from %s: %v", s.name, s.old, err)
			logs.L().Warn("restore cleanup", "err", w)
			res.Warnings = append(res.Warnings, w)
		}
	}
	return res, nil
}

// holds reports whether the set has files of the named part.
func holds(m *Manifest, name string) bool {
	return slices.ContainsFunc(m.Files, func(f File) bool { return strings.HasPrefix(f.Path, name+"/") })
}

// staging is one part ready to swap in.
type staging struct {
	part
	staged string // the staged copy ("" when the set holds none: the target is emptied)
	old    string // where the current target is moved aside
	// progress, for rollback
	movedOld, placedNew bool
}

func randomToken() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// stage copies every part of the set next to its target, checking each
// file against the manifest again on the way. On failure every staged copy
// is removed and nothing else has changed.
func stage(ctx context.Context, m *Manifest, ps []part, dir, token string) (out []*staging, err error) {
	const op = "backup.Restore"
	defer func() {
		if err != nil {
			for _, s := range out {
				if s.staged != "" {
					os.RemoveAll(s.staged) // our own staging copy; the live data was not touched
				}
			}
		}
	}()
	for _, p := range ps {
		parent, base := filepath.Dir(p.target), filepath.Base(p.target)
		if err := os.MkdirAll(parent, fsutil.PrivateDirMode); err != nil {
			return out, errs.Wrap(errs.Internal, op, err)
		}
		s := &staging{part: p, old: filepath.Join(parent, ".restore-"+token+"-old-"+base)}
		out = append(out, s)
		stagedPath := filepath.Join(parent, ".restore-"+token+"-new-"+base)
		if p.dir {
			if err := fsutil.EnsurePrivateDir(stagedPath); err != nil {
				return out, errs.Wrap(errs.Internal, op, err)
			}
			s.staged = stagedPath
		}
		for _, f := range m.Files {
			if err := ctx.Err(); err != nil {
				return out, errs.Wrap(errs.Cancelled, op, err)
			}
			var dst string
			switch {
			case !p.dir && f.Path == p.name:
				dst = stagedPath
			case p.dir && strings.HasPrefix(f.Path, p.name+"/"):
				dst = filepath.Join(stagedPath, filepath.FromSlash(strings.TrimPrefix(f.Path, p.name+"/")))
			default:
				continue
			}
			want := f
			if _, err := copyFile(filepath.Join(dir, filepath.FromSlash(f.Path)), dst, f.Path, &want); err != nil {
				return out, err
			}
			s.staged = stagedPath
		}
	}
	return out, nil
}

// swap moves each target aside and its staged copy in. A failure undoes
// every step already taken, in reverse, so the data is all old or all new.
func swap(staged []*staging) error {
	const op = "backup.Restore"
	var failure error
	for i, s := range staged {
		if i == failSwapAfter {
			failure = errors.New("injected swap failure")
			break
		}
		if _, err := os.Lstat(s.target); err == nil {
			if err := os.Rename(s.target, s.old); err != nil {
				failure = err
				break
			}
			s.movedOld = true
		} else if !errors.Is(err, fs.ErrNotExist) {
			failure = err
			break
		}
		if s.staged != "" {
			if err := os.Rename(s.staged, s.target); err != nil {
				failure = err
				break
			}
			s.placedNew = true
		}
	}
	if failure == nil {
		return nil
	}
	var undo []string
	for i := len(staged) - 1; i >= 0; i-- {
		s := staged[i]
		if s.placedNew {
			if err := os.Rename(s.target, s.staged); err != nil {
				undo = append(undo, err.Error())
			}
		}
		if s.movedOld {
			if err := os.Rename(s.old, s.target); err != nil {
				undo = append(undo, err.Error())
			}
		}
		if s.staged != "" {
			os.RemoveAll(s.staged) // our staging copy, back out of the way
		}
	}
	if len(undo) > 0 {
		// Not expected (renames within one folder): say exactly where the
		// previous data is so nothing is lost.
		return errs.New(errs.Internal, op, "restore failed (%v) and could not be fully undone: %s; the previous data is in the .restore-*-old-* folders beside each target",
			failure, strings.Join(undo, "; "))
	}
	return errs.Wrapf(errs.Internal, op, failure, "restore failed; the previous data is back in place")
}
