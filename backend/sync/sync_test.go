package sync

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func TestSchedules(t *testing.T) {
	mon5 := Weekly{Day: time.Monday, Hour: 5}
	sun := time.Date(2026, 12, 6, 23, 0, 0, 0, time.UTC) // Sunday
	if got := mon5.Next(sun); !got.Equal(time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)) {
		t.Fatalf("weekly next = %v", got)
	}
	if got := mon5.Next(time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)); got.Day() != 14 {
		t.Fatalf("strictly after: %v", got)
	}
	if got := (Daily{Hour: 4}).Next(time.Date(2026, 12, 7, 3, 59, 0, 0, time.UTC)); got.Hour() != 4 || got.Day() != 7 {
		t.Fatalf("daily = %v", got)
	}
	if !DigestOverdue(mon5, time.Date(2026, 11, 30, 5, 1, 0, 0, time.UTC), time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)) {
		t.Fatal("a missed Monday must be overdue")
	}
	if DigestOverdue(mon5, time.Date(2026, 12, 7, 5, 1, 0, 0, time.UTC), time.Date(2026, 12, 8, 9, 0, 0, 0, time.UTC)) {
		t.Fatal("not overdue right after a success")
	}
	if DigestOverdue(mon5, time.Time{}, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatal("first start (no baseline) must wait for the next slot")
	}
}

func cfgWith(t *testing.T, mutate func(*config.Config)) *config.Config {
	c := config.Defaults()
	mutate(&c)
	return &c
}

func TestBuildJobsFollowsConfig(t *testing.T) {
	now := func() time.Time { return time.Now() }
	jobs, disabled, err := BuildJobs(cfgWith(t, func(c *config.Config) {}), Work{}, now)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	if strings.Join(ids, ",") != "vault_refresh,draft_gc,ledger_prune,image_copies_prune" || disabled["digest"] == "" || disabled["pdf_scan"] == "" || disabled["zotero_sync"] == "" {
		t.Fatalf("default jobs %v, disabled %v", ids, disabled)
	}
	// A chosen Zotero library is checked every minute, from the start.
	jobs, _, err = BuildJobs(cfgWith(t, func(c *config.Config) { c.Zotero.DataDir = t.TempDir() }), Work{}, now)
	if err != nil {
		t.Fatal(err)
	}
	z := jobs[len(jobs)-1]
	if z.ID != "zotero_sync" || z.Schedule != (Every{time.Minute}) || !z.AtStart {
		t.Fatalf("zotero job: %+v", z)
	}
	inbox := t.TempDir()
	jobs, disabled, err = BuildJobs(cfgWith(t, func(c *config.Config) {
		c.Digest.Enabled, c.Sync.PDFWatchDir, c.Drafts.RetentionDays = true, inbox, 0
	}), Work{}, now)
	if err != nil || len(jobs) != 6 || disabled["draft_gc"] == "" {
		t.Fatalf("%v %d %v", err, len(jobs), disabled)
	}
	_, _, err = BuildJobs(cfgWith(t, func(c *config.Config) { c.Sync.PDFWatchDir = "/no/such/inbox" }), Work{}, now)
	if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "/no/such/inbox") {
		t.Fatalf("missing watch dir must be fatal: %v", err)
	}
}

func TestSchedulerRunsRecordsAndCatchesUp(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)} // Tuesday
	path := filepath.Join(t.TempDir(), "state", "sync_status.json")
	var runs []string
	w := Work{
		RefreshVault: func(context.Context) error { runs = append(runs, "vault"); return nil },
		RunDigest:    func(context.Context) error { runs = append(runs, "digest"); return nil },
		PruneDrafts:  func(context.Context) error { return errors.New("disk full") },
		PruneLedger:  func(context.Context) error { runs = append(runs, "ledger"); return nil },
	}
	// A previous daemon succeeded on 2026-11-23 (Monday) and the machine was
	// off on Monday 2026-11-30: the catch-up at start must run the digest.
	WriteStatus(path, Status{Jobs: map[string]JobStatus{"digest": {LastSuccess: time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)}}})
	cfg := cfgWith(t, func(c *config.Config) { c.Digest.Enabled = true })
	jobs, disabled, err := BuildJobs(cfg, w, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	s := &Scheduler{Jobs: jobs, StatusPath: path, Disabled: disabled, Now: clock.Now, Log: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	ran := s.RunDue(context.Background())
	if strings.Join(ran, ",") != "digest_catchup,ledger_prune,vault_refresh" || strings.Join(runs, ",") != "digest,ledger,vault" {
		t.Fatalf("start-up runs: ran=%v work=%v", ran, runs)
	}
	if s.LastSuccess("digest").IsZero() || !s.LastSuccess("digest").After(time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)) {
		t.Fatal("a catch-up run must advance the digest's last success")
	}
	runs = nil
	clock.Advance(CatchupInterval)
	s.RunDue(context.Background())
	if strings.Contains(strings.Join(runs, ","), "digest") {
		t.Fatalf("the next catch-up must not run the digest again: %v", runs)
	}
	// Daily draft_gc at 04:00 fails; the failure is recorded, nothing stops.
	clock.t = time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	s.RunDue(context.Background())
	st, _ := ReadStatus(path)
	if st.Jobs["draft_gc"].LastError != "disk full" || !st.Jobs["draft_gc"].LastSuccess.IsZero() {
		t.Fatalf("draft_gc status = %+v", st.Jobs["draft_gc"])
	}
	if st.Jobs["vault_refresh"].LastSuccess.IsZero() || st.PID == 0 || st.Disabled["pdf_scan"] == "" {
		t.Fatalf("status = %+v", st)
	}
	// The weekly slot on Monday 05:00 fires the digest.
	runs = nil
	clock.t = time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	s.RunDue(context.Background())
	if !strings.Contains(strings.Join(runs, ","), "digest") {
		t.Fatalf("weekly digest did not run: %v", runs)
	}
	found := false
	for _, l := range logs {
		if strings.Contains(l, "next run at") {
			found = true
		}
	}
	if !found {
		t.Fatal("next-run times must be logged")
	}
}

func TestPanickingJobIsRecorded(t *testing.T) {
	clock := &fakeClock{t: time.Now()}
	path := filepath.Join(t.TempDir(), "s.json")
	s := &Scheduler{Jobs: []Job{{ID: "boom", Schedule: Every{time.Hour}, AtStart: true, Run: func(context.Context, Recorder) error { panic("oops") }}},
		StatusPath: path, Now: clock.Now}
	s.Start()
	s.RunDue(context.Background())
	st, _ := ReadStatus(path)
	if !strings.Contains(st.Jobs["boom"].LastError, "panicked") {
		t.Fatalf("status = %+v", st.Jobs["boom"])
	}
	if !Alive(st.PID) || Alive(0) {
		t.Fatal("pid liveness")
	}
}

func TestSchedulerRedactsErrorsAndLogLines(t *testing.T) {
	const key = "sk-ant-0123456789abcdef"
	var lines []string
	path := filepath.Join(t.TempDir(), "status.json")
	s := &Scheduler{StatusPath: path, Log: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) },
		Redact: func(s string) string { return strings.ReplaceAll(s, key, "[REDACTED]") },
		Jobs: []Job{{ID: "digest", Schedule: Daily{Hour: 1}, AtStart: true, Run: func(context.Context, Recorder) error {
			return errors.New("scoring failed: 401 key " + key)
		}}}}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	s.RunDue(context.Background())
	st, _ := ReadStatus(path)
	if e := st.Jobs["digest"].LastError; e != "scoring failed: 401 key [REDACTED]" {
		t.Fatalf("last error %q", e)
	}
	if joined := strings.Join(lines, "\n"); strings.Contains(joined, key) || !strings.Contains(joined, "[REDACTED]") {
		t.Fatalf("log:\n%s", joined)
	}
}
