package chat

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	gosync "sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Confirmations is the human-in-the-loop channel for destructive tool
// calls: a tool asks, the UI (or terminal) shows the preview with a token,
// and only Answer with that token lets the tool go on. Several requests can
// be pending at once; each is answered by its own token.
type Confirmations struct {
	mu      gosync.Mutex
	pending map[string]chan Decision
}

// Ask emits a confirm event into the current turn and waits for the human.
// A stopped turn (cancelled ctx) counts as "no".
func (c *Confirmations) Ask(ctx context.Context, text string, data map[string]any) (bool, error) {
	d, err := c.wait(ctx, EventConfirm, text, data)
	return d.Send, err
}

// Review emits a review event (the passages a cloud request would carry)
// and waits for the human's decision; a stopped turn sends nothing.
func (c *Confirmations) Review(ctx context.Context, text string, data map[string]any) (Decision, error) {
	return c.wait(ctx, EventReview, text, data)
}

func (c *Confirmations) wait(ctx context.Context, kind, text string, data map[string]any) (Decision, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return Decision{}, errs.Wrap(errs.Internal, "chat.Confirm", err)
	}
	token := hex.EncodeToString(b)
	ch := make(chan Decision, 1)
	c.mu.Lock()
	if c.pending == nil {
		c.pending = map[string]chan Decision{}
	}
	c.pending[token] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, token)
		c.mu.Unlock()
	}()
	payload := map[string]any{"token": token}
	for k, v := range data {
		payload[k] = v
	}
	l := LedgerFrom(ctx)
	if l.emit == nil {
		return Decision{}, errs.New(errs.Internal, "chat.Confirm", "no one can answer a confirmation outside a turn")
	}
	l.emit(Event{Kind: kind, Text: text, Data: payload})
	select {
	case d := <-ch:
		return d, nil
	case <-ctx.Done():
		return Decision{}, errs.Wrap(errs.Cancelled, "chat.Confirm", ctx.Err())
	}
}

// Answer resolves a pending confirmation (or a review: yes sends it all).
func (c *Confirmations) Answer(token string, yes bool) error {
	return c.Decide(token, Decision{Send: yes})
}

// Decide resolves a pending request. An unknown or already answered token
// is an error, so a double click cannot confirm a different request.
func (c *Confirmations) Decide(token string, d Decision) error {
	c.mu.Lock()
	ch, ok := c.pending[token]
	if ok {
		delete(c.pending, token)
	}
	c.mu.Unlock()
	if !ok {
		return errs.New(errs.NotFound, "chat.Confirm", "no pending confirmation %q (already answered or the turn ended)", token)
	}
	ch <- d
	return nil
}

// Pending lists the tokens awaiting an answer.
func (c *Confirmations) Pending() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.pending))
	for t := range c.pending {
		out = append(out, t)
	}
	return out
}
