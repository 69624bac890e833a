package sync

import (
	"context"
	"os"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Work is what the jobs do; the binary wires the real implementations.
type Work struct {
	RefreshVault func(ctx context.Context) error
	ScanInbox    func(ctx context.Context) error
	RunDigest    func(ctx context.Context) error
	PruneDrafts  func(ctx context.Context) error
	PruneLedger  func(ctx context.Context) error
	// PruneImages removes the viewer's PNG copies of WebP images that no
	// document names any more.
	PruneImages func(ctx context.Context) error
	SyncZotero  func(ctx context.Context) error
}

// ZoteroInterval is how often the Zotero library is checked: a highlight
// made in Zotero is searchable within a minute, and a check of an
// unchanged library is one stat of zotero.sqlite.
const ZoteroInterval = time.Minute

// CatchupInterval is how often the digest catch-up re-checks.
const CatchupInterval = 6 * time.Hour

// BuildJobs turns configuration into the job list. Jobs that are off by
// configuration are returned in disabled with the setting that turned them
// off, so a missing schedule reads as a setting, not a fault. A configured
// but missing PDF watch dir is fatal: silently creating a typo'd path would
// watch the wrong place.
func BuildJobs(cfg *config.Config, w Work, now func() time.Time) ([]Job, map[string]string, error) {
	var jobs []Job
	disabled := map[string]string{}
	// or adapts a unit of work to a job body; missing work fails visibly.
	or := func(fn func(context.Context) error, name string) func(context.Context, Recorder) error {
		return func(ctx context.Context, _ Recorder) error {
			if fn == nil {
				return errs.New(errs.Internal, "sync", "%s is not available in this build yet", name)
			}
			return fn(ctx)
		}
	}
	jobs = append(jobs, Job{ID: "vault_refresh", Schedule: Every{time.Duration(cfg.Sync.VaultRefreshMinutes) * time.Minute}, AtStart: true, Run: or(w.RefreshVault, "vault refresh")})
	if cfg.Sync.PDFWatchDir == "" {
		disabled["pdf_scan"] = "sync.pdf_watch_dir is not set"
	} else {
		if st, err := os.Stat(cfg.Sync.PDFWatchDir); err != nil || !st.IsDir() {
			return nil, nil, errs.New(errs.Invalid, "sync", "sync.pdf_watch_dir %s does not exist or is not a folder", cfg.Sync.PDFWatchDir)
		}
		jobs = append(jobs, Job{ID: "pdf_scan", Schedule: Every{time.Duration(cfg.Sync.PDFWatchMinutes) * time.Minute}, AtStart: true, Run: or(w.ScanInbox, "PDF inbox scan")})
	}
	if !cfg.Digest.Enabled {
		disabled["digest"] = "[digest] enabled = false"
		disabled["digest_catchup"] = "[digest] enabled = false"
	} else {
		day, err := ParseWeekday(cfg.Digest.Day)
		if err != nil {
			return nil, nil, errs.Wrap(errs.Invalid, "sync", err)
		}
		weekly := Weekly{Day: day, Hour: cfg.Digest.Hour}
		// The digest body takes the data dir's digest lock itself, so the
		// weekly run, the catch-up and `jarvis-cli digest run` never overlap.
		digest := or(w.RunDigest, "digest")
		jobs = append(jobs,
			Job{ID: "digest", Schedule: weekly, Run: digest},
			Job{ID: "digest_catchup", Schedule: Every{CatchupInterval}, AtStart: true, Run: func(ctx context.Context, rec Recorder) error {
				if !DigestOverdue(weekly, rec.LastSuccess("digest"), now()) {
					return nil
				}
				started := now()
				if err := digest(ctx, rec); err != nil {
					return err
				}
				// Advance the digest's own stamp, or every catch-up would
				// find the same slot missed and run again.
				rec.Succeeded("digest", started)
				return nil
			}},
		)
	}
	if cfg.Drafts.RetentionDays <= 0 {
		disabled["draft_gc"] = "drafts.retention_days = 0"
	} else {
		jobs = append(jobs, Job{ID: "draft_gc", Schedule: Daily{Hour: cfg.Drafts.GCHour}, Run: or(w.PruneDrafts, "draft retention")})
	}
	// Always on: with ledger.keep_days = 0 it clears what an older setting kept.
	jobs = append(jobs, Job{ID: "ledger_prune", Schedule: Daily{Hour: cfg.Drafts.GCHour}, AtStart: true, Run: or(w.PruneLedger, "ledger retention")})
	jobs = append(jobs, Job{ID: "image_copies_prune", Schedule: Daily{Hour: cfg.Drafts.GCHour}, Run: or(w.PruneImages, "image copy clean-up")})
	if cfg.Zotero.DataDir == "" {
		disabled["zotero_sync"] = "zotero.data_dir is not set"
	} else {
		jobs = append(jobs, Job{ID: "zotero_sync", Schedule: Every{ZoteroInterval}, AtStart: true, Run: or(w.SyncZotero, "Zotero sync")})
	}
	return jobs, disabled, nil
}
