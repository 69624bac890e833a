package chat

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// The visibility rule is stated once, in kbtools (Caller). Here the chat
// side of it: the turn's ledger counts what was kept back from a cloud
// model (the user, never the model, is told), and the first private byte
// handed to a local session marks it private for good.

// CloudCaveat ends every search result a cloud session gets. It is always
// there, whether or not anything was withheld, so it tells the model how to
// read the results and nothing about what exists.
const CloudCaveat = "(Searches from a cloud model cover public material only; private notes are never searched for it.)"

func cloudSession(s *Session) bool { return s.PublicOnly || llm.IsCloud(s.ModelSpec()) }

// scope narrows a filter to what a session may see.
func scope(f kb.Filter, cloud bool) kb.Filter {
	return kbtools.Caller{Cloud: cloud}.Scope(f)
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
	return kbtools.Caller{Private: privateCaller(ctx, s)}.NoWriteDown(op, visibility)
}
