package chat

import (
	"context"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Change applies fn to a session's settings (title, pin, model, "knowledge
// base only", ask-before-sending) and saves it. A session that is
// answering is refused: its turn holds the settings it started with. A
// session without a turn stays in memory until its first message. Each
// of after runs once the session is saved.
func (r *Runner) Change(s *Session, fn func(*Session) error, after ...func(*Session) error) error {
	if r.Busy(s.ID) {
		return errs.New(errs.Conflict, "chat", "this session is answering; wait or stop it first")
	}
	if err := fn(s); err != nil {
		return err
	}
	if len(s.Messages) == 0 {
		s.Updated = time.Now().UTC()
	} else if err := r.Sessions.Save(s); err != nil {
		return err
	}
	for _, a := range after {
		if err := a(s); err != nil {
			return err
		}
	}
	return nil
}

// Rename sets a clean title on the session; its indexed exchanges are
// found under the new name too.
func (r *Runner) Rename(s *Session, title string) error {
	return r.Change(s, func(s *Session) error {
		clean, err := CleanTitle(title)
		if err != nil {
			return err
		}
		s.Title = clean
		return nil
	}, r.retitleHistory)
}

// SetPinned pins or unpins the session (pinned sessions are never pruned).
func (r *Runner) SetPinned(s *Session, pinned bool) error {
	return r.Change(s, func(s *Session) error { s.Pinned = pinned; return nil })
}

// retitleHistory renames the session's indexed exchanges after a rename.
func (r *Runner) retitleHistory(s *Session) error {
	if r.History == nil || s.IndexedExchanges == 0 {
		return nil
	}
	return r.History.Retitle(context.Background(), s.ID, s.Title)
}
