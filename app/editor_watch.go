package app

import (
	"context"
	"time"

	"github.com/jarvis-kb/jarvis/backend/logs"
)

// watch tells the window about every change in the drafts tree (a
// DraftsEvent), whichever process made it, so a proposal made by
// `jarvis-cli ask` shows up without a reload.
func (e *Editor) watch() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stop != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	e.stop = func() { cancel(); <-done }
	go func() {
		defer close(done)
		if err := e.ws.Watch(ctx, 150*time.Millisecond, func() { e.core.emit(DraftsEvent, nil) }); err != nil {
			logs.L().Warn("drafts: not watching for changes; the editor shows them on its next load", "err", err)
		}
	}()
}

// close stops the watcher and removes the compiled PDFs.
func (e *Editor) close() {
	e.mu.Lock()
	stop := e.stop
	e.stop = nil
	e.mu.Unlock()
	if stop != nil {
		stop()
	}
	e.closePDFs()
}
