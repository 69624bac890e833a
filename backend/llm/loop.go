package llm

import (
	"context"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// conversation is one adapter's view of a turn in progress: its own wire list,
// extended request by request. runTurn drives it; the adapter only knows how
// to make one request and how to append tool results in its wire shape.
type conversation interface {
	// request sends the wire list (plus, when wrapUp is set, the wrap-up
	// instruction and no tools), appends the assistant reply to the wire list
	// and returns it in neutral form with why the model stopped.
	request(ctx context.Context, wrapUp bool) (Message, StopReason, error)
	// addResults appends one round of tool results to the wire list.
	addResults(results Message)
}

// runTurn is the tool loop shared by every adapter. The neutral tail is built
// locally and returned only on success, so a failure or a stop leaves the
// caller's transcript untouched.
func runTurn(ctx context.Context, op string, req TurnRequest, c conversation) (TurnResult, error) {
	max := req.MaxIterations
	if max <= 0 {
		max = DefaultMaxIterations
	}
	var tail []Message
	for iter := 1; iter <= max; iter++ {
		if err := ctx.Err(); err != nil {
			return TurnResult{}, errs.Wrap(errs.Cancelled, op, err)
		}
		msg, stop, err := c.request(ctx, false)
		if err != nil {
			return TurnResult{}, err
		}
		calls := msg.ToolCalls()
		if stop == StopPauseTurn && len(calls) == 0 {
			// The server paused a long turn; the reply, sent back as it is,
			// lets the model go on. One message for the user either way.
			tail = appendContinued(tail, msg)
			continue
		}
		tail = appendContinued(tail, msg)
		if len(calls) == 0 || stop == StopLength || stop.Refused() || stop == StopError {
			last := withoutToolCalls(tail[len(tail)-1])
			tail[len(tail)-1] = last
			return TurnResult{Messages: tail, Reply: last.PlainText(), Iterations: iter, Stop: finalStop(stop)}, nil
		}
		if req.Dispatch == nil {
			return TurnResult{}, errs.New(errs.Internal, op, "the model called %s but no tools are wired", calls[0].Name)
		}
		results := Message{Role: RoleUser}
		for _, call := range calls {
			if err := ctx.Err(); err != nil {
				return TurnResult{}, errs.Wrap(errs.Cancelled, op, err)
			}
			outcome, err := req.Dispatch(ctx, call)
			if err != nil {
				// A privacy refusal or a stop: drop the orphaned assistant
				// message (the whole tail) and make no further request.
				return TurnResult{}, err
			}
			results.Content = append(results.Content, Block{Type: BlockToolResult, ToolCallID: call.ID, Content: outcome.Content, IsError: outcome.IsError})
		}
		c.addResults(results)
		tail = append(tail, results)
	}
	if err := ctx.Err(); err != nil {
		return TurnResult{}, errs.Wrap(errs.Cancelled, op, err)
	}
	msg, stop, err := c.request(ctx, true)
	if err != nil {
		return TurnResult{}, err
	}
	msg = withoutToolCalls(msg) // tools were not offered; ignore any the model invents
	tail = append(tail, msg)
	return TurnResult{Messages: tail, Reply: msg.PlainText(), Iterations: max + 1, LimitHit: true, Stop: finalStop(stop)}, nil
}

// appendContinued adds an assistant message to the tail, merged into the
// previous one when that was paused: the model continues its own message,
// so text that meets at the seam is one text, as it streamed.
func appendContinued(tail []Message, msg Message) []Message {
	n := len(tail)
	if n == 0 || tail[n-1].Role != RoleAssistant {
		return append(tail, msg)
	}
	prev := &tail[n-1]
	rest := msg.Content
	if k := len(prev.Content); k > 0 && len(rest) > 0 && prev.Content[k-1].Type == BlockText && rest[0].Type == BlockText {
		prev.Content[k-1].Text += rest[0].Text
		rest = rest[1:]
	}
	prev.Content = append(prev.Content, rest...)
	return tail
}

// finalStop names how a finished answer ended: a tool_use stop whose calls
// were dropped, or no reason at all, is a normal end.
func finalStop(s StopReason) StopReason {
	if s == "" || s == StopToolUse || s == StopPauseTurn {
		return StopEnd
	}
	return s
}

func withoutToolCalls(m Message) Message {
	out := Message{Role: m.Role}
	for _, b := range m.Content {
		if b.Type != BlockToolCall {
			out.Content = append(out.Content, b)
		}
	}
	return out
}
