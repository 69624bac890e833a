package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// retryPolicy bounds retries of a request that failed before anything
// streamed: a few attempts, exponential backoff with jitter, and a cap on the
// wait a service may ask for (a longer ask fails the turn instead of
// leaving the user staring at a spinner). Tests shorten it.
var retryPolicy = struct {
	attempts       uint
	initial, maxAt time.Duration
	maxRetryAfter  time.Duration
}{attempts: 4, initial: time.Second, maxAt: 16 * time.Second, maxRetryAfter: 30 * time.Second}

// transientError is a failure worth another attempt: a busy or unreachable
// service, before any of the answer reached the user.
type transientError struct {
	err    error
	reason string        // "is overloaded", "is rate-limiting requests", ...
	wait   time.Duration // what the service asked for (retry-after); 0: our backoff
}

func (e *transientError) Error() string { return e.err.Error() }

// Unwrap exposes the service's error and, when it named a wait, the
// backoff library's RetryAfterError so the library honours it.
func (e *transientError) Unwrap() []error {
	if e.wait > 0 {
		return []error{e.err, &backoff.RetryAfterError{Duration: e.wait}}
	}
	return []error{e.err}
}

// transientReason says why a status is worth retrying ("" when it is not):
// the statuses Anthropic and OpenRouter document as passing.
func transientReason(status int) string {
	switch {
	case status == 529 || status == http.StatusServiceUnavailable:
		return "is overloaded"
	case status == http.StatusTooManyRequests:
		return "is rate-limiting requests"
	case status == http.StatusRequestTimeout:
		return "timed out"
	case status == http.StatusConflict:
		return "reported a conflict"
	case status >= 500:
		return fmt.Sprintf("had a server error (%d)", status)
	}
	return ""
}

// retryAfter reads the wait a response asks for: retry-after-ms (Anthropic,
// OpenAI), else retry-after in seconds or as an HTTP date. Zero when absent
// or unreadable.
func retryAfter(h http.Header) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("retry-after-ms"), 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("retry-after")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && !math.IsInf(s, 0) {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

type statusKey struct{}

// WithStatus asks the adapters to report what they are waiting on (a retry
// after an overloaded service) as short lines, the way WithTextStream
// reports text.
func WithStatus(ctx context.Context, fn func(line string)) context.Context {
	return context.WithValue(ctx, statusKey{}, fn)
}

func reportStatus(ctx context.Context, line string) {
	if fn, ok := ctx.Value(statusKey{}).(func(string)); ok && fn != nil {
		fn(line)
	}
}

// withRetries runs one request attempt until it succeeds, fails for good, or
// the policy is spent. An attempt returns a *transientError only while
// nothing of the answer has streamed, so a retry never repeats output.
// service names the provider in the status line ("Anthropic is overloaded —
// retrying in 4 s, 2 of 4"); a Stop cancels the wait at once.
func withRetries(ctx context.Context, op, service string, attempt func() error) error {
	p := retryPolicy
	policy := &backoff.ExponentialBackOff{InitialInterval: p.initial, RandomizationFactor: 0.5, Multiplier: 2, MaxInterval: p.maxAt}
	tries := uint(0)
	_, err := backoff.Retry(ctx, func() (struct{}, error) {
		tries++
		err := attempt()
		var t *transientError
		if err == nil || !errors.As(err, &t) || t.wait > p.maxRetryAfter {
			return struct{}{}, backoff.Permanent(err)
		}
		return struct{}{}, err
	},
		backoff.WithBackOff(policy),
		backoff.WithMaxTries(p.attempts),
		backoff.WithMaxElapsedTime(0),
		backoff.WithNotify(func(err error, wait time.Duration) {
			var t *transientError
			errors.As(err, &t)
			reportStatus(ctx, fmt.Sprintf("%s %s — retrying in %s, %d of %d", service, t.reason, roundWait(wait), tries+1, p.attempts))
		}),
	)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil && !errs.Is(err, errs.Cancelled) {
		return errs.Wrap(errs.Cancelled, op, ctx.Err()) // stopped during a wait
	}
	var t *transientError
	if errors.As(err, &t) {
		return t.err
	}
	return err
}

// roundWait shows a wait the way a person reads it: whole seconds, or
// milliseconds under one second.
func roundWait(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d s", int(d.Round(time.Second).Seconds()))
}
