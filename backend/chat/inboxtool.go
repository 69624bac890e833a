package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// InboxTool is inbox_status: the PDF inbox's files and what became of each
// — waiting, failed with the reason, indexed — so the agent can say why a
// dropped paper is not found. A file that resolves into a private vault
// folder is absent for a cloud model, not merely unnamed, and a local model
// that is shown one makes its session private.
func InboxTool(status func(context.Context) ([]ingest.InboxFile, error)) Tool {
	return Tool{
		Def: llm.Tool{Name: "inbox_status", Description: "List the PDF inbox folder: files waiting to be read, files that failed (with the reason) and files already indexed. " +
			"Use it when the user asks about a PDF they dropped into the inbox or why a paper is not found.",
			Parameters: schema(nil, map[string]string{})},
		Run: func(ctx context.Context, s *Session, _ map[string]any) (string, string, error) {
			rows, err := status(ctx)
			if err != nil {
				return "", "", err
			}
			var b strings.Builder
			counts := map[string]int{}
			for _, r := range rows {
				if r.Private {
					if cloudSession(s) {
						continue
					}
					saw(ctx, kb.Private) // a local model that saw it keeps the session private
				}
				counts[r.State]++
				switch r.State {
				case ingest.InboxFailed:
					fmt.Fprintf(&b, "- %s: failed %s: %s\n", r.Name, r.At.Format("2006-01-02 15:04"), r.Error)
				case ingest.InboxIndexed:
					fmt.Fprintf(&b, "- %s: indexed as %q\n", r.Name, r.Title)
				default:
					fmt.Fprintf(&b, "- %s: waiting for the next scan\n", r.Name)
				}
			}
			head := fmt.Sprintf("PDF inbox: %d failed, %d waiting, %d indexed.", counts[ingest.InboxFailed], counts[ingest.InboxWaiting], counts[ingest.InboxIndexed])
			if b.Len() == 0 {
				return head + " It is empty.", "inbox: empty", nil
			}
			if counts[ingest.InboxFailed] > 0 {
				head += " A failed file is read again when it changes, or when the user presses Retry in the Sync panel."
			}
			return withCaveat(head+"\n"+BeginData+"\n"+b.String()+EndData, s), "inbox: " + strings.TrimSuffix(head, "."), nil
		},
	}
}
