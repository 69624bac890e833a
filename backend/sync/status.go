package sync

import (
	"encoding/json"
	"errors"
	"syscall"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// JobStatus is one job's recorded outcome.
type JobStatus struct {
	LastRun     time.Time `json:"last_run,omitempty"`
	LastSuccess time.Time `json:"last_success,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	NextRun     time.Time `json:"next_run,omitempty"`
	Schedule    string    `json:"schedule,omitempty"`
}

// Status is sync_status.json.
type Status struct {
	PID       int                  `json:"pid"`
	StartedAt time.Time            `json:"started_at"`
	Jobs      map[string]JobStatus `json:"jobs"`
	// Disabled lists jobs that are off by configuration (not faults).
	Disabled map[string]string `json:"disabled,omitempty"`
}

// ReadStatus loads the status file; a missing file is an empty status.
func ReadStatus(path string) (Status, error) {
	st := Status{Jobs: map[string]JobStatus{}}
	if _, err := fsutil.ReadJSON(path, &st); err != nil {
		return st, errs.Wrap(errs.Internal, "sync.ReadStatus", err)
	}
	if st.Jobs == nil {
		st.Jobs = map[string]JobStatus{}
	}
	return st, nil
}

// WriteStatus saves the status atomically.
func WriteStatus(path string, st Status) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return errs.Wrap(errs.Internal, "sync.WriteStatus", err)
	}
	return errs.Wrap(errs.Internal, "sync.WriteStatus", fsutil.WriteFileAtomic(path, b, 0o600))
}

// Alive reports whether a pid names a running process.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
