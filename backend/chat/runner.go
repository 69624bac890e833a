package chat

import (
	"context"
	"strings"
	gosync "sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	cloudledger "github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// Event kinds streamed to the UI or the terminal.
const (
	EventTool    = "tool"    // a tool ran: short summary
	EventConfirm = "confirm" // a human decision is needed (token in Data)
	EventReview  = "review"  // passages wait for the human before a cloud model gets them (token, passages in Data)
	EventStatus  = "status"  // thinking / compacting
	EventReply   = "reply"   // the final answer
	EventStopped = "stopped" // the user stopped the turn; nothing was kept
	EventError   = "error"   // the turn failed; Text is safe to show
	EventDelta   = "delta"   // reply text as it streams in (may precede a tool call)
)

// Event is one step of a turn. Seq increases within a turn so a reopened
// window can resync.
type Event struct {
	SessionID string `json:"session_id"`
	Seq       int    `json:"seq"`
	Kind      string `json:"kind"`
	Text      string `json:"text"`
	Data      any    `json:"data,omitempty"`
}

// Tools is the agent's tool surface for one turn.
type Tools interface {
	Definitions(s *Session) []llm.Tool
	Dispatch(ctx context.Context, s *Session, call llm.Block, emit func(Event)) (llm.ToolOutcome, error)
}

// Runner executes turns: one at a time per session, any number of sessions
// in parallel.
type Runner struct {
	Sessions *Sessions
	Provider func(spec string) (llm.Provider, error)
	Tools    Tools
	System   func(s *Session) (string, error) // fresh each turn
	Redact   func(string) string
	MaxIter  int
	// AutoContinue is [chat] auto_continue: how many times in a row a
	// task that reaches the tool-call limit goes on by itself, each time
	// with the hand-off a Continue asks for, before the user is offered
	// Continue. 0: always ask. A Stop ends the chain. Set it before the
	// first turn; SetAutoContinue changes it while turns run.
	AutoContinue int
	// CompactAfter and CompactKeep are [chat] compact_after_tokens and
	// compact_keep_exchanges; CompactAfter 0 turns compaction off.
	CompactAfter, CompactKeep int
	// History indexes finished exchanges for search_chat_history (nil: off).
	History *HistoryIndexer
	// Offline answers a question by search alone when the model cannot be
	// reached (nil: the turn fails with the reason instead).
	Offline func(ctx context.Context, s *Session, question string, l *Ledger, reason string) (string, error)
	// Confirm carries the human's answers to reviews; AskBeforeSending is
	// ledger.ask_before_sending, read at each tool result (see review.go).
	Confirm          *Confirmations
	AskBeforeSending func() bool

	mu    gosync.Mutex
	turns map[string]*turn
}

// SetAutoContinue changes AutoContinue (Settings); a turn that is running
// uses the new value when it reaches the limit.
func (r *Runner) SetAutoContinue(n int) {
	r.mu.Lock()
	r.AutoContinue = n
	r.mu.Unlock()
}

func (r *Runner) autoContinue() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.AutoContinue
}

// turnKind is who began a turn: the user's message, the user's Continue,
// or Jarvis continuing a task at the tool-call limit on its own.
type turnKind int

const (
	askTurn turnKind = iota
	resumeTurn
	autoTurn
)

// continued is the DisplayItem.Continued mark of a turn of this kind.
func (k turnKind) continued() string {
	switch k {
	case resumeTurn:
		return ContinuedByUser
	case autoTurn:
		return ContinuedAuto
	}
	return ""
}

type turn struct {
	question string
	kind     turnKind
	cancel   context.CancelFunc
	done     chan struct{}
	ledger   *Ledger
	// base replaces the session's transcript at commit when the turn
	// compacted it first (nil: no compaction).
	base       []llm.Message
	baseStarts []int
	commit     gosync.Mutex // decides reply-vs-rollback races
	stopped    bool
	emit       func(Event)
	id         string
	session    *Session // the live session: Stop rolls its saved question back

	sendMu   gosync.Mutex // the worker and Stop both emit; seq stays ordered
	seq      int
	tools    []string        // tool summaries, kept with the reply for the UI
	partial  strings.Builder // reply text streamed since the last tool call
	streamed bool            // reply text reached the user: the model was there
	offline  bool            // answered by search alone
	called   map[string]bool // tools the model called in this turn, by name
	sent     sentTally       // the turn's cloud requests, for its "sent …" line
}

// calledTool records a tool call of this turn.
func (t *turn) calledTool(name string) {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	if t.called == nil {
		t.called = map[string]bool{}
	}
	t.called[name] = true
}

// usedTool reports whether the model called a tool of this turn.
func (t *turn) usedTool(names ...string) bool {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	for _, n := range names {
		if t.called[n] {
			return true
		}
	}
	return false
}

func (t *turn) send(kind, text string, data any) {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	t.seq++
	switch kind {
	case EventTool:
		t.tools = append(t.tools, text)
		t.partial.Reset() // text before a tool call was the model thinking aloud
	case EventDelta:
		t.partial.WriteString(text)
		t.streamed = true
	}
	if t.emit != nil {
		t.emit(Event{SessionID: t.id, Seq: t.seq, Kind: kind, Text: text, Data: data})
	}
}

func (r *Runner) redact(s string) string {
	if r.Redact == nil {
		return s
	}
	return r.Redact(s)
}

// Busy reports whether a session has a turn in flight.
func (r *Runner) Busy(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.turns[id]
	return ok
}

// Question is the message of the session's running turn ("" when idle).
func (r *Runner) Question(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.turns[id]; ok {
		return t.question
	}
	return ""
}

// Start begins a turn and returns at once; events arrive through emit and a
// channel closed when the turn's work has ended.
//
// A turn that reaches the tool-call limit goes on by itself up to
// AutoContinue times in a row (see autoContinues): each continuation is
// one more round of the same turn, with the hand-off prompt a Continue
// sends, so the channel closes when the last of them has ended, Busy
// holds throughout and a Stop ends the chain. Every round's reply is its
// own EventReply; one that is followed by a continuation says so
// ("continuing": true) and is followed by an EventStatus saying that the
// task goes on.
func (r *Runner) Start(ctx context.Context, s *Session, message string, emit func(Event)) (<-chan struct{}, error) {
	return r.start(ctx, s, message, nil, askTurn, emit)
}

// start runs a turn whose ledger already holds cited evidence (a
// continuation may cite what the cut-off part cited). A question the user
// typed (an askTurn) is saved with the session before the model is
// called, so a crash mid-turn does not lose it.
func (r *Runner) start(ctx context.Context, s *Session, message string, cited []Citation, kind turnKind, emit func(Event)) (<-chan struct{}, error) {
	pending := kind == askTurn
	if strings.TrimSpace(message) == "" {
		return nil, errs.New(errs.Invalid, "chat.Start", "empty message")
	}
	if err := s.CheckResume(s.ModelSpec()); err != nil {
		return nil, err
	}
	provider, providerErr := r.Provider(s.ModelSpec())
	if providerErr != nil && (r.Offline == nil || errs.Is(providerErr, errs.Privacy)) {
		return nil, providerErr
	}
	system, err := r.System(s)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.turns == nil {
		r.turns = map[string]*turn{}
	}
	if _, busy := r.turns[s.ID]; busy {
		r.mu.Unlock()
		return nil, errs.New(errs.Conflict, "chat.Start", "this session is already answering; stop it or wait")
	}
	ctx, cancel := context.WithCancel(ctx)
	t := &turn{question: message, kind: kind, cancel: cancel, done: make(chan struct{}), emit: emit, id: s.ID, session: s}
	r.turns[s.ID] = t
	r.mu.Unlock()
	if pending {
		// The question is on disk before any model call; every end of the
		// turn (answer, failure, stop, privacy refusal) clears it again.
		s.Pending = message
		if err := r.Sessions.Save(s); err != nil {
			r.logTurn(s, "saving the question failed", err)
			t.send(EventStatus, "your question could not be saved before answering: "+r.redact(err.Error()), nil)
		}
	}

	request := message
	if !pending { // a continuation: the user's words are the task's first question
		request = taskRequest(s)
	}
	ctx = withRequest(ctx, request)
	ctx = llm.WithTextStream(ctx, func(d string) { t.send(EventDelta, r.redact(d), nil) })
	ctx = llm.WithStatus(ctx, func(line string) { t.send(EventStatus, r.redact(line), nil) })
	// The first round's view of the session is taken now, before Start
	// returns; a later round's when the one before it has committed.
	prior := append([]llm.Message(nil), s.Messages...)
	starts := append([]int(nil), s.TurnStarts...)
	carriedBefore := append([]cloudledger.Source(nil), s.Carried...)
	rctx := r.beginRound(ctx, t, s, cited, carriedBefore)
	go func() {
		defer close(t.done)
		defer cancel()
		defer r.release(t)
		for {
			out := r.round(rctx, t, s, message, provider, providerErr, system, prior, starts, carriedBefore)
			if !r.finish(t, s, message, out) {
				return
			}
			// The task goes on by itself: one more round of this turn,
			// from the session as the round before left it.
			t.commit.Lock()
			if t.stopped {
				t.commit.Unlock()
				return
			}
			last := s.Display[len(s.Display)-1]
			prior = append([]llm.Message(nil), s.Messages...)
			starts = append([]int(nil), s.TurnStarts...)
			carriedBefore = append([]cloudledger.Source(nil), s.Carried...)
			t.commit.Unlock()
			if system, err = r.System(s); err != nil {
				r.logTurn(s, "the system prompt for the continuation failed", err)
				t.send(EventError, "the task could not go on by itself: "+r.redact(err.Error()), nil)
				return
			}
			r.mu.Lock()
			t.question, t.kind = "", autoTurn // no words of the user's: nothing to hand back on a stop
			r.mu.Unlock()
			message = LimitContinuePrompt
			t.reset()
			rctx = r.beginRound(ctx, t, s, last.Citations, carriedBefore)
		}
	}()
	return t.done, nil
}

// beginRound gives a round of the turn its own ledger (holding the
// evidence an earlier part cited, which stays citable) and the cloud
// ledger's account of what the transcript carries.
func (r *Runner) beginRound(ctx context.Context, t *turn, s *Session, cited []Citation, carriedBefore []cloudledger.Source) context.Context {
	ctx, ledger := withLedger(ctx, func(e Event) { t.send(e.Kind, e.Text, e.Data) })
	ledger.Add(cited...)
	ctx = cloudledger.WithAbout(ctx, cloudledger.About{Purpose: cloudledger.PurposeChat, Session: s.ID,
		Sources: func() []cloudledger.Source { return ledger.carried(carriedBefore) },
		Recorded: func(rec cloudledger.Record) {
			t.sendMu.Lock()
			t.sent.add(rec)
			t.sendMu.Unlock()
		}})
	t.ledger = ledger
	return ctx
}

// reset clears what one round of a turn gathered, before the next.
func (t *turn) reset() {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	t.tools, t.streamed, t.offline, t.called, t.sent = nil, false, false, nil, sentTally{}
	t.partial.Reset()
	t.base, t.baseStarts = nil, nil
}

// release ends the turn's hold on its session.
func (r *Runner) release(t *turn) {
	r.mu.Lock()
	if r.turns[t.id] == t {
		delete(r.turns, t.id)
	}
	r.mu.Unlock()
}

// round is one model turn: compaction when due, then the agentic loop
// over the tools, or the search-only answer when no model can be reached.
func (r *Runner) round(ctx context.Context, t *turn, s *Session, message string, provider llm.Provider, providerErr error, system string,
	prior []llm.Message, starts []int, carriedBefore []cloudledger.Source) outcome {
	if provider == nil { // no model to ask: straight to the search-only answer
		return r.answerOffline(ctx, t, s, message, providerErr)
	}
	if compactCut(prior, starts, r.CompactAfter, r.CompactKeep) >= 0 {
		// A second model call before the turn's own: say so, or the pause
		// looks like a hang. Stopping here leaves the session uncompacted.
		t.send(EventStatus, "compacting", nil)
		cctx := cloudledger.WithAbout(ctx, cloudledger.About{Purpose: cloudledger.PurposeCompaction, Session: s.ID, Sources: cloudledger.These(carriedBefore...)})
		msgs, st, err := Compact(cctx, provider, prior, starts, r.CompactAfter, r.CompactKeep)
		switch {
		case errs.Is(err, errs.Cancelled):
			return outcome{err: err, usage: provider.PopUsage()}
		case err != nil:
			r.logTurn(s, "compaction failed", err)
			t.send(EventStatus, "compaction failed; continuing with the full history: "+r.redact(err.Error()), nil)
		default:
			prior, t.base, t.baseStarts = msgs, msgs, st
		}
	}
	history := append(prior, llm.Text(llm.RoleUser, message))
	t.send(EventStatus, "thinking", nil)
	res, err := provider.AgenticTurn(ctx, llm.TurnRequest{
		System: system, Messages: history, Tools: r.Tools.Definitions(s), MaxIterations: r.MaxIter,
		Dispatch: func(ctx context.Context, call llm.Block) (llm.ToolOutcome, error) {
			// A tool's result goes to the model and into the transcript:
			// no secret (an error echoing a key, say) may ride along.
			t.calledTool(call.Name)
			mark := t.ledger.offeredCount()
			if r.Asks(s) {
				ctx = withModelReview(ctx, r.reviewModelRequest(t, s, call.Name))
			}
			out, err := r.Tools.Dispatch(ctx, s, call, func(e Event) {
				if d, ok := e.Data.(map[string]any); ok {
					if msg, ok := d["error"].(string); ok {
						d["error"] = r.redact(msg)
					}
				}
				t.send(e.Kind, r.redact(e.Text), e.Data)
			})
			if err == nil && !out.IsError && reviewedTools[call.Name] && r.Asks(s) {
				out, err = r.review(ctx, t, s, call.Name, out, t.ledger.offeredSince(mark))
			}
			out.Content = r.redact(out.Content)
			r.logTool(s, call, out, err)
			return out, err
		},
	})
	served := ""
	if or, ok := provider.(*llm.OpenRouter); ok {
		served = or.ServedModel
	}
	out := outcome{res: res, err: err, usage: provider.PopUsage(), served: served}
	t.sendMu.Lock()
	eligible := offlineEligible(err, t.streamed, len(t.tools))
	t.sendMu.Unlock()
	if eligible && r.Offline != nil {
		off := r.answerOffline(ctx, t, s, message, err)
		off.usage = out.usage
		out = off
	}
	return out
}

// outcome is what a turn's worker hands to finish.
type outcome struct {
	res    llm.TurnResult
	err    error
	usage  *llm.Usage
	served string
}

// answerOffline turns a failure to reach the model into a search-only
// answer (or keeps the failure when even that is not possible).
func (r *Runner) answerOffline(ctx context.Context, t *turn, s *Session, message string, reason error) outcome {
	if r.Offline == nil || ctx.Err() != nil {
		return outcome{err: reason}
	}
	t.send(EventStatus, "no language model answered; searching your notes and papers instead", nil)
	reply, err := r.Offline(ctx, s, message, t.ledger, r.redact(reason.Error()))
	if err != nil {
		return outcome{err: reason}
	}
	t.sendMu.Lock()
	t.offline = true
	t.sendMu.Unlock()
	return outcome{res: llm.TurnResult{Reply: reply, Messages: []llm.Message{llm.Text(llm.RoleAssistant, reply)}}}
}

// finish commits or rolls back a round under the turn's commit lock. It
// reports whether the task goes on by itself: the round's reply paused at
// the tool-call limit, and the session may take another continuation
// unattended (autoContinues).
func (r *Runner) finish(t *turn, s *Session, message string, o outcome) (more bool) {
	res, err, usage, served := o.res, o.err, o.usage, o.served
	t.commit.Lock()
	defer t.commit.Unlock()
	if t.stopped {
		return false // Stop already rolled back and told the user
	}
	s.Pending = ""               // the turn ends here, one way or another
	s.RecordUsage(served, usage) // requests made count even when the turn fails
	if t.ledger.Private() {
		s.MarkPrivate() // private data reached the model, whatever the outcome
	}
	now := time.Now().UTC()
	switch {
	case err == nil && res.Stop.Refused():
		r.refused(t, s, message, res.Stop, now)
	case err == nil:
		if t.base != nil {
			s.Messages, s.TurnStarts = t.base, t.baseStarts
		}
		if s.Title == DefaultTitle && len(s.Display) == 0 {
			s.Title = titleFrom(message)
		}
		// Only evidence retrieved in this turn may be cited; the rest is cut.
		reply, citations, dropped := t.ledger.Cite(r.redact(res.Reply))
		own := !s.KBOnly && t.usedTool(OwnKnowledgeTool)
		// Evidence or silence: a search that left nothing citable gets the
		// fixed answer, never an uncited one (search-only answers are cited
		// by construction; a cut-off answer is judged when it is finished).
		silent := !t.offline && res.Stop != llm.StopLength && len(citations) == 0 && t.usedTool(EvidenceTools...)
		answer := res.Messages
		if silent {
			reply = NoEvidenceReply(reply, own)
			answer = withFinalText(answer, reply) // the model sees what the user saw
		}
		s.TurnStarts = append(s.TurnStarts, len(s.Messages))
		s.Messages = append(append(s.Messages, llm.Text(llm.RoleUser, message)), answer...)
		s.Carried = t.ledger.carried(s.Carried)
		if res.LimitHit {
			reply += "\n\n(The tool-call limit for this turn was reached; this answer is based on what was gathered.)"
		}
		withheld := ""
		if n := t.ledger.Withheld; n > 0 {
			withheld = WithheldNote(n)
			// The answer of a public-only session goes to a model we do
			// not run (an MCP client): the count is the user's, kept in
			// the session's display, never in the answer.
			if !s.PublicOnly {
				reply += withheldSep + withheld
			}
		}
		t.sendMu.Lock()
		tools := append([]string(nil), t.tools...)
		sent := t.sent.line(len(t.ledger.Retrieved()))
		t.sendMu.Unlock()
		stop, notice := stopLabel(res.Stop)
		if res.LimitHit && stop == "" {
			stop, notice = StopToolLimit, NoticeToolLimit
		}
		s.Display = append(s.Display, DisplayItem{Role: "user", Text: message, At: now, Continued: t.kind.continued()},
			DisplayItem{Role: "assistant", Text: reply, Citations: citations, Tools: tools, Withheld: withheld, At: now, Stop: stop, Notice: notice,
				OwnKnowledge: own, NoEvidence: silent, Sent: sent})
		n, most := autoContinues(s), r.autoContinue()
		// Not past the user's own cap on Continues either, and never
		// under a model the session may no longer use.
		more = stop == StopToolLimit && n < most && CanContinue(s) && s.CheckResume(s.ModelSpec()) == nil
		if r.History != nil && !t.offline { // search results are in the store already
			// The turn's context is done; indexing must not be cut short by it.
			if herr := r.History.Index(context.Background(), s); herr != nil {
				r.logTurn(s, "indexing the exchange failed", herr)
				t.send(EventStatus, "this exchange was not indexed for later search: "+r.redact(herr.Error()), nil)
			}
		}
		if serr := r.Sessions.Save(s); serr != nil {
			r.logTurn(s, "saving the answer failed", serr)
			t.send(EventError, "the answer could not be saved: "+r.redact(serr.Error()), nil)
		}
		t.send(EventReply, reply, map[string]any{"limit_hit": res.LimitHit, "citations": citations, "dropped_citations": dropped, "private": s.Private,
			"stop": stop, "notice": notice, "offline": t.offline, "own_knowledge": own, "no_evidence": silent, "sent": sent, "continuing": more})
		if more {
			t.send(EventStatus, AutoContinueStatus(n+1, most), map[string]any{"continuing": n + 1, "of": most})
		}
		return more
	case errs.Is(err, errs.Privacy):
		// The turn stops with no further LLM call; nothing of it is kept and
		// the user gets their message back.
		r.logTurn(s, "turn refused for privacy", err)
		r.saveRolledBack(s)
		t.send(EventError, r.redact(err.Error()), map[string]any{"restore_input": message})
	case errs.Is(err, errs.Cancelled):
		r.saveRolledBack(s)
		t.send(EventStopped, "stopped", map[string]any{"restore_input": message})
	default:
		r.logTurn(s, "turn failed", err)
		warning := "⚠️ " + r.redact(err.Error())
		answer := DisplayItem{Role: "assistant", Text: warning, At: now}
		t.sendMu.Lock()
		partial := strings.TrimSpace(t.partial.String())
		t.sendMu.Unlock()
		if partial != "" {
			// The answer streamed so far is kept, marked as interrupted, not lost.
			text, citations, _ := t.ledger.Cite(partial)
			warning = text + "\n\n⚠️ Interrupted: " + r.redact(err.Error())
			answer.Text, answer.Citations = warning, citations
		}
		s.TurnStarts = append(s.TurnStarts, len(s.Messages))
		s.Messages = append(s.Messages, llm.Text(llm.RoleUser, message), llm.Text(llm.RoleAssistant, warning))
		s.Display = append(s.Display, DisplayItem{Role: "user", Text: message, At: now}, answer)
		if serr := r.Sessions.Save(s); serr != nil {
			r.logTurn(s, "saving the failed turn failed", serr)
			t.send(EventError, "the failed turn could not be saved: "+r.redact(serr.Error()), nil)
		}
		t.send(EventError, warning, nil)
	}
	return false
}

// titleFrom names a session after its first question: one line, at most
// 60 characters, cut on a word.
func titleFrom(message string) string {
	t := strings.Join(strings.Fields(message), " ")
	if r := []rune(t); len(r) > 60 {
		t = string(r[:60])
		if i := strings.LastIndex(t, " "); i > 30 {
			t = t[:i]
		}
		t += "…"
	}
	return t
}

// saveRolledBack writes a session whose turn left nothing: the question
// saved before the model was called is taken off disk again (a session
// with nothing else in it has no file at all).
func (r *Runner) saveRolledBack(s *Session) {
	s.Pending = ""
	if err := r.Sessions.Save(s); err != nil {
		r.logTurn(s, "rolling back the question on disk failed", err)
	}
}

// Stop rolls a turn back at once, without waiting for the worker: the
// worker's later result is discarded by the commit lock.
func (r *Runner) Stop(id string) bool {
	r.mu.Lock()
	t, ok := r.turns[id]
	r.mu.Unlock()
	if !ok {
		return false
	}
	t.commit.Lock()
	already := t.stopped
	t.stopped = true
	if !already && t.session != nil && t.session.Pending != "" {
		r.saveRolledBack(t.session)
	}
	t.commit.Unlock()
	t.cancel()
	if !already {
		t.send(EventStopped, "stopped", nil)
	}
	return true
}
