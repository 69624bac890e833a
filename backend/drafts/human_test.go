package drafts

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestDeleteRemovesOneDraftByIDOnly(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("Letter", "letter.md", "Dear team,\n", Public, "")
	other, _ := w.Create("Other", "o.md", "o\n", Public, "")
	if _, err := w.Propose(d.ID, "letter.md", "Dear all,\n", "warmer", "s1"); err != nil {
		t.Fatal(err)
	}
	dir, err := w.Dir(d.ID)
	if err != nil || dir != filepath.Join(w.Root, d.ID) {
		t.Fatalf("%q %v", dir, err)
	}
	if err := w.Delete(d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the draft folder is still there: %v", err)
	}
	if p := w.Pending(d.ID); len(p) != 0 {
		t.Fatalf("its proposals went with it: %+v", p)
	}
	if _, err := w.Get(other.ID); err != nil {
		t.Fatalf("another draft was touched: %v", err)
	}
	if err := w.Delete(d.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("deleting twice: %v", err)
	}
	for _, bad := range []string{"..", "../" + other.ID, "", "/etc"} {
		if err := w.Delete(bad); err == nil {
			t.Fatalf("Delete(%q) was accepted", bad)
		}
	}
	// A folder without draft.json is not a draft: nothing to delete.
	os.Mkdir(filepath.Join(w.Root, "stray"), 0o700)
	if err := w.Delete("stray"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a stray folder: %v", err)
	}
}

func TestDaysLeftCountsFromTheLastChange(t *testing.T) {
	now := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
	d := Draft{Meta: Meta{UpdatedAt: now.Add(-5 * 24 * time.Hour)}}
	if left, ok := DaysLeft(d, 30, now); !ok || left != 25 {
		t.Fatalf("%d %v", left, ok)
	}
	d.UpdatedAt = now.Add(-5*24*time.Hour - time.Hour) // part of a day counts as a day left
	if left, _ := DaysLeft(d, 30, now); left != 25 {
		t.Fatalf("%d", left)
	}
	d.UpdatedAt = now.Add(-40 * 24 * time.Hour)
	if left, ok := DaysLeft(d, 30, now); !ok || left != 0 {
		t.Fatalf("due: %d %v", left, ok)
	}
	if _, ok := DaysLeft(d, 0, now); ok {
		t.Fatal("retention off: never removed")
	}
	d.Keep = true
	if _, ok := DaysLeft(d, 30, now); ok {
		t.Fatal("a kept draft is never removed")
	}
}

func TestChatSessionIsRecordedWithoutAgingTheDraft(t *testing.T) {
	w := newWS(t)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.Now = func() time.Time { return clock }
	d, _ := w.Create("Letter", "letter.md", "x\n", Public, "")
	clock = clock.Add(48 * time.Hour)
	if err := w.SetChatSession(d.ID, "20260101-000000-abcd"); err != nil {
		t.Fatal(err)
	}
	got, _ := w.Get(d.ID)
	if got.ChatSession != "20260101-000000-abcd" || !got.UpdatedAt.Equal(d.UpdatedAt) {
		t.Fatalf("%+v", got.Meta)
	}
	if err := w.SetChatSession(d.ID, "../x"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a session id is checked: %v", err)
	}
}

func TestWatchSeesDraftsFilesAndProposalsMadeElsewhere(t *testing.T) {
	w := newWS(t)
	d, _ := w.Create("Letter", "letter.md", "Dear team,\n", Public, "")
	var calls atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Watch(ctx, 20*time.Millisecond, func() { calls.Add(1) }) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	// Each step must be reported; the watcher is given a moment to start.
	step := func(what string, do func()) {
		t.Helper()
		before := calls.Load()
		do()
		deadline := time.Now().Add(5 * time.Second)
		for calls.Load() == before {
			if time.Now().After(deadline) {
				t.Fatalf("%s was not reported", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	time.Sleep(50 * time.Millisecond)
	// Another workspace over the same root stands in for jarvis-cli.
	other, err := New(w.Root, exts, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	step("a new draft", func() { other.Create("Second", "s.md", "s\n", Public, "") })
	step("a new file", func() { other.AddFile(d.ID, "notes.md", "n\n") })
	step("a save", func() { other.Save(d.ID, "letter.md", "Dear all,\n", "") })
	var token string
	step("a proposal", func() {
		p, err := other.Propose(d.ID, "letter.md", "Dear colleagues,\n", "warmer", "s1")
		if err != nil {
			t.Fatal(err)
		}
		token = p.Token
	})
	step("a proposal answered", func() { other.Discard(token) })
}
