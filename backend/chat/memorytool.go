package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/memory"
)

// RememberTool is remember: the user's explicit "remember that …" saved to
// the memory list they manage in Settings. What a private session (or a
// turn that read private material) saves is private.
func RememberTool(store *memory.Store) Tool {
	return Tool{
		Def: llm.Tool{Name: "remember", Description: "Save a short fact or preference the user explicitly asked you to remember, for all future conversations " +
			"(e.g. \"remember that I work on single-cell RNA-seq\"). Call it ONLY when the user asks you to remember something; never on your own initiative, " +
			"and never for things you merely noticed. Tell the user it is saved and that they can edit or delete it in Settings → Memory.",
			Parameters: schema([]string{"fact"}, map[string]string{"fact": "the fact or preference, in one or two sentences, in the user's words",
				"private": "true if the user wants it kept from cloud models"})},
		Run: func(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
			text := strings.TrimSpace(str(args, "fact"))
			if text == "" {
				return "", "", errs.New(errs.Invalid, "remember", "fact is empty")
			}
			// The description asks the model to wait for the user; this
			// holds it to that whatever it decides: nothing is saved unless
			// the user's own message asked for it.
			if !memory.Asked(UserRequest(ctx)) {
				return "", "", errs.WithHint(errs.Wrapf(errs.Invalid, "remember", memory.ErrNotAsked, "nothing was saved"),
					"ask the user whether they want this remembered, and call remember only after they say so (they can also add it themselves in Settings → Memory)")
			}
			private := boolArg(args, "private") || privateCaller(ctx, s)
			f, err := store.Add(text, private)
			if err != nil {
				return "", "", err
			}
			where := "every conversation"
			if f.Private {
				where = "private conversations only (never a cloud model)"
			}
			return fmt.Sprintf("Remembered for %s: %q. The user can edit or delete it in Settings → Memory.", where, f.Text), "remembered a fact", nil
		},
	}
}

type requestKey struct{}

// withRequest gives a turn's tools what the user wrote for it.
func withRequest(ctx context.Context, text string) context.Context {
	return context.WithValue(ctx, requestKey{}, text)
}

// UserRequest is what the user wrote for the turn in flight: the message,
// or for a continuation the message that began the task (a continuation's
// own prompt is Jarvis's, not the user's). "" outside a turn.
func UserRequest(ctx context.Context) string {
	s, _ := ctx.Value(requestKey{}).(string)
	return s
}

// taskRequest is the message the user wrote that began the task the
// session's last reply belongs to: the newest of its questions that is not
// a continuation's prompt.
func taskRequest(s *Session) string {
	for i := len(s.Display) - 1; i >= 0; i-- {
		if d := s.Display[i]; d.Role == "user" && !isContinuePrompt(d.Text) {
			return d.Text
		}
	}
	return ""
}

// isContinuePrompt reports whether a question is one Jarvis asked to go
// on with a reply, not one the user wrote.
func isContinuePrompt(text string) bool {
	return text == LimitContinuePrompt || text == ContinuePrompt
}
