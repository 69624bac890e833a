package chat

import (
	"context"
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
)

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
// output limit, so a Continue action makes sense.
func CanContinue(s *Session) bool {
	n := len(s.Display)
	return n > 0 && s.Display[n-1].Role == "assistant" && s.Display[n-1].Stop == string(llm.StopLength)
}

// Continue asks the model to go on with the session's cut-off reply, as a
// new turn. The evidence the cut-off part cited stays citable.
func (r *Runner) Continue(ctx context.Context, s *Session, emit func(Event)) (<-chan struct{}, error) {
	if !CanContinue(s) {
		return nil, errs.New(errs.Invalid, "chat.Continue", "the last reply was not cut off; there is nothing to continue")
	}
	return r.start(ctx, s, ContinuePrompt, s.Display[len(s.Display)-1].Citations, false, emit)
}
