package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// EstimateTokens is the serialised transcript length over four: crude, but
// it only decides when to compact.
func EstimateTokens(msgs []llm.Message) int {
	b, _ := json.Marshal(msgs) // plain structs always marshal
	return len(b) / 4
}

// compactCut returns where compaction would cut (the start of the first
// kept turn), or -1 when the session does not need it.
func compactCut(msgs []llm.Message, turnStarts []int, after, keep int) int {
	if after <= 0 || keep < 0 || len(turnStarts) <= keep || EstimateTokens(msgs) <= after {
		return -1
	}
	cut := len(msgs)
	if keep > 0 {
		cut = turnStarts[len(turnStarts)-keep]
	}
	if cut <= 0 || cut > len(msgs) {
		return -1
	}
	return cut
}

// NeedsCompaction reports whether the next turn will compact first, so a
// front end can say so before the pause.
func NeedsCompaction(s *Session, after, keep int) bool {
	return compactCut(s.Messages, s.TurnStarts, after, keep) >= 0
}

// compactInstructions asks for a summary that keeps what later turns need.
const compactInstructions = `Summarise the conversation below for your own later use. Keep facts, decisions, open questions, names, numbers, file and source names the user or the tools mentioned, and what the user asked you to do. Leave out pleasantries. Write plain prose, at most 400 words.`

// render turns transcript messages into text for the summariser: tool calls
// and results shortened, opaque provider state dropped.
func render(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, bl := range m.Content {
			switch bl.Type {
			case llm.BlockText:
				fmt.Fprintf(&b, "%s: %s\n", m.Role, bl.Text)
			case llm.BlockToolCall:
				args, _ := json.Marshal(bl.Arguments) // a map of JSON values always marshals
				fmt.Fprintf(&b, "%s called %s %s\n", m.Role, bl.Name, truncateMiddle(string(args), 200))
			case llm.BlockToolResult:
				fmt.Fprintf(&b, "tool result: %s\n", truncateMiddle(bl.Content, 600))
			}
		}
	}
	return b.String()
}

// truncateMiddle keeps both ends of a long value.
func truncateMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + " … " + string(r[len(r)-n/2:])
}

// Compact replaces everything before the last keep turns with a two-message
// summary pair written by p (the session's own provider, so a private
// session's history stays local). It works on copies: a cancel or failure
// leaves the caller's transcript as it was.
func Compact(ctx context.Context, p llm.Provider, msgs []llm.Message, turnStarts []int, after, keep int) ([]llm.Message, []int, error) {
	cut := compactCut(msgs, turnStarts, after, keep)
	if cut < 0 {
		return msgs, turnStarts, nil
	}
	prompt := compactInstructions + "\n\n" + render(msgs[:cut])
	summary, err := p.Complete(ctx, []llm.Message{llm.Text(llm.RoleUser, prompt)}, 800, 0)
	if err != nil {
		if ctx.Err() != nil {
			return msgs, turnStarts, errs.Wrap(errs.Cancelled, "chat.Compact", ctx.Err())
		}
		return msgs, turnStarts, errs.Wrap(errs.LLM, "chat.Compact", err)
	}
	out := []llm.Message{
		llm.Text(llm.RoleUser, "Summary of our earlier conversation:\n"+strings.TrimSpace(summary)),
		llm.Text(llm.RoleAssistant, "Understood; I will continue from that summary."),
	}
	out = append(out, msgs[cut:]...)
	var starts []int
	for _, st := range turnStarts {
		if st >= cut {
			starts = append(starts, st-cut+2)
		}
	}
	return out, starts, nil
}
