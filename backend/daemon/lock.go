package daemon

import (
	"path/filepath"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// The locks that keep the processes sharing one data dir (the window, the
// tray, jarvis-cli) out of each other's way. They are flocks, so a crashed
// holder never leaves one behind.

// SchedulerLockPath is held by whichever process runs the scheduler: the
// tray (`jarvis --tray`) or `jarvis-cli sync`, never both.
func SchedulerLockPath(cfg *config.Config) string {
	return filepath.Join(cfg.StateDir(), "scheduler.lock")
}

// DigestLockPath is held while a digest runs, whether the scheduler or
// `jarvis-cli digest run` started it.
func DigestLockPath(cfg *config.Config) string { return filepath.Join(cfg.StateDir(), "digest.lock") }

// DataDirLockPath is held shared by every long-running process using the
// data dir, and exclusively by a restore replacing it.
func DataDirLockPath(cfg *config.Config) string { return filepath.Join(cfg.StateDir(), "in-use.lock") }

// LockScheduler makes this process the data dir's one scheduler. A running
// scheduler is an errs.Conflict wrapping *sync.HeldError, which says who
// runs it.
func LockScheduler(cfg *config.Config) (*fsutil.Lock, error) {
	return fsutil.Acquire(SchedulerLockPath(cfg), "the scheduler")
}

// SchedulerHolder reports whether a scheduler runs for the data dir, and who.
func SchedulerHolder(cfg *config.Config) (fsutil.Holder, bool) {
	return fsutil.Held(SchedulerLockPath(cfg))
}

// LockDigest makes this process the data dir's one digest run.
func LockDigest(cfg *config.Config) (*fsutil.Lock, error) {
	return fsutil.Acquire(DigestLockPath(cfg), "a digest run")
}

// HoldDataDir marks the data dir as in use for the life of the process; it
// waits while a restore is replacing the data.
func HoldDataDir(cfg *config.Config) (*fsutil.Lock, error) {
	return fsutil.HoldShared(DataDirLockPath(cfg))
}
