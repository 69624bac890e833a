package chat

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/errs"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// The one visibility rule for tool results.
//
// A cloud session's tool results are computed from public material only,
// and every answer about private material — it exists, it matched, it was
// refused — is the answer the tool gives when that material does not
// exist, byte for byte. A cloud model therefore learns nothing of private
// content, not even whether a guessed word, path or title occurs in it.
// The user (never the model) is told what was kept back: the turn's ledger
// counts it and the reply shown on screen says so.
//
// A local session sees everything, and the first private byte a tool hands
// it marks the turn private, which makes the session private for good: it
// can never move to a cloud model, and its history is indexed as private.

// No write-down: a session that has read private material writes only
// private things. Its drafts are private (drafts.Caller.Private); what it
// may not do is put its words into public entries — a paper's title,
// authors or DOI — where any cloud session would read them.

// CloudCaveat ends every search result a cloud session gets. It is always
// there, whether or not anything was withheld, so it tells the model how to
// read the results and nothing about what exists.
const CloudCaveat = "(Searches from a cloud model cover public material only; private notes are never searched for it.)"

func cloudSession(s *Session) bool { return llm.IsCloud(s.ModelSpec()) }

// scope narrows a filter to what a session may see.
func scope(f kb.Filter, cloud bool) kb.Filter {
	if cloud {
		f.Visibility = []string{kb.Public}
	}
	return f
}

// saw records that a result handed the model something with this
// visibility.
func saw(ctx context.Context, visibility string) {
	if visibility == kb.Private {
		LedgerFrom(ctx).MarkPrivate()
	}
}

// privateCaller reports whether the session, or this turn so far, has
// received private material.
func privateCaller(ctx context.Context, s *Session) bool {
	return s.Private || LedgerFrom(ctx).Private()
}

// noWriteDown refuses a private caller's change to a public entry.
func noWriteDown(ctx context.Context, s *Session, op, visibility string) error {
	if visibility == kb.Public && privateCaller(ctx, s) {
		return errs.WithHint(errs.New(errs.Privacy, op, "this conversation holds private material, so it cannot change what public documents say"),
			"make the change in the Library, or from a conversation that has not read private notes")
	}
	return nil
}

// notFound returns a tool's not-found error. When a cloud session asked
// for something that exists only privately, the user (and only the user)
// is told that it was kept back.
func (k *KB) notFound(ctx context.Context, cloud bool, f kb.Filter, err error) error {
	if !cloud {
		return err
	}
	f.Visibility = []string{kb.Private}
	docs, lerr := k.Store.List(ctx, f, 1)
	if lerr != nil {
		return lerr
	}
	LedgerFrom(ctx).AddWithheld(len(docs))
	return err
}
