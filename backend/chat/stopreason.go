package chat

import (
	"context"
	"fmt"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// The labels a reply carries when the model did not finish normally. The
// window shows them under the reply, `jarvis-cli ask` on stderr, and the
// stored session keeps them with the reply.
const (
	NoticeCutOff        = "cut off at the output limit"
	NoticeRefused       = "the model declined to answer"
	NoticeContentFilter = "the answer was withheld by the provider's content filter"
	NoticeToolLimit     = "paused at the tool-call limit for one turn"
)

// StopToolLimit labels a reply whose turn used every tool round it was
// allowed: the work so far is kept and Continue picks it up.
const StopToolLimit = "tool_limit"

// MaxLimitContinues caps how many Continues in a row a task may take at the
// tool-call limit before the user has to say how to go on: a task that
// keeps hitting the limit is more likely stuck than nearly done.
const MaxLimitContinues = 3

// LimitContinuePrompt starts a turn continued at the tool-call limit: a
// short hand-off first, so the user (and the model) see where things stand.
const LimitContinuePrompt = "Your previous turn reached the tool-call limit before the task was done. Continue it: " +
	"begin with a two-sentence hand-off (what is done, what remains), then go on with the tools where you stopped."

// DisplayItem.Continued marks.
const (
	ContinuedByUser = "user" // the user chose Continue
	ContinuedAuto   = "auto" // the task went on by itself at the tool-call limit
)

// AutoContinueStatus is the status line of a task going on by itself: the
// n-th continuation in a row of at most of.
func AutoContinueStatus(n, of int) string {
	return fmt.Sprintf("paused at the tool-call limit; continuing automatically (%d of %d)", n, of)
}

// ContinuePrompt asks the model to go on with a reply that was cut off.
const ContinuePrompt = "Your previous answer was cut off at the output limit. Continue it from exactly where it stopped, without repeating what you already wrote."

// stopLabel is the stored stop and notice for an answer that ended as stop
// did; a normal end has none.
func stopLabel(stop llm.StopReason) (string, string) {
	switch stop {
	case llm.StopLength:
		return string(stop), NoticeCutOff
	case llm.StopRefusal:
		return string(stop), NoticeRefused
	case llm.StopContentFilter:
		return string(stop), NoticeContentFilter
	}
	return "", ""
}

// refused records a refused turn: the user's message and a plain notice in
// the display, nothing in the transcript the model sees (a refused exchange
// replayed would only be refused again) and nothing indexed as an answer.
// Whatever partial text streamed is dropped.
func (r *Runner) refused(t *turn, s *Session, message string, stop llm.StopReason, now time.Time) {
	code, notice := stopLabel(stop)
	if s.Title == DefaultTitle && len(s.Display) == 0 {
		s.Title = titleFrom(message)
	}
	text := "⚠️ No answer: " + notice + "."
	s.Display = append(s.Display, DisplayItem{Role: "user", Text: message, At: now},
		DisplayItem{Role: "assistant", Text: text, At: now, Stop: code, Notice: notice})
	if serr := r.Sessions.Save(s); serr != nil {
		t.send(EventError, "the refusal could not be saved: "+r.redact(serr.Error()), nil)
	}
	t.send(EventReply, text, map[string]any{"stop": code, "notice": notice, "refused": true, "private": s.Private})
}

// CanContinue reports whether the session's last reply was cut off at the
// output limit, or paused at the tool-call limit fewer than
// MaxLimitContinues times in a row, so a Continue action makes sense.
func CanContinue(s *Session) bool {
	n := len(s.Display)
	if n == 0 || s.Display[n-1].Role != "assistant" {
		return false
	}
	switch s.Display[n-1].Stop {
	case string(llm.StopLength):
		return true
	case StopToolLimit:
		return limitContinues(s) < MaxLimitContinues
	}
	return false
}

// limitContinues counts the user's Continues in a row that ended at the
// tool-call limit again, newest first. The continuations that ran by
// themselves in between are not the user's and are passed over.
func limitContinues(s *Session) int {
	return continuesAtLimit(s,
		func(asked DisplayItem) bool { return asked.Text == LimitContinuePrompt },
		func(asked DisplayItem) bool { return asked.Continued != ContinuedAuto })
}

// autoContinues counts the continuations in a row that ran by themselves
// and ended at the tool-call limit again, newest first: those since the
// user last said something (a message, or Continue).
func autoContinues(s *Session) int {
	return continuesAtLimit(s,
		func(asked DisplayItem) bool { return asked.Continued == ContinuedAuto },
		func(DisplayItem) bool { return true })
}

// continuesAtLimit walks back over the exchanges that ended at the
// tool-call limit, newest first, while in(the user's side) holds, and
// counts those count accepts.
func continuesAtLimit(s *Session, in, count func(asked DisplayItem) bool) int {
	n := 0
	for i := len(s.Display) - 1; i >= 1; i -= 2 {
		reply, asked := s.Display[i], s.Display[i-1]
		if reply.Stop != StopToolLimit || asked.Role != "user" || !in(asked) {
			break
		}
		if count(asked) {
			n++
		}
	}
	return n
}

// Continue asks the model to go on with the session's cut-off or paused
// reply, as a new turn. The evidence the earlier part cited stays citable.
func (r *Runner) Continue(ctx context.Context, s *Session, emit func(Event)) (<-chan struct{}, error) {
	if !CanContinue(s) {
		if n := len(s.Display); n > 0 && s.Display[n-1].Stop == StopToolLimit {
			return nil, errs.WithHint(errs.New(errs.Invalid, "chat.Continue", "this task reached the tool-call limit %d times in a row", MaxLimitContinues+1),
				"say how to go on, or narrow the task, in a new message")
		}
		return nil, errs.New(errs.Invalid, "chat.Continue", "the last reply was not cut off; there is nothing to continue")
	}
	last := s.Display[len(s.Display)-1]
	prompt := ContinuePrompt
	if last.Stop == StopToolLimit {
		prompt = LimitContinuePrompt
	}
	return r.start(ctx, s, prompt, last.Citations, resumeTurn, emit)
}
