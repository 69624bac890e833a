package vaultwatch

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// These tests run the real watcher on a real folder and a real store, and
// ask what a user would: is the note found by keyword after a save.

func start(t *testing.T, exclude ...string) (*vault.Refresher, string, *changes) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "vault")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := kb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := &vault.Refresher{Root: root, PrivateDirs: []string{"private"}, Exclude: exclude, Store: s, ChunkSize: 1024, ChunkOverlap: 100}
	ch := &changes{}
	w := &Watcher{Refresher: r, Debounce: 50 * time.Millisecond, MaxDelay: 300 * time.Millisecond, Poll: 100 * time.Millisecond,
		OnChange: ch.add, Log: t.Logf}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r, root, ch
}

type changes struct {
	mu sync.Mutex
	n  int
}

func (c *changes) add(vault.Result) { c.mu.Lock(); c.n++; c.mu.Unlock() }

// found polls keyword search until want holds (the watcher works on its own
// goroutine), failing after the 2 s the product promises.
func found(t *testing.T, r *vault.Refresher, query string, want func([]kb.Hit) bool) []kb.Hit {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		hits, err := r.Store.BM25(context.Background(), query, kb.Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if want(hits) {
			return hits
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q after 2 s: %+v", query, hits)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func paths(hits []kb.Hit) map[string]bool {
	out := map[string]bool{}
	for _, h := range hits {
		out[h.Chunk.Meta.FilePath] = true
	}
	return out
}

func write(t *testing.T, p, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSaveRenameDeleteAreFoundWithinTwoSeconds(t *testing.T) {
	r, root, _ := start(t)
	write(t, filepath.Join(root, "notes", "lease.md"), "# Lease\nThe landlord returns the deposit.")
	found(t, r, "landlords", func(h []kb.Hit) bool { return paths(h)["notes/lease.md"] })

	// An editor's atomic save: write a temp file, rename it over the note.
	tmp := filepath.Join(root, "notes", ".lease.md.tmp123")
	write(t, tmp, "# Lease\nThe landlord kept the deposit for repairs.")
	if err := os.Rename(tmp, filepath.Join(root, "notes", "lease.md")); err != nil {
		t.Fatal(err)
	}
	found(t, r, "repairs", func(h []kb.Hit) bool { return paths(h)["notes/lease.md"] })

	// A rename: the old path goes, the new one is found.
	if err := os.Rename(filepath.Join(root, "notes", "lease.md"), filepath.Join(root, "notes", "tenancy.md")); err != nil {
		t.Fatal(err)
	}
	found(t, r, "repairs", func(h []kb.Hit) bool { p := paths(h); return p["notes/tenancy.md"] && !p["notes/lease.md"] })

	// A delete: gone.
	os.Remove(filepath.Join(root, "notes", "tenancy.md"))
	found(t, r, "repairs", func(h []kb.Hit) bool { return len(h) == 0 })

	// A folder moved in with notes inside, then moved out.
	other := filepath.Join(t.TempDir(), "trip")
	write(t, filepath.Join(other, "day1.md"), "# Day 1\nVisited the glacier.")
	if err := os.Rename(other, filepath.Join(root, "trip")); err != nil {
		t.Fatal(err)
	}
	found(t, r, "glacier", func(h []kb.Hit) bool { return paths(h)["trip/day1.md"] })
	write(t, filepath.Join(root, "trip", "day2.md"), "# Day 2\nAnother glacier walk.")
	found(t, r, "glacier", func(h []kb.Hit) bool { return paths(h)["trip/day2.md"] })
	if err := os.Rename(filepath.Join(root, "trip"), filepath.Join(t.TempDir(), "gone")); err != nil {
		t.Fatal(err)
	}
	found(t, r, "glacier", func(h []kb.Hit) bool { return len(h) == 0 })
}

func TestBurstsHiddenAndExcludedPaths(t *testing.T) {
	r, root, ch := start(t, "templates")
	// Settle the initial sync before counting.
	time.Sleep(150 * time.Millisecond)
	ch.mu.Lock()
	ch.n = 0
	ch.mu.Unlock()
	for i := range 30 {
		write(t, filepath.Join(root, "burst.md"), "# Burst\nversion "+string(rune('a'+i%26))+" kettle")
	}
	write(t, filepath.Join(root, ".obsidian", "workspace.md"), "kettle in the app config")
	write(t, filepath.Join(root, "templates", "daily.md"), "kettle template")
	write(t, filepath.Join(root, ".trash", "old.md"), "kettle in the trash")
	hits := found(t, r, "kettle", func(h []kb.Hit) bool { return paths(h)["burst.md"] })
	time.Sleep(400 * time.Millisecond)
	hits, _ = r.Store.BM25(context.Background(), "kettle", kb.Filter{}, 10)
	if len(hits) != 1 {
		t.Fatalf("hidden or excluded notes were indexed: %+v", hits)
	}
	ch.mu.Lock()
	n := ch.n
	ch.mu.Unlock()
	if n > 3 {
		t.Fatalf("30 quick saves caused %d syncs; the debounce should fold them", n)
	}
}

func TestVaultThatDisappearsAndComesBack(t *testing.T) {
	r, root, _ := start(t)
	write(t, filepath.Join(root, "a.md"), "# A\nThe harbour crane.")
	found(t, r, "crane", func(h []kb.Hit) bool { return len(h) == 1 })
	// The folder goes away (an unmounted drive): nothing is deleted.
	moved := root + ".away"
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	if hits, _ := r.Store.BM25(context.Background(), "crane", kb.Filter{}, 10); len(hits) != 1 {
		t.Fatalf("a missing vault emptied the index: %+v", hits)
	}
	// It comes back with a change made meanwhile: the watcher resumes.
	write(t, filepath.Join(moved, "b.md"), "# B\nA second crane.")
	if err := os.Rename(moved, root); err != nil {
		t.Fatal(err)
	}
	found(t, r, "crane", func(h []kb.Hit) bool { return len(h) == 2 })
	write(t, filepath.Join(root, "c.md"), "# C\nA third crane.")
	found(t, r, "crane", func(h []kb.Hit) bool { return len(h) == 3 })
}
