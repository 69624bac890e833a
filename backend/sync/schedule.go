// Package sync is the background scheduler: vault refresh, PDF inbox scan,
// the weekly digest and its catch-up, and draft retention, each job catching
// and recording its own outcome in ~/.jarvis/state/sync_status.json.
package sync

import (
	"fmt"
	"strings"
	"time"
)

// Schedule yields a job's next fire time strictly after a given time.
type Schedule interface {
	Next(after time.Time) time.Time
	String() string
}

// Every fires at a fixed interval.
type Every struct{ D time.Duration }

func (e Every) Next(after time.Time) time.Time { return after.Add(e.D) }
func (e Every) String() string                 { return "every " + e.D.String() }

// Daily fires at the top of an hour every day (local time).
type Daily struct{ Hour int }

func (d Daily) Next(after time.Time) time.Time {
	t := time.Date(after.Year(), after.Month(), after.Day(), d.Hour, 0, 0, 0, after.Location())
	if !t.After(after) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}
func (d Daily) String() string { return fmt.Sprintf("daily at %02d:00", d.Hour) }

// Weekly fires at the top of an hour on one weekday.
type Weekly struct {
	Day  time.Weekday
	Hour int
}

func (w Weekly) Next(after time.Time) time.Time {
	t := Daily{Hour: w.Hour}.Next(after)
	for t.Weekday() != w.Day {
		t = t.AddDate(0, 0, 1)
	}
	return t
}
func (w Weekly) String() string { return fmt.Sprintf("%s at %02d:00", w.Day, w.Hour) }

// ParseWeekday reads "mon".."sun".
func ParseWeekday(s string) (time.Weekday, error) {
	days := []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
	for i, d := range days {
		if strings.EqualFold(s, d) {
			return time.Weekday(i), nil
		}
	}
	return 0, fmt.Errorf("unknown weekday %q", s)
}

// DigestOverdue reports whether a scheduled digest slot has passed since the
// last successful run — the machine was off across it. With no baseline (the
// very first start) it is not overdue: wait for the next slot rather than
// surprise the user with a run.
func DigestOverdue(s Schedule, lastSuccess, now time.Time) bool {
	if lastSuccess.IsZero() {
		return false
	}
	return !s.Next(lastSuccess).After(now)
}
