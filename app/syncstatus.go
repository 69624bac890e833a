package app

import (
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/backend/tray"
)

// Sync serves the sync status panel. The scheduler itself lives in the tray
// process; the window only reads its status file.
type Sync struct{ cfg *config.Config }

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
