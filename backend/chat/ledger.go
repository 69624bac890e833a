package chat

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	gosync "sync"

	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// Ledger is what one turn's tools retrieved: the evidence the reply may
// cite, how many private matches were withheld from a cloud model, and
// whether private data reached the model. It lives in the turn's context.
type Ledger struct {
	mu       gosync.Mutex
	evidence map[string]Citation // by source and by file path
	order    []Citation          // in retrieval order, for per-tool reporting
	Withheld int
	private  bool
	emit     func(Event)
	offered  []Passage // what tool results are made of, for ask-before-sending
	// carriedAlso are documents whose text a tool result holds without
	// making them evidence (a listing's titles, a past chat, a draft):
	// the cloud ledger records them too.
	carriedAlso []ledger.Source
}

// carry notes documents a tool result sends without handing them as
// evidence to cite.
func (l *Ledger) carry(ss ...ledger.Source) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.carriedAlso = append(l.carriedAlso, ss...)
}

type ledgerKey struct{}

// withLedger starts a turn's ledger; emit sends events into the turn.
func withLedger(ctx context.Context, emit func(Event)) (context.Context, *Ledger) {
	l := &Ledger{evidence: map[string]Citation{}, emit: emit}
	return context.WithValue(ctx, ledgerKey{}, l), l
}

// Status tells whoever follows the turn what a long tool is doing now
// (the window's status line, an MCP client's progress). Outside a turn it
// goes nowhere.
func (l *Ledger) Status(text string) {
	if l.emit != nil {
		l.emit(Event{Kind: EventStatus, Text: text})
	}
}

// LedgerFrom returns the turn's ledger; outside a turn it returns a fresh
// one, so tools never need a nil check.
func LedgerFrom(ctx context.Context) *Ledger {
	if l, ok := ctx.Value(ledgerKey{}).(*Ledger); ok {
		return l
	}
	return &Ledger{evidence: map[string]Citation{}}
}

// Add records retrieved evidence.
func (l *Ledger) Add(cs ...Citation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.order = append(l.order, cs...)
	for _, c := range cs {
		if c.Source != "" {
			if _, seen := l.evidence[c.Source]; !seen {
				l.evidence[c.Source] = c
			}
		}
		if c.FilePath != "" {
			if _, seen := l.evidence[c.FilePath]; !seen {
				l.evidence[c.FilePath] = c
			}
		}
	}
}

// count and since let the tool box report what one call retrieved.
func (l *Ledger) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.order)
}

func (l *Ledger) since(n int) []Citation {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Citation(nil), l.order[n:]...)
}

// Retrieved is the evidence in retrieval order.
func (l *Ledger) Retrieved() []Citation { return l.since(0) }

// AddWithheld counts private matches kept from a cloud model.
func (l *Ledger) AddWithheld(n int) {
	l.mu.Lock()
	l.Withheld += n
	l.mu.Unlock()
}

// MarkPrivate records that private data reached the model in this turn.
func (l *Ledger) MarkPrivate() {
	l.mu.Lock()
	l.private = true
	l.mu.Unlock()
}

// Private reports whether private data reached the model in this turn.
func (l *Ledger) Private() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.private
}

// citeRE matches the citation form the system prompt asks for:
// [source: X] or [source: X, p.N].
var citeRE = regexp.MustCompile(`\[source:\s*([^\]\n]+?)\s*\]`)
var pageRE = regexp.MustCompile(`,\s*p\.?\s*(\d+)$`)

// Cite keeps the reply's citations that name evidence retrieved in this
// turn and removes the rest from the text, so a reply can never point at a
// source nobody retrieved. It returns the cleaned reply, the citations kept
// (in order, deduplicated) and how many were dropped.
func (l *Ledger) Cite(reply string) (string, []Citation, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var kept []Citation
	seen := map[string]bool{}
	dropped := 0
	clean := citeRE.ReplaceAllStringFunc(reply, func(m string) string {
		inner := citeRE.FindStringSubmatch(m)[1]
		page := 0
		if pm := pageRE.FindStringSubmatch(inner); pm != nil {
			page, _ = strconv.Atoi(pm[1]) // pageRE captures digits only
			inner = strings.TrimSpace(inner[:len(inner)-len(pm[0])])
		}
		c, ok := l.evidence[inner]
		if !ok {
			dropped++
			return ""
		}
		if page > 0 {
			c.Page = page
		}
		key := c.Place()
		if !seen[key] {
			seen[key] = true
			kept = append(kept, c)
		}
		return m
	})
	if dropped > 0 {
		// Removing a marker can leave a stray space before punctuation.
		clean = strings.NewReplacer(" .", ".", " ,", ",", "  ", " ").Replace(clean)
	}
	return clean, kept, dropped
}

// WithheldNote is the line appended to a cloud reply when private matches
// were kept from the model, so the user knows the answer is partial.
func WithheldNote(n int) string {
	if n == 1 {
		return "(1 matching private note was withheld from this cloud model; switch to a local model to include it.)"
	}
	return fmt.Sprintf("(%d matching private notes were withheld from this cloud model; switch to a local model to include them.)", n)
}

// carried returns the documents of the sources before plus those this
// turn retrieved so far, each once, for the cloud ledger's records.
func (l *Ledger) carried(before []ledger.Source) []ledger.Source {
	out := append([]ledger.Source(nil), before...)
	for _, c := range l.Retrieved() {
		key := c.Source
		if key == "" {
			key = c.FilePath
		}
		out = append(out, ledger.Source{Key: key, Title: c.Title})
	}
	l.mu.Lock()
	out = append(out, l.carriedAlso...)
	l.mu.Unlock()
	return dedupeSources(out)
}

func dedupeSources(ss []ledger.Source) []ledger.Source {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if s.Key != "" && !seen[s.Key] {
			seen[s.Key] = true
			out = append(out, s)
		}
	}
	return out
}

// sentTally sums a turn's cloud requests for the line under its reply.
type sentTally struct {
	requests int
	to       string
	docs     map[string]bool
}

func (s *sentTally) add(r ledger.Record) {
	if r.Local {
		return
	}
	s.requests++
	s.to = r.Provider + ":" + r.Model
	if s.docs == nil {
		s.docs = map[string]bool{}
	}
	for _, src := range r.Sources {
		s.docs[src.Key] = true
	}
}

// line reads "sent 3 passages from 2 documents to anthropic:claude-…
// (2 requests)"; empty when nothing went to the cloud.
func (s *sentTally) line(passages int) string {
	if s.requests == 0 {
		return ""
	}
	what := "your question"
	switch {
	case len(s.docs) > 0 && passages > 0:
		what = fmt.Sprintf("%s from %s", plural(passages, "passage"), plural(len(s.docs), "document"))
	case len(s.docs) > 0: // only what earlier turns retrieved, sent again with the conversation
		what = fmt.Sprintf("the conversation, with text from %s", plural(len(s.docs), "document"))
	}
	return fmt.Sprintf("sent %s to %s (%s)", what, s.to, plural(s.requests, "request"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
