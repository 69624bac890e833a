// Package kbtools holds the knowledge-base operations every surface (the
// chat agent, an MCP server, the CLI, the window) calls, with the one
// privacy rule they all obey. Surfaces only decode arguments and render.
package kbtools

import (
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// The one visibility rule.
//
// A cloud caller's results are computed from public material only, and
// every answer about private material — it exists, it matched, it was
// refused — is the answer given when that material does not exist, byte
// for byte. A cloud model therefore learns nothing of private content, not
// even whether a guessed word, path or title occurs in it.
//
// A local caller sees everything; the first private byte it receives makes
// it private for good.
//
// No write-down: a private caller writes only private things; it may not
// put its words into public entries, where any cloud caller would read them.

// Caller is who asks and what it may learn.
type Caller struct {
	Cloud   bool   // a model we do not run (cloud chat, an MCP client)
	Private bool   // it has already received private material
	Who     string // for messages and logs: "chat", "mcp", "cli", "window"
	// Person says a human asks (the CLI, the window): listings and
	// searches are as long as asked, where a model's are capped to fit
	// its context.
	Person bool
	// Ledger is told what the caller was handed (nil: nobody keeps count).
	Ledger Ledger
}

// Ledger records, for one caller, the evidence it was handed (what its
// answer may cite), that private material reached it, and how many private
// matches were kept back from a cloud caller — a count for the user, never
// for the caller.
type Ledger interface {
	Add(cs ...Citation)
	MarkPrivate()
	AddWithheld(n int)
}

// saw notes the visibility of something handed to the caller.
func (c Caller) saw(visibility string) {
	if visibility == kb.Private && c.Ledger != nil {
		c.Ledger.MarkPrivate()
	}
}

// hand records chunks given to the caller: their citations and privacy.
func (c Caller) hand(chunks []kb.Chunk) {
	for _, ch := range chunks {
		c.saw(ch.Meta.Visibility)
		if c.Ledger != nil {
			c.Ledger.Add(CitationOf(ch))
		}
	}
}

func (c Caller) withheld(n int) {
	if n > 0 && c.Ledger != nil {
		c.Ledger.AddWithheld(n)
	}
}

// Scope narrows a filter to what the caller may see.
func (c Caller) Scope(f kb.Filter) kb.Filter {
	if c.Cloud {
		f.Visibility = []string{kb.Public}
	}
	return f
}

// NoWriteDown refuses a private caller's change to a public entry.
func (c Caller) NoWriteDown(op, visibility string) error {
	if visibility == kb.Public && c.Private {
		return errs.WithHint(errs.New(errs.Privacy, op, "this conversation holds private material, so it cannot change what public documents say"),
			"make the change in the Library, or from a conversation that has not read private notes")
	}
	return nil
}
