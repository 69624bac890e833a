package tray

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/jarvis-kb/jarvis/backend/autostart"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
)

func TestLinesReadSettingsAsSettings(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, time.Local)
	st := jsync.Status{Jobs: map[string]jsync.JobStatus{
		"vault_refresh": {LastRun: now.Add(-time.Hour), LastSuccess: now.Add(-time.Hour), NextRun: now.Add(time.Hour)},
		"pdf_scan":      {LastRun: now.Add(-time.Minute), LastError: "PDF inbox /x does not exist"},
		"draft_gc":      {NextRun: now.Add(48 * time.Hour)},
	}}
	lines := Lines(st, map[string]string{"digest": "[digest] enabled = false", "digest_catchup": "[digest] enabled = false"}, now)
	got := map[string]string{}
	for _, l := range lines {
		got[l.ID] = l.Title
	}
	want := map[string]string{
		"vault_refresh": "Vault refresh: ok 14:00, next 16:00",
		"pdf_scan":      "PDF inbox: FAILED 14:59 — PDF inbox /x does not exist",
		"digest":        "Digest: off ([digest] enabled = false)",
		"draft_gc":      "Draft cleanup: not run yet, next Fri 4 Dec 15:00",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s = %q, want %q", id, got[id], w)
		}
	}
}

func controller(t *testing.T) (*Controller, *atomic.Int32, *atomic.Int32) {
	var vault, opened atomic.Int32
	s := &jsync.Scheduler{StatusPath: filepath.Join(t.TempDir(), "status.json"), Disabled: map[string]string{"digest": "[digest] enabled = false"},
		Jobs: []jsync.Job{{ID: "vault_refresh", Schedule: jsync.Every{D: time.Hour}, Run: func(context.Context, jsync.Recorder) error {
			vault.Add(1)
			return nil
		}}}}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	return &Controller{Scheduler: s, Disabled: s.Disabled, Open: func() error { opened.Add(1); return nil }}, &vault, &opened
}

func TestActions(t *testing.T) {
	c, vault, opened := controller(t)
	ctx := context.Background()
	if err := c.Action(ctx, "vault_refresh"); err != nil || vault.Load() != 1 {
		t.Fatalf("vault: %v %d", err, vault.Load())
	}
	if !strings.HasPrefix(c.Lines()[0].Title, "Vault refresh: ok") {
		t.Fatalf("status after a manual run: %v", c.Lines()[0])
	}
	if err := c.Action(ctx, "digest"); err == nil || !strings.Contains(err.Error(), "enabled = false") {
		t.Fatalf("digest while off: %v", err)
	}
	if err := c.Action(ctx, "open"); err != nil || opened.Load() != 1 {
		t.Fatal("open")
	}
}

// privateBus starts a session bus for this test alone.
func privateBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatal("dbus-daemon is required (apt-get install dbus)")
		}
		t.Skip("dbus-daemon not installed")
	}
	// The socket goes in the test's temp dir (by default it is left in /tmp).
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=unix:dir="+t.TempDir(), "--print-address")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(addr)
}

type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

// menuItems reads the exported menu over D-Bus as a tray host would.
func menuItems(t *testing.T, obj dbus.BusObject) map[string]int32 {
	t.Helper()
	var rev uint32
	var root layout
	if err := obj.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root); err != nil {
		t.Fatal(err)
	}
	items := map[string]int32{}
	for _, c := range root.Children {
		var child layout
		if err := dbus.Store([]any{c.Value()}, &child); err != nil {
			t.Fatal(err)
		}
		if v, ok := child.Props["visible"]; ok && !v.Value().(bool) {
			continue // a hidden item is not in the menu the user sees
		}
		if label, ok := child.Props["label"]; ok {
			items[label.Value().(string)] = child.ID
		}
	}
	return items
}

func TestMenuOverDBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", privateBus(t))
	c, vault, opened := controller(t)
	// The tray starts at login, so quitting offers to stop that too.
	entry := autostart.Entry{Path: filepath.Join(t.TempDir(), "autostart", autostart.FileName), Exec: "/usr/bin/jarvis"}
	if err := entry.Set(true); err != nil {
		t.Fatal(err)
	}
	c.Autostart = entry
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, nil) }()
	// Our own connection, as a tray host has: the shared one belongs to systray.
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", os.Getpid())
	obj := conn.Object(name, "/StatusNotifierMenu")
	var items map[string]int32
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := obj.Call("org.freedesktop.DBus.Peer.Ping", 0).Err; err == nil {
			if items = menuItems(t, obj); len(items) >= 4 {
				break
			}
		}
	}
	for _, want := range []string{"Refresh vault now", "Run digest now", "Open Jarvis", "Quit (starts again at next login)", "Quit and stop starting at login"} {
		if _, ok := items[want]; !ok {
			t.Fatalf("menu lacks %q: %v", want, items)
		}
	}
	start := vault.Load()
	click := func(label string) {
		if err := obj.Call("com.canonical.dbusmenu.Event", 0, items[label], "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
			t.Fatal(err)
		}
	}
	click("Refresh vault now")
	click("Open Jarvis")
	for deadline := time.Now().Add(5 * time.Second); (vault.Load() == start || opened.Load() == 0) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if vault.Load() == start || opened.Load() != 1 {
		t.Fatalf("clicks did not reach the controller: vault %d->%d, opened %d", start, vault.Load(), opened.Load())
	}
	// Quit may close the tray's bus connection before it answers, so this
	// click expects no reply; the tray stopping is the check.
	if err := obj.Call("com.canonical.dbusmenu.Event", dbus.FlagNoReplyExpected, items["Quit and stop starting at login"], "clicked", dbus.MakeVariant(""), uint32(0)).Err; err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Quit did not stop the tray")
	}
	cancel()
	if st, err := entry.Read(); err != nil || st != autostart.Off {
		t.Fatalf("quitting for good leaves the login entry %v (%v)", st, err)
	}
}

// Without a login entry that is on, the menu has one plain Quit.
func TestQuitOffersToStopAutostartOnlyWhenItIsOn(t *testing.T) {
	c := &Controller{}
	if c.startsAtLogin() || c.QuitForGood() != nil {
		t.Fatal("no entry: nothing to stop")
	}
	entry := autostart.Entry{Path: filepath.Join(t.TempDir(), autostart.FileName), Exec: "/usr/bin/jarvis"}
	c.Autostart = entry
	if c.startsAtLogin() {
		t.Fatal("an entry never written is not on")
	}
	entry.Set(true)
	if !c.startsAtLogin() {
		t.Fatal("the entry is on")
	}
	if err := c.QuitForGood(); err != nil {
		t.Fatal(err)
	}
	if c.startsAtLogin() {
		t.Fatal("quit for good turned it off")
	}
}
