package pdf

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Limits bound the work one PDF may cost, whatever the file claims: a
// 794-byte file can claim a billion pages and a 120 KB one can decode to
// gigabytes. Zero fields take the DefaultLimits value.
type Limits struct {
	MaxPages    int           // documents claiming more pages are refused unread
	MaxMemory   int64         // bytes MuPDF may hold for one document at once
	MaxChars    int           // characters on one page
	PageTimeout time.Duration // one page's extraction or rendering
	DocTimeout  time.Duration // the whole document
}

// DefaultLimits fit a long book (a few thousand pages, tens of MB) with a
// wide margin and stop hostile files within seconds.
var DefaultLimits = Limits{
	MaxPages:    10000,
	MaxMemory:   512 << 20,
	MaxChars:    200000,
	PageTimeout: 5 * time.Second,
	DocTimeout:  2 * time.Minute,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxPages > 0 {
		d.MaxPages = l.MaxPages
	}
	if l.MaxMemory > 0 {
		d.MaxMemory = l.MaxMemory
	}
	if l.MaxChars > 0 {
		d.MaxChars = l.MaxChars
	}
	if l.PageTimeout > 0 {
		d.PageTimeout = l.PageTimeout
	}
	if l.DocTimeout > 0 {
		d.DocTimeout = l.DocTimeout
	}
	return d
}

// errDocTimeout marks the document deadline, told apart from the caller's.
var errDocTimeout = errors.New("document time limit")

// bounded runs one page's work under the page and document deadlines: when
// either passes, or the caller cancels, MuPDF's cookie is set and the page
// stops where it is. The error is Cancelled when the caller stopped the
// work and a Conversion error naming the limit otherwise.
func (r *rawDoc) bounded(ctx, docCtx context.Context, lim Limits, op, what string, work func() *mupdfError) error {
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Cancelled, op, err)
	}
	pageCtx, cancel := context.WithTimeout(docCtx, lim.PageTimeout)
	defer cancel()
	r.reset()
	stop := context.AfterFunc(pageCtx, r.abort)
	merr := work()
	stop()
	switch {
	case ctx.Err() != nil:
		return errs.Wrap(errs.Cancelled, op, ctx.Err())
	case errors.Is(context.Cause(docCtx), errDocTimeout):
		return errs.WithHint(errs.New(errs.Conversion, op, "%s: stopped after %s, the time limit for one document", what, lim.DocTimeout), hintHeavy)
	case pageCtx.Err() != nil:
		return errs.WithHint(errs.New(errs.Conversion, op, "%s: stopped after %s, the time limit for one page", what, lim.PageTimeout), hintHeavy)
	}
	return refusal(merr, lim, op, what)
}

// refusal turns MuPDF's refusal into a Conversion error naming the cause.
func refusal(merr *mupdfError, lim Limits, op, what string) error {
	switch {
	case merr == nil:
		return nil
	case merr.kind == failMemory:
		return errs.WithHint(errs.New(errs.Conversion, op, "%s: needs more than %d MB of memory (%s)", what, lim.MaxMemory>>20, merr.msg), hintHeavy)
	case merr.kind == failLocked:
		return errs.WithHint(errs.New(errs.Locked, op, "%s: %s", what, merr.msg),
			"give the password (jarvis-cli kb add --password, or the prompt in the window); Jarvis uses it to read the file and does not keep it")
	case merr.kind == failTooMuch:
		return errs.WithHint(errs.New(errs.Conversion, op, "%s: too much text (%s; the limit is %d)", what, merr.msg, lim.MaxChars), hintHeavy)
	}
	return errs.WithHint(errs.New(errs.Conversion, op, "%s: %s", what, merr.msg), hintDamaged)
}

// The two kinds of unreadable file, as the user can act on them.
const (
	hintDamaged = "the file is damaged, truncated or not a PDF; download or export it again"
	hintHeavy   = "the file is built to exhaust a reader, or far heavier than a paper; Jarvis stops it and moves on"
)

// documentDeadline is the whole document's clock, with its own cause so a
// document timeout is not mistaken for the caller's cancellation.
func documentDeadline(ctx context.Context, lim Limits) (context.Context, context.CancelFunc) {
	c := startClock(ctx, lim.DocTimeout)
	return c.ctx, c.stop
}

// docClock is a document deadline that can be paused: the time Tesseract
// spends on a scan's pages is bounded page by page (ocr.Limits) and does
// not count against the limit that stops a hostile file, or a 200-page
// scan could never be read.
type docClock struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	limit  time.Duration

	mu       sync.Mutex
	timer    *time.Timer
	left     time.Duration // time remaining when paused
	deadline time.Time
}

func startClock(ctx context.Context, limit time.Duration) *docClock {
	c := &docClock{limit: limit, left: limit}
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	c.resume()
	return c
}

func (c *docClock) expire() {
	c.cancel(fmt.Errorf("%w of %s", errDocTimeout, c.limit))
}

// pause stops the clock until resume.
func (c *docClock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil && c.timer.Stop() {
		c.left = time.Until(c.deadline)
	}
	c.timer = nil
}

// resume runs the clock on with the time that was left.
func (c *docClock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil {
		return
	}
	c.deadline = time.Now().Add(c.left)
	c.timer = time.AfterFunc(max(c.left, 0), c.expire)
}

func (c *docClock) stop() {
	c.pause()
	c.cancel(context.Canceled)
}

// openCounted opens a document and counts its pages, refusing a file that
// cannot be parsed, has no pages or claims more than lim.MaxPages.
func openCounted(path, password string, lim Limits, op string) (*rawDoc, int, error) {
	r, merr := openRaw(path, password, lim.MaxMemory)
	if merr != nil {
		return nil, 0, refusal(merr, lim, op, "cannot open "+path)
	}
	n, merr := r.pages()
	var err error
	switch {
	case merr != nil:
		err = refusal(merr, lim, op, "cannot count the pages of "+path)
	case n == 0:
		err = errs.WithHint(errs.New(errs.Conversion, op, "%s has no pages", path), hintDamaged)
	case n > lim.MaxPages:
		err = errs.WithHint(errs.New(errs.Conversion, op, "%s claims %d pages, more than the %d Jarvis reads", path, n, lim.MaxPages),
			"a damaged or hostile file; if it really is that long, split it")
	}
	if err != nil {
		r.close()
		return nil, 0, err
	}
	return r, n, nil
}
