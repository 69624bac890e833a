package app

import (
	"context"
	"fmt"
	gosync "sync"

	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/logs"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// KBEvent is the event name of a change of the knowledge base's contents
// or search mode (data: a SearchStatus), so open views refresh.
const KBEvent = "kb"

// background is the window's live work beside the agent: the vault watcher
// and the embedding backfill (daemon.Background) over the agent's engine,
// so the process holds one in-memory index. It restarts when the vault
// settings change.
type background struct {
	mu     gosync.Mutex
	run    *daemon.Background
	cancel context.CancelFunc
	done   chan struct{}
}

// startBackground starts the watcher and the backfill unless they run or
// there is no knowledge base.
func (c *core) startBackground() {
	eng := c.agent().Engine
	c.bg.mu.Lock()
	defer c.bg.mu.Unlock()
	if eng == nil || c.bg.run != nil {
		return
	}
	svc := &daemon.Services{Cfg: c.cfg, Getenv: c.getenv, Log: func(f string, a ...any) { logs.L().Info(fmt.Sprintf(f, a...)) }}
	svc.Share(eng)
	fill := &backfillOp{tracker: c.ops, ended: c.emitStatus}
	cfg := c.cfg
	b := &daemon.Background{Svc: svc, Watch: true, Progress: fill.progress, Finished: fill.finished,
		Changed: func(vault.Result) { c.emitStatus() },
		YieldTo: func() bool { _, running := daemon.SchedulerHolder(cfg); return running }}
	fill.cancel = b.CancelBackfill
	b.Start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.Run(ctx)
	}()
	c.bg.run, c.bg.cancel, c.bg.done = b, cancel, done
}

// stopBackground stops the watcher and the backfill and waits for them
// (what the backfill stored stays; the next start resumes it).
func (c *core) stopBackground() {
	c.bg.mu.Lock()
	defer c.bg.mu.Unlock()
	if c.bg.run == nil {
		return
	}
	c.bg.cancel()
	<-c.bg.done
	c.bg.run = nil
}

// kick asks the backfill to look for pending chunks now.
func (b *background) kick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.run != nil {
		b.run.Kick()
	}
}

// emitStatus tells the window the knowledge base changed.
func (c *core) emitStatus() {
	if st, err := c.searchStatus(context.Background()); err == nil {
		c.emit(KBEvent, st)
	}
}

// backfillOp shows the background embedding as an operation: the first
// progress with work to do starts it, the backfill's end finishes it, and
// cancelling it stops the backfill (which resumes later where it stopped).
type backfillOp struct {
	tracker *ops.Tracker
	cancel  func()
	ended   func()

	mu  gosync.Mutex
	run *fillRun
}

type fillRun struct {
	mu          gosync.Mutex
	done, total int
	tick        chan struct{} // progress changed (capacity 1: the latest wins)
	end         chan fillEnd
}

type fillEnd struct {
	res kb.BackfillResult
	err error
}

func (b *backfillOp) progress(done, total int) {
	b.mu.Lock()
	r := b.run
	if r == nil {
		if done >= total {
			b.mu.Unlock()
			return // nothing to embed
		}
		r = &fillRun{tick: make(chan struct{}, 1), end: make(chan fillEnd, 1)}
		b.run = r
		b.tracker.Start("embed", "Embedding for meaning-based search", r.work(b.cancel))
	}
	b.mu.Unlock()
	r.mu.Lock()
	r.done, r.total = done, total
	r.mu.Unlock()
	select {
	case r.tick <- struct{}{}:
	default:
	}
}

func (b *backfillOp) finished(res kb.BackfillResult, err error) {
	b.mu.Lock()
	r := b.run
	b.run = nil
	b.mu.Unlock()
	if r != nil {
		r.end <- fillEnd{res, err}
	}
	if b.ended != nil {
		b.ended()
	}
}

// work is the operation's body: it relays the backfill's progress until the
// backfill ends.
func (r *fillRun) work(cancel func()) ops.Work {
	return func(ctx context.Context, report ops.Report) (string, error) {
		stop := ctx.Done()
		for {
			select {
			case <-r.tick:
				r.mu.Lock()
				done, total := r.done, r.total
				r.mu.Unlock()
				report(fmt.Sprintf("embedding %d of %d chunks", done, total), done, total)
			case e := <-r.end:
				if e.err != nil {
					return "", e.err
				}
				return fmt.Sprintf("%d chunks embedded with %s; search is hybrid now", e.res.Embedded, e.res.Model.ID), nil
			case <-stop:
				cancel()
				stop = nil // the backfill ends with a cancellation
			}
		}
	}
}
