// Package tray is the system-tray process: it keeps the sync scheduler alive
// while the window is closed and offers its status and actions in a menu.
// The tray runs as its own process of the desktop binary (`jarvis --tray`):
// Wails owns the GTK main loop of the window process, and the window may
// come and go while the tray stays. The processes coordinate through the
// files they share — the scheduler lock (one scheduler per data dir, taken
// by the tray or by `jarvis-cli sync`), the status file, and the SQLite
// store (WAL; every process re-syncs its vector index from the store's
// generation counter before searching).
package tray

import (
	"context"
	"os"
	"time"

	"fyne.io/systray"

	"github.com/jarvis-kb/jarvis/backend/autostart"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
)

// Controller is the tray's behaviour, apart from the systray binding so it
// can be driven in tests: it runs the scheduler and answers menu actions.
type Controller struct {
	Scheduler *jsync.Scheduler
	Disabled  map[string]string
	Open      func() error // start (or raise) the window
	Log       func(format string, args ...any)
	Now       func() time.Time
	// Autostart is the login entry that starts this tray (nil: none). While
	// it is on, the menu offers to quit and stop starting at login too.
	Autostart LoginEntry
}

// LoginEntry is the autostart setting as the tray uses it.
type LoginEntry interface {
	Read() (autostart.State, error)
	Set(on bool) error
}

// startsAtLogin is whether the login entry is on.
func (c *Controller) startsAtLogin() bool {
	if c.Autostart == nil {
		return false
	}
	st, err := c.Autostart.Read()
	if err != nil {
		c.logf("tray: cannot read the autostart entry: %v", err)
	}
	return st == autostart.On
}

// QuitForGood turns the login entry off; the caller then quits.
func (c *Controller) QuitForGood() error {
	if c.Autostart == nil {
		return nil
	}
	c.logf("tray: quit and stop starting at login, from the menu")
	return c.Autostart.Set(false)
}

func (c *Controller) logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(format, args...)
	}
}

func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Lines is the current per-job status for the menu.
func (c *Controller) Lines() []JobLine {
	return Lines(c.Scheduler.Status(), c.Disabled, c.now())
}

// Action runs one menu action by name: "digest", "vault_refresh" (run the
// job now) or "open". Job runs are logged with their outcome.
func (c *Controller) Action(ctx context.Context, name string) error {
	switch name {
	case "open":
		return c.Open()
	default:
		c.logf("tray: %s requested from the menu", name)
		err := c.Scheduler.RunNow(ctx, name)
		if err != nil {
			c.logf("tray: %s failed: %v", name, err)
		}
		return err
	}
}

// Run shows the tray icon and menu and runs the scheduler until Quit or ctx
// ends. Without a desktop session bus there is no tray host to show the icon
// to; the scheduler then runs headless, which is what keeps sync alive.
func (c *Controller) Run(ctx context.Context, icon []byte) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loopDone := make(chan error, 1)
	go func() { loopDone <- c.Scheduler.Loop(ctx) }()
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		c.logf("tray: no desktop session bus; running the scheduler without an icon")
		return <-loopDone
	}
	systray.Run(func() { c.build(ctx, cancel, icon) }, cancel)
	cancel()
	return <-loopDone
}

// build creates the menu and keeps its status lines fresh.
func (c *Controller) build(ctx context.Context, cancel context.CancelFunc, icon []byte) {
	if len(icon) > 0 {
		systray.SetIcon(icon)
	}
	systray.SetTitle("Jarvis")
	systray.SetTooltip("Jarvis — sync status")
	lines := c.Lines()
	status := make([]*systray.MenuItem, len(lines))
	for i, l := range lines {
		status[i] = systray.AddMenuItem(l.Title, "")
		status[i].Disable()
	}
	systray.AddSeparator()
	digestNow := systray.AddMenuItem("Run digest now", "Fetch, score and index this week's papers")
	if _, off := c.Disabled["digest"]; off {
		digestNow.Disable()
	}
	vaultNow := systray.AddMenuItem("Refresh vault now", "Sync the Obsidian vault into the knowledge base")
	open := systray.AddMenuItem("Open Jarvis", "Open the Jarvis window")
	systray.AddSeparator()
	quit := systray.AddMenuItem("Quit", "Stop background sync and quit the tray")
	// Quitting asks, by offering both: quit now (the tray starts again at
	// the next login) or quit and stop starting at login.
	quitForGood := systray.AddMenuItem("Quit and stop starting at login", "Stop background sync and do not start it at the next login")
	showQuitForGood := func() {
		if c.startsAtLogin() {
			quit.SetTitle("Quit (starts again at next login)")
			quitForGood.Show()
		} else {
			quit.SetTitle("Quit")
			quitForGood.Hide()
		}
	}
	showQuitForGood()
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				systray.Quit()
				return
			case <-tick.C:
				for i, l := range c.Lines() {
					status[i].SetTitle(l.Title)
				}
				showQuitForGood() // the window's Settings may have changed it
			case <-digestNow.ClickedCh:
				go c.Action(ctx, "digest")
			case <-vaultNow.ClickedCh:
				go c.Action(ctx, "vault_refresh")
			case <-open.ClickedCh:
				if err := c.Action(ctx, "open"); err != nil {
					c.logf("tray: cannot open the window: %v", err)
				}
			case <-quit.ClickedCh:
				c.logf("tray: quit from the menu")
				cancel()
			case <-quitForGood.ClickedCh:
				if err := c.QuitForGood(); err != nil {
					c.logf("tray: cannot turn autostart off: %v", err)
				}
				cancel()
			}
		}
	}()
}
