package ops

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

type log struct {
	mu  sync.Mutex
	ops []Op
}

func (l *log) emit(o Op) { l.mu.Lock(); l.ops = append(l.ops, o); l.mu.Unlock() }
func (l *log) last(id string) Op {
	l.mu.Lock()
	defer l.mu.Unlock()
	var o Op
	for _, x := range l.ops {
		if x.ID == id {
			o = x
		}
	}
	return o
}

func wait(t *testing.T, l *log, id, state string) Op {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if o := l.last(id); o.State == state {
			return o
		}
	}
	t.Fatalf("op %s never reached %s: %+v", id, state, l.last(id))
	return Op{}
}

func TestProgressSuccessFailureCancel(t *testing.T) {
	l := &log{}
	tr := &Tracker{Emit: l.emit}
	id := tr.Start("add", "paper.pdf", func(ctx context.Context, report Report) (string, error) {
		for i := 1; i <= 3; i++ {
			report("embedding", i, 3)
		}
		return "added 12 chunks", nil
	})
	o := wait(t, l, id, Done)
	if o.Result != "added 12 chunks" || o.Done != 3 || o.Total != 3 {
		t.Fatalf("%+v", o)
	}
	l.mu.Lock()
	for i := 1; i < len(l.ops); i++ {
		if l.ops[i].ID == id && l.ops[i].Seq <= l.ops[i-1].Seq {
			t.Fatal("seq must grow")
		}
	}
	l.mu.Unlock()

	id = tr.Start("add", "bad.pdf", func(context.Context, Report) (string, error) {
		return "", errs.WithHint(errs.New(errs.Conversion, "pdf", "no text layer"), "run OCR first")
	})
	if o := wait(t, l, id, Failed); o.Code != "conversion" || o.Hint != "run OCR first" {
		t.Fatalf("%+v", o)
	}

	started := make(chan struct{})
	id = tr.Start("vault", "sync", func(ctx context.Context, _ Report) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	})
	<-started
	if !tr.Cancel(id) {
		t.Fatal("cancel refused")
	}
	wait(t, l, id, Cancelled)
	if tr.Cancel(id) || tr.Cancel("nope") {
		t.Fatal("cancelling a finished or unknown op must report false")
	}
	// A model that was down fails retryably; the retry runs the same work.
	calls := 0
	id = tr.Start("add", "p.pdf", func(context.Context, Report) (string, error) {
		calls++
		if calls == 1 {
			return "", errs.New(errs.LLM, "llm", "connection refused")
		}
		return "ok", nil
	})
	if o := wait(t, l, id, Failed); !o.Retryable {
		t.Fatalf("%+v", o)
	}
	again, err := tr.Retry(id)
	if err != nil {
		t.Fatal(err)
	}
	if o := wait(t, l, again, Done); o.Result != "ok" || calls != 2 {
		t.Fatalf("%+v", o)
	}
	if _, err := tr.Retry(again); !errs.Is(err, errs.Invalid) {
		t.Fatalf("retrying a success: %v", err)
	}
	if len(tr.List()) != 5 {
		t.Fatalf("list %+v", tr.List())
	}
}

func TestOperationRecordsAreRedacted(t *testing.T) {
	const key = "sk-or-v1-0123456789abcdef"
	l := &log{}
	tr := &Tracker{Emit: l.emit, Redact: func(s string) string { return strings.ReplaceAll(s, key, "[REDACTED]") }}
	failed := tr.Start("add", "paper", func(context.Context, Report) (string, error) {
		return "", errs.WithHint(errs.New(errs.LLM, "summary", "401 Unauthorized key %s", key), "check the key "+key)
	})
	done := tr.Start("add", "paper", func(context.Context, Report) (string, error) { return "summarised with " + key, nil })
	f, d := wait(t, l, failed, Failed), wait(t, l, done, Done)
	for _, s := range []string{f.Error, f.Hint, d.Result} {
		if strings.Contains(s, key) || !strings.Contains(s, "[REDACTED]") {
			t.Fatalf("op record %q", s)
		}
	}
	for _, o := range tr.List() {
		if strings.Contains(o.Error+o.Hint+o.Result, key) {
			t.Fatalf("listed op %+v", o)
		}
	}
}

// A finished operation lets go of its work (and so of what the work holds,
// such as an encrypted PDF's password); a retryable failure keeps it for
// Retry.
func TestOnlyARetryableFailureKeepsItsWork(t *testing.T) {
	l := &log{}
	tr := &Tracker{Emit: l.emit}
	held := func(id string) bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		return tr.ops[id].work != nil
	}
	let := func(id string) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Second); held(id); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("op %s still holds its work", id)
			}
		}
	}
	done := tr.Start("add", "a paper", func(context.Context, Report) (string, error) { return "added", nil })
	wait(t, l, done, Done)
	let(done)
	if _, err := tr.Retry(done); !errs.Is(err, errs.Invalid) {
		t.Fatalf("retrying a finished op: %v", err)
	}
	bad := tr.Start("add", "a damaged paper", func(context.Context, Report) (string, error) {
		return "", errs.New(errs.Conversion, "test", "damaged")
	})
	wait(t, l, bad, Failed)
	let(bad)
	flaky := tr.Start("add", "a paper, model down", func(context.Context, Report) (string, error) {
		return "", errs.New(errs.LLM, "test", "model unreachable")
	})
	wait(t, l, flaky, Failed)
	time.Sleep(20 * time.Millisecond) // past the moment work is let go of, were it
	if !held(flaky) {
		t.Fatal("a retryable failure lost its work")
	}
	if _, err := tr.Retry(flaky); err != nil {
		t.Fatalf("retry: %v", err)
	}
}

// An operation started in a unit says it in every report, so the window
// reads "298/2384 MB" rather than bare numbers; Start counts items.
func TestProgressCarriesItsUnit(t *testing.T) {
	l := &log{}
	tr := &Tracker{Emit: l.emit}
	id := tr.StartIn("ollama", "Download qwen3:4b", "MB", func(ctx context.Context, report Report) (string, error) {
		report("pulling", 298, 2384)
		return "ready", nil
	})
	if o := wait(t, l, id, Done); o.Unit != "MB" {
		t.Fatalf("unit %q", o.Unit)
	}
	l.mu.Lock()
	for _, o := range l.ops {
		if o.Unit != "MB" {
			t.Errorf("a report without the unit: %+v", o)
		}
	}
	l.mu.Unlock()
	plain := tr.Start("index", "Indexing", func(context.Context, Report) (string, error) { return "", nil })
	if o := wait(t, l, plain, Done); o.Unit != "" {
		t.Fatalf("an item count got the unit %q", o.Unit)
	}
}
