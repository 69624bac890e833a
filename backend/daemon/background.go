package daemon

import (
	"context"
	gosync "sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/backend/vault"
	"github.com/jarvis-kb/jarvis/backend/vaultwatch"
)

// BackfillEvery is how often the backfill looks for work when nothing
// kicked it (a model installed by another process, chunks added by
// jarvis-cli).
const BackfillEvery = 5 * time.Minute

// yieldDelay is how long a Background with YieldTo waits before it embeds,
// while the other process takes the backfill lock.
const yieldDelay = 3 * time.Second

// Background is the live work of a long-running process (the tray, the
// window): the vault watcher and the embedding backfill. Both are safe to
// run in several processes at once: the store serialises writes, and one
// process at a time backfills (another's attempt returns at once).
type Background struct {
	Svc *Services
	// Watch switches the live vault watcher on.
	Watch bool
	// Progress reports backfill progress (the window shows it as an
	// operation); Changed is told when the watcher changed the index.
	Progress func(done, total int)
	Changed  func(vault.Result)
	Finished func(kb.BackfillResult, error)
	// YieldTo says another process that embeds at low priority (the tray,
	// `jarvis-cli sync`) is running: the window then gives it the first go
	// at the pending chunks (both watch the vault, so both are kicked), and
	// its own searches do not share the CPU with its own backfill. Work the
	// other process was not told about (a model just downloaded in the
	// window) is still done here, yieldDelay later.
	YieldTo func() bool

	kick chan struct{}

	mu       gosync.Mutex
	stopFill context.CancelFunc // ends the backfill that runs now
}

// CancelBackfill stops the backfill that runs now (what it stored stays);
// it resumes on the next kick or after BackfillEvery.
func (b *Background) CancelBackfill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopFill != nil {
		b.stopFill()
	}
}

// Kick asks the backfill to look for pending chunks now.
func (b *Background) Kick() {
	select {
	case b.kick <- struct{}{}:
	default: // a kick is already waiting
	}
}

// Start prepares the kick channel and hooks the scheduler's jobs to it;
// call it before the scheduler starts, then Run.
func (b *Background) Start() {
	b.kick = make(chan struct{}, 1)
	b.Svc.Indexed = b.Kick
}

// Run runs until ctx ends (Start first).
func (b *Background) Run(ctx context.Context) {
	var wg gosync.WaitGroup
	if b.Watch {
		wg.Add(2)
		go func() {
			defer wg.Done()
			b.watch(ctx)
		}()
		go func() {
			defer wg.Done()
			b.zotero(ctx)
		}()
	}
	b.backfill(ctx)
	wg.Wait()
}

// zotero keeps the chosen Zotero library in step while the window is open,
// as the watcher does the vault; when the tray's scheduler runs, its
// zotero_sync job does it instead.
func (b *Background) zotero(ctx context.Context) {
	for {
		if b.Svc.Cfg.Zotero.DataDir != "" && (b.YieldTo == nil || !b.YieldTo()) {
			if err := b.Svc.SyncZotero(ctx); err != nil && ctx.Err() == nil {
				b.Svc.logf("zotero_sync: %v", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(jsync.ZoteroInterval):
		}
	}
}

func (b *Background) watch(ctx context.Context) {
	e, err := b.Svc.Engine()
	if err != nil {
		b.Svc.logf("vault watch: %v", err)
		return
	}
	w := &vaultwatch.Watcher{Refresher: e.Refresher(), Log: b.Svc.logf, OnChange: func(res vault.Result) {
		b.Svc.logf("vault watch: %d added, %d updated, %d deleted", res.Added, res.Updated, res.Deleted)
		if b.Changed != nil {
			b.Changed(res)
		}
	},
		// After every sync, also one that found the change already stored
		// by another process (the window, the tray): its chunks may still
		// want vectors.
		OnSynced: b.Kick,
	}
	_ = w.Run(ctx) // returns only when ctx ends; it logs what went wrong on the way
}

// backfill embeds pending chunks whenever kicked, and every BackfillEvery.
// Models are reloaded first, so one installed meanwhile is picked up
// without a restart.
func (b *Background) backfill(ctx context.Context) {
	for {
		b.backfillOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-b.kick:
		case <-time.After(BackfillEvery):
		}
	}
}

func (b *Background) backfillOnce(ctx context.Context) {
	e, err := b.Svc.Engine()
	if err != nil {
		b.Svc.logf("embeddings: %v", err)
		return
	}
	// Keyword search works without models, so its re-analysis comes first.
	if n, err := e.ReanalyseLex(ctx, nil); err != nil && ctx.Err() == nil && !errs.Is(err, errs.Conflict) {
		b.Svc.logf("keyword index: %v", err)
	} else if n > 0 {
		b.Svc.logf("keyword index: %d chunks re-analysed for the multilingual analyser", n)
	}
	if err := e.LoadModels(ctx); err != nil {
		b.Svc.logf("embeddings: %v", err)
		return
	}
	if e.Embedder() == nil {
		return // keyword only until a model is installed
	}
	if b.YieldTo != nil && b.YieldTo() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(yieldDelay):
		}
	}
	fillCtx, cancel := context.WithCancel(ctx)
	b.mu.Lock()
	b.stopFill = cancel
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.stopFill = nil
		b.mu.Unlock()
		cancel()
	}()
	res, err := e.Backfill(fillCtx, kb.BackfillOptions{Progress: b.Progress})
	switch {
	case errs.Is(err, errs.Conflict):
		return // another process is embedding; it picks up everything pending
	case err != nil && fillCtx.Err() == nil:
		b.Svc.logf("embeddings: %v", err)
	case res.Embedded > 0:
		b.Svc.logf("embeddings: %d chunks embedded with %s", res.Embedded, res.Model.ID)
	}
	if b.Finished != nil && (res.Embedded > 0 || err != nil) {
		b.Finished(res, err)
	}
}
