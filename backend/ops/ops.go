// Package ops runs long work (adding papers, syncing the vault) as
// operations the user can watch and stop: each reports progress events
// {op_id, seq, stage, done, total} as it goes and ends as done, failed or
// cancelled, with the error code and hint of a failure so the UI can say
// what to do about it.
package ops

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	gosync "sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// States of an operation.
const (
	Running   = "running"
	Done      = "done"
	Failed    = "failed"
	Cancelled = "cancelled"
)

// Op is an operation's latest state; every change is emitted with a higher
// Seq.
type Op struct {
	ID     string `json:"op_id"`
	Kind   string `json:"kind"`
	Title  string `json:"title"`
	Seq    int    `json:"seq"`
	Stage  string `json:"stage"`
	Done   int    `json:"done"`
	Total  int    `json:"total"`
	Unit   string `json:"unit,omitempty"` // what Done and Total count when not items ("MB")
	State  string `json:"state"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	Code   string `json:"code,omitempty"`
	Hint   string `json:"hint,omitempty"`
	// Retryable marks a failure that may pass on a second try (a model or
	// a remote service was down), as opposed to bad input.
	Retryable bool      `json:"retryable,omitempty"`
	Started   time.Time `json:"started"`
}

// Report is how work tells its progress.
type Report func(stage string, done, total int)

// Work is the body of an operation; its result line is shown when it ends.
type Work func(ctx context.Context, report Report) (string, error)

// Tracker runs operations and remembers the recent ones.
type Tracker struct {
	Emit func(Op)
	// Redact scrubs secrets from an operation's result, error and hint
	// before anyone sees or keeps them (nil: none).
	Redact func(string) string

	mu  gosync.Mutex
	ops map[string]*entry
}

type entry struct {
	op     Op
	cancel context.CancelFunc
	work   Work
}

// retryable codes: the same request can succeed later.
var retryable = map[errs.Code]bool{errs.LLM: true, errs.Fetch: true, errs.RAG: true, errs.Internal: true, errs.Conflict: true}

func newID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand does not fail on supported platforms
	return hex.EncodeToString(b)
}

// Start runs work in the background and returns the operation's id.
func (t *Tracker) Start(kind, title string, work Work) string {
	return t.StartIn(kind, title, "", work)
}

// StartIn is Start for work whose progress counts in unit ("MB").
func (t *Tracker) StartIn(kind, title, unit string, work Work) string {
	ctx, cancel := context.WithCancel(context.Background())
	e := &entry{op: Op{ID: newID(), Kind: kind, Title: title, Unit: unit, State: Running, Stage: "starting", Started: time.Now().UTC()}, cancel: cancel, work: work}
	t.mu.Lock()
	if t.ops == nil {
		t.ops = map[string]*entry{}
	}
	t.ops[e.op.ID] = e
	t.mu.Unlock()
	t.update(e, func(o *Op) {})
	go func() {
		defer cancel()
		res, err := work(ctx, func(stage string, done, total int) {
			t.update(e, func(o *Op) { o.Stage, o.Done, o.Total = stage, done, total })
		})
		t.update(e, func(o *Op) {
			switch {
			case err == nil:
				o.State, o.Result, o.Stage = Done, t.redact(res), "done"
			case errors.Is(err, context.Canceled) || errs.Is(err, errs.Cancelled):
				o.State, o.Stage = Cancelled, "cancelled"
			default:
				o.State, o.Error, o.Code, o.Hint = Failed, t.redact(err.Error()), string(errs.CodeOf(err)), t.redact(errs.HintOf(err))
				o.Retryable = retryable[errs.CodeOf(err)]
			}
		})
		// Only a retryable failure keeps its work: a finished one lets go
		// of what the work holds (an encrypted PDF's password, say).
		t.mu.Lock()
		if e.op.State != Failed || !e.op.Retryable {
			e.work = nil
		}
		t.mu.Unlock()
	}()
	return e.op.ID
}

func (t *Tracker) redact(text string) string {
	if t.Redact == nil {
		return text
	}
	return t.Redact(text)
}

func (t *Tracker) update(e *entry, fn func(*Op)) {
	t.mu.Lock()
	fn(&e.op)
	e.op.Seq++
	op := e.op
	t.mu.Unlock()
	if t.Emit != nil {
		t.Emit(op)
	}
}

// Cancel stops a running operation; the work sees its context end.
func (t *Tracker) Cancel(id string) bool {
	t.mu.Lock()
	e, ok := t.ops[id]
	t.mu.Unlock()
	if !ok || e.op.State != Running {
		return false
	}
	e.cancel()
	return true
}

// Retry starts a failed, retryable operation again as a new operation.
func (t *Tracker) Retry(id string) (string, error) {
	t.mu.Lock()
	e, ok := t.ops[id]
	var op Op
	var work Work
	if ok {
		op, work = e.op, e.work
	}
	t.mu.Unlock()
	switch {
	case !ok:
		return "", errs.New(errs.NotFound, "ops.Retry", "no operation %s", id)
	case op.State != Failed || !op.Retryable || work == nil:
		return "", errs.New(errs.Invalid, "ops.Retry", "%s cannot be retried (%s)", op.Title, op.State)
	}
	return t.Start(op.Kind, op.Title, work), nil
}

// List returns every operation still remembered, oldest first.
func (t *Tracker) List() []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Op, 0, len(t.ops))
	for _, e := range t.ops {
		out = append(out, e.op)
	}
	slices.SortStableFunc(out, func(a, b Op) int { return a.Started.Compare(b.Started) })
	return out
}
