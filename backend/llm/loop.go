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
	// and returns it in neutral form.
	request(ctx context.Context, wrapUp bool) (Message, error)
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
		msg, err := c.request(ctx, false)
		if err != nil {
			return TurnResult{}, err
		}
		tail = append(tail, msg)
		calls := msg.ToolCalls()
		if len(calls) == 0 {
			return TurnResult{Messages: tail, Reply: msg.PlainText(), Iterations: iter}, nil
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
	msg, err := c.request(ctx, true)
	if err != nil {
		return TurnResult{}, err
	}
	msg = withoutToolCalls(msg) // tools were not offered; ignore any the model invents
	tail = append(tail, msg)
	return TurnResult{Messages: tail, Reply: msg.PlainText(), Iterations: max + 1, LimitHit: true}, nil
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
