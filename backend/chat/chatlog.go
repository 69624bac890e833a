package chat

import (
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// logTool writes a tool call that failed — a recoverable error outcome the
// model sees, or an error that ends the turn — to logs/chat.log, redacted.
func (r *Runner) logTool(s *Session, call llm.Block, out llm.ToolOutcome, err error) {
	switch {
	case err != nil:
		logs.Chat().Error("tool call ended the turn", "session", s.ID, "tool", call.Name, "err", r.redact(err.Error()))
	case out.IsError:
		logs.Chat().Warn("tool error", "session", s.ID, "tool", call.Name, "result", r.redact(out.Content))
	}
}

// logTurn writes a caught turn-level failure (the turn itself, or saving or
// indexing its result) to logs/chat.log, redacted.
func (r *Runner) logTurn(s *Session, what string, err error) {
	logs.Chat().Error(what, "session", s.ID, "model", s.ModelSpec(), "err", r.redact(err.Error()))
}
