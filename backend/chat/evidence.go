package chat

import (
	"strings"

	"github.com/jarvis-kb/jarvis/backend/llm"
)

// OwnKnowledgeTool is the tool a model calls before answering from general
// knowledge (offered only when the session is not knowledge-base-only).
const OwnKnowledgeTool = "use_own_knowledge"

// EvidenceTools are the tools that retrieve citable passages. A turn that
// called one of them answers with evidence or not at all.
var EvidenceTools = []string{"search_kb", "get_document", "read_file", "search_chat_history"}

// NoEvidence is the fixed answer when the knowledge base was searched and
// no citable evidence survived.
const NoEvidence = "Not enough evidence in your notes and papers to answer this."

// GeneralKnowledgeHeading separates what the model added from general
// knowledge (allowed and used) from the not-enough-evidence answer.
const GeneralKnowledgeHeading = "**From general knowledge** — not from your notes and papers:"

// NoEvidenceReply is the reply of a turn whose search left nothing to cite:
// the fixed answer, and — only when general knowledge was allowed and the
// model said it used it — the model's uncited text, clearly apart.
func NoEvidenceReply(uncited string, ownKnowledge bool) string {
	uncited = strings.TrimSpace(uncited)
	if !ownKnowledge || uncited == "" {
		return NoEvidence
	}
	return NoEvidence + "\n\n---\n\n" + GeneralKnowledgeHeading + "\n\n" + uncited
}

// withFinalText returns msgs with the text of the final assistant message
// replaced, so the transcript holds the reply the user was shown.
func withFinalText(msgs []llm.Message, text string) []llm.Message {
	out := append([]llm.Message(nil), msgs...)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role != llm.RoleAssistant {
			continue
		}
		var blocks []llm.Block
		placed := false
		for _, b := range out[i].Content {
			if b.Type != llm.BlockText {
				blocks = append(blocks, b)
			} else if !placed {
				blocks, placed = append(blocks, llm.Block{Type: llm.BlockText, Text: text}), true
			}
		}
		if placed {
			out[i].Content = blocks
			return out
		}
	}
	return append(out, llm.Text(llm.RoleAssistant, text))
}
