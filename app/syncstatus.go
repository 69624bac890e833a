package app

import (
	"context"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/backend/tray"
)

// Sync serves the sync status panel. The scheduler itself lives in the tray
// process; the window reads its status file, lists the PDF inbox and
// retries a failed file on request.
type Sync struct {
	cfg  *config.Config
	core *core
}

// SyncView is the panel.
type SyncView struct {
	Running bool           `json:"running"`
	PID     int            `json:"pid"`
	Since   time.Time      `json:"since"`
	Jobs    []tray.JobLine `json:"jobs"`
}

// Status reads the status file and checks the scheduler is alive.
func (s *Sync) Status() (SyncView, error) {
	st, err := jsync.ReadStatus(daemon.StatusPath(s.cfg))
	if err != nil {
		return SyncView{}, err
	}
	v := SyncView{PID: st.PID, Since: st.StartedAt, Running: st.PID != 0 && jsync.Alive(st.PID)}
	v.Jobs = tray.Lines(st, st.Disabled, time.Now())
	return v, nil
}

// InboxView is the panel's inbox section; Dir is empty when no inbox is
// set up.
type InboxView struct {
	Dir   string             `json:"dir"`
	Files []ingest.InboxFile `json:"files"`
}

// Inbox lists the PDF inbox's files: failed ones with the reason, waiting
// and indexed ones.
func (s *Sync) Inbox() (InboxView, error) {
	if s.cfg.Sync.PDFWatchDir == "" {
		return InboxView{Files: []ingest.InboxFile{}}, nil
	}
	in, err := s.core.agent().Inbox()
	if err != nil {
		return InboxView{}, err
	}
	files, err := in.Status(context.Background())
	return InboxView{Dir: in.Dir, Files: files}, err
}

// RetryInbox reads one inbox file again now; the answer says what became
// of it (added, replaced, unchanged).
func (s *Sync) RetryInbox(name string) (string, error) {
	in, err := s.core.agent().Inbox()
	if err != nil {
		return "", err
	}
	outcome, err := in.Retry(context.Background(), name)
	if err == nil {
		s.core.emitStatus()
	}
	return outcome, err
}
