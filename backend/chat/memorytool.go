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
