package sync

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	gosync "sync"
	"time"
)

// Job is one scheduled task. Run must return its own error; the scheduler
// records it and carries on, so one failing job never stops the others.
type Job struct {
	ID       string
	Schedule Schedule
	AtStart  bool
	Run      func(ctx context.Context, rec Recorder) error
}

// Recorder lets a job read and record other jobs' outcomes: the digest
// catch-up checks, and on running advances, the digest's own last success.
type Recorder interface {
	LastSuccess(id string) time.Time
	Succeeded(id string, at time.Time)
}

// LastSuccess is the recorded last success of a job (zero if none).
func (s *Scheduler) LastSuccess(id string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status.Jobs[id].LastSuccess
}

// Succeeded records a success for a job run on its behalf by another job.
func (s *Scheduler) Succeeded(id string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	js := s.status.Jobs[id]
	js.LastRun, js.LastSuccess, js.LastError = at, at, ""
	s.status.Jobs[id] = js
}

// Scheduler runs jobs on their schedules and records outcomes.
type Scheduler struct {
	Jobs       []Job
	StatusPath string
	Disabled   map[string]string
	Now        func() time.Time
	Log        func(format string, args ...any)
	// Redact scrubs secrets from what the scheduler makes durable: each
	// job's last error in the status file and every log line (nil: none).
	Redact func(string) string

	mu     gosync.Mutex
	runMu  gosync.Mutex // one job at a time, scheduled or manual
	next   map[string]time.Time
	status Status
}

func (s *Scheduler) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Scheduler) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log("%s", s.redact(fmt.Sprintf(format, args...)))
	}
}

func (s *Scheduler) redact(text string) string {
	if s.Redact == nil {
		return text
	}
	return s.Redact(text)
}

// Start records the process in the status file (keeping earlier job
// outcomes, which the digest catch-up depends on) and plans first runs.
func (s *Scheduler) Start() error {
	st, err := ReadStatus(s.StatusPath)
	if err != nil {
		return err
	}
	now := s.now()
	st.PID, st.StartedAt, st.Disabled = os.Getpid(), now, s.Disabled
	s.mu.Lock()
	s.status = st
	s.next = map[string]time.Time{}
	for _, j := range s.Jobs {
		if j.AtStart {
			s.next[j.ID] = now
		} else {
			s.next[j.ID] = j.Schedule.Next(now)
		}
		js := s.status.Jobs[j.ID]
		js.NextRun, js.Schedule = s.next[j.ID], j.Schedule.String()
		s.status.Jobs[j.ID] = js
	}
	st = s.status
	s.mu.Unlock()
	for id, reason := range s.Disabled {
		s.logf("%s: disabled (%s)", id, reason)
	}
	s.logNext()
	return WriteStatus(s.StatusPath, st)
}

// RunDue runs every job whose time has come and returns their ids. Jobs run
// one at a time, in id order, so two never touch the store concurrently.
func (s *Scheduler) RunDue(ctx context.Context) []string {
	now := s.now()
	var due []Job
	s.mu.Lock()
	for _, j := range s.Jobs {
		if !s.next[j.ID].After(now) {
			due = append(due, j)
		}
	}
	s.mu.Unlock()
	sort.Slice(due, func(a, b int) bool { return due[a].ID < due[b].ID })
	var ran []string
	for _, j := range due {
		if ctx.Err() != nil {
			break
		}
		s.runOne(ctx, j)
		ran = append(ran, j.ID)
	}
	return ran
}

func (s *Scheduler) runOne(ctx context.Context, j Job) {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	started := s.now()
	err := safeRun(ctx, func(ctx context.Context) error { return j.Run(ctx, s) })
	s.mu.Lock()
	js := s.status.Jobs[j.ID]
	js.LastRun = started
	if err != nil {
		js.LastError = s.redact(err.Error())
	} else {
		js.LastSuccess, js.LastError = started, ""
	}
	s.next[j.ID] = j.Schedule.Next(s.now())
	js.NextRun = s.next[j.ID]
	s.status.Jobs[j.ID] = js
	st := s.status
	s.mu.Unlock()
	if err != nil {
		s.logf("job %s failed: %v — next run at %s", j.ID, err, js.NextRun.Format(time.RFC3339))
	} else {
		s.logf("job %s finished — next run at %s", j.ID, js.NextRun.Format(time.RFC3339))
	}
	if werr := WriteStatus(s.StatusPath, st); werr != nil {
		s.logf("cannot write status: %v", werr)
	}
}

// RunNow runs one job at once (the tray's "Run digest now"), waiting for any
// job in progress first, and records its outcome like a scheduled run.
func (s *Scheduler) RunNow(ctx context.Context, id string) error {
	for _, j := range s.Jobs {
		if j.ID == id {
			s.runOne(ctx, j)
			if e := s.Status().Jobs[id].LastError; e != "" {
				return fmt.Errorf("%s", e)
			}
			return nil
		}
	}
	if why, off := s.Disabled[id]; off {
		return fmt.Errorf("%s is off: %s", id, why)
	}
	return fmt.Errorf("no job %q", id)
}

// safeRun turns a panicking job into an error so the scheduler survives it.
func safeRun(ctx context.Context, fn func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("job panicked: %v", r)
		}
	}()
	return fn(ctx)
}

// NextWake is the earliest planned run.
func (s *Scheduler) NextWake() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Time
	for _, n := range s.next {
		if t.IsZero() || n.Before(t) {
			t = n
		}
	}
	return t
}

// Status returns a copy of the current status.
func (s *Scheduler) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.Jobs = map[string]JobStatus{}
	for k, v := range s.status.Jobs {
		st.Jobs[k] = v
	}
	return st
}

func (s *Scheduler) logNext() {
	s.mu.Lock()
	ids := slices.Sorted(maps.Keys(s.next))
	lines := make([]string, len(ids))
	for i, id := range ids {
		lines[i] = fmt.Sprintf("job %s: next run at %s", id, s.next[id].Format(time.RFC3339))
	}
	s.mu.Unlock()
	for _, l := range lines {
		s.logf("%s", l)
	}
}

// Loop runs until ctx ends, sleeping until the next due job.
func (s *Scheduler) Loop(ctx context.Context) error {
	if err := s.Start(); err != nil {
		return err
	}
	for {
		s.RunDue(ctx)
		wait := time.Until(s.NextWake())
		if wait < time.Second {
			wait = time.Second
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}
