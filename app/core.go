package app

import (
	"context"
	"fmt"
	gosync "sync"
	"sync/atomic"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ops"
)

// core is what the window's services share: the configuration, the agent
// in use, the operations and the background work beside them.
type core struct {
	cfg    *config.Config
	getenv func(string) string
	emit   Emit
	ops    *ops.Tracker
	ag     atomic.Pointer[agent.Agent]
	// turns is held shared while a turn starts and exclusively while a
	// setting changes, so no turn starts on an agent being replaced.
	turns gosync.RWMutex
	busy  func() bool // a turn is running (Chat's)
	bg    background
	// refreshing serialises vault refreshes started from the window, so a
	// refresh of the old vault cannot finish after the new one's.
	refreshing gosync.Mutex
	// changed is told after the vault settings changed on disk (the window
	// restarts the tray process, which read the old ones).
	changed func()
	// launch starts a desktop program by argv (the file manager); the
	// test bridge records the argv instead.
	launch func(argv []string) error
	// life ends when the window closes; short background work (a model
	// preload) runs under it and is waited for, so none outlives Close.
	life    context.Context
	end     context.CancelFunc
	running gosync.WaitGroup
}

// goBackground runs fn under the window's lifetime.
func (c *core) goBackground(fn func(ctx context.Context)) {
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		fn(c.life)
	}()
}

// endLife cancels background work and waits for it.
func (c *core) endLife() {
	c.end()
	c.running.Wait()
}

func (c *core) agent() *agent.Agent { return c.ag.Load() }

// change applies a setting under the turns lock: refused while an answer
// is being written (its provider and tools hold the settings it started
// with). With rebuild, a new agent is built over the same knowledge base
// and drafts and swapped into every service: the agent copies the vault
// root and private folders into its tools, and the API keys into its
// redactor, when it is built. The replaced agent owns nothing of its own,
// so nothing is closed.
func (c *core) change(op string, rebuild bool, apply func() error) error {
	c.turns.Lock()
	defer c.turns.Unlock()
	if c.busy != nil && c.busy() {
		return errs.WithHint(errs.New(errs.Conflict, op, "an answer is being written"), "wait for it to finish, or stop it, then change this setting")
	}
	// The settings are the ones the engine reads too: they change while no
	// model load (the background's backfill, say) is reading them.
	run := apply
	if eng := c.agent().Engine; eng != nil {
		run = func() error { return eng.Reconfigure(apply) }
	}
	if err := run(); err != nil {
		return err
	}
	if !rebuild {
		return nil
	}
	old := c.agent()
	ag, err := agent.New(c.cfg, agent.Options{Getenv: c.getenv, Engine: old.Engine, Drafts: old.Drafts})
	if err != nil {
		return err
	}
	c.ag.Store(ag)
	return nil
}

// vaultChange applies a change of the vault, its private folders or its
// exclusions: the background stops (its watcher holds the old settings),
// the agent is rebuilt, and a refresh operation brings the index in line
// at once, after which the background starts again. It returns the
// refresh's operation id.
func (c *core) vaultChange(op string, apply func() error) (string, error) {
	c.stopBackground()
	if err := c.change(op, true, apply); err != nil {
		c.startBackground()
		return "", err
	}
	if c.changed != nil {
		c.changed()
	}
	if c.agent().Engine == nil {
		c.startBackground()
		return "", c.noStore(op)
	}
	return c.refreshVault("Indexing the vault", c.startBackground), nil
}

// noStore is the error for a knowledge base that could not be opened.
func (c *core) noStore(op string) error {
	return errs.WithHint(errs.New(errs.NotFound, op, "the knowledge base is not available: %v", c.agent().EngineErr),
		"check that Jarvis's data folder is writable; the details are in the log")
}

// refreshVault syncs the vault as an operation; then runs when it ends.
func (c *core) refreshVault(title string, then func()) string {
	eng := c.agent().Engine
	return c.ops.Start("vault", title, func(ctx context.Context, report ops.Report) (string, error) {
		if then != nil {
			defer then()
		}
		c.refreshing.Lock()
		defer c.refreshing.Unlock()
		r := eng.Refresher()
		r.Progress = func(done, total int) { report("reading notes", done, total) }
		res, err := r.Refresh(ctx)
		defer c.emitStatus()
		if err != nil {
			return "", err
		}
		c.bg.kick() // their vectors are pending
		return fmt.Sprintf("%d added, %d updated, %d deleted, %d warnings", res.Added, res.Updated, res.Deleted, len(res.Warnings)), nil
	})
}
