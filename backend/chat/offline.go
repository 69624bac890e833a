package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// OfflineLabel heads an answer made without a language model, so nobody
// mistakes ranked passages for a written answer.
const OfflineLabel = "Search results — no language model connected"

// Offline reports whether a shown reply is a search-only answer (made by
// OfflineAnswer, without a language model), which the window labels apart.
func (d DisplayItem) Offline() bool {
	return d.Role == "assistant" && strings.HasPrefix(d.Text, "**"+OfflineLabel+".**")
}

// offlinePassage is how much of each passage an offline answer quotes.
const offlinePassage = 480

// OfflineAnswer answers a question from the knowledge base alone: the best
// matching passages, each with its citation, under OfflineLabel and the
// reason no model answered. It follows the session's privacy rule (a
// session on a cloud model is shown public passages only — its transcript
// may reach that model later — and the runner adds the user-only count of
// what was kept back) and records what it showed in the turn's ledger, so
// the citations open like any other.
func (k *KB) OfflineAnswer(ctx context.Context, s *Session, question string, l *Ledger, reason string) (string, error) {
	// The passages shown are handed to the session through l, so their
	// citations open like any other.
	c := kbtools.Caller{Cloud: cloudSession(s), Who: "chat", Ledger: l}
	found, err := k.Search(ctx, c, kbtools.SearchArgs{Query: question, N: max(k.NResults, 5)})
	if err != nil {
		return "", err
	}
	chunks, mode := found.Chunks, found.Mode
	var b strings.Builder
	fmt.Fprintf(&b, "**%s.** %s\n\n", OfflineLabel, offlineReason(reason))
	if len(chunks) == 0 {
		b.WriteString("Nothing in your notes and papers matches this question.")
		return b.String(), nil
	}
	for i, c := range chunks {
		m := c.Meta
		title := m.Title
		if title == "" {
			title = kbtools.CiteName(m)
		}
		fmt.Fprintf(&b, "%d. **%s**", i+1, title)
		if m.Section != "" && m.Section != title {
			fmt.Fprintf(&b, " — %s", m.Section)
		}
		fmt.Fprintf(&b, " %s\n", kbtools.CiteLabel(m))
		text := strings.Join(strings.Fields(c.Content), " ")
		if r := []rune(text); len(r) > offlinePassage {
			text = string(r[:offlinePassage]) + "…"
		}
		fmt.Fprintf(&b, "   > %s\n\n", text)
	}
	fmt.Fprintf(&b, "_Found by %s search._", mode.Kind())
	return strings.TrimRight(b.String(), "\n"), nil
}

// offlineReason is the one sentence saying why no model answered, with the
// fix when the error carries one (already redacted by the runner).
func offlineReason(reason string) string {
	msg := "The chat model could not be reached"
	if reason != "" {
		msg += ": " + reason
	}
	return strings.TrimSuffix(msg, ".") + "."
}

// offlineEligible says whether a failed turn should be answered by search:
// the model's service could not be reached at all (nothing streamed, no
// tool ran). A service that answered with an error (a bad key, a routing
// policy no endpoint meets) is shown as that error: the user has a setting
// to fix, and a search result would hide it.
func offlineEligible(err error, streamed bool, tools int) bool {
	return err != nil && !streamed && tools == 0 && llm.Unreachable(err)
}
