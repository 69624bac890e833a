package chat

import (
	"context"
	"fmt"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// Papers is what add_document needs beyond the KB: the paper servers and
// reading options, and the session's own provider for summaries.
type Papers struct {
	kbtools.Papers
	Model func(s *Session) (ingest.Model, error)
}

// AddDocumentTool is add_document: an arXiv paper (URL or id), a DOI
// (arXiv's or bioRxiv's) or a local PDF, always public, as a summary
// or full text, as the user chose — the rules `jarvis-cli kb add` follows too.
// Without a mode the tool does nothing and asks the model to ask the user. A duplicate (same
// source or title) returns a question for the user unless allow_duplicate;
// a same-source re-add then replaces the old entry in the same commit.
func AddDocumentTool(k *KB, p *Papers) Tool {
	return Tool{
		Def: llm.Tool{Name: "add_document", Description: "Add a paper to the knowledge base: an arXiv URL/id, a DOI (arXiv or bioRxiv) or a local PDF path.",
			Parameters: schema([]string{"source"}, map[string]string{"source": "arXiv URL or id, DOI or doi.org URL, or absolute path of a local PDF",
				"mode": "summary or full_text, as the user chose; if they did not say, leave it out and the tool tells you what to ask", "with_figures": "true to caption figures", "allow_duplicate": "true only after the user agreed to re-add",
				"title": "title override", "authors": "authors override", "doi": "DOI override"})},
		Run: func(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
			return addDocument(ctx, k, p, s, args)
		},
	}
}

func boolArg(args map[string]any, key string) bool {
	switch v := args[key].(type) {
	case bool:
		return v
	case string:
		return strings.EqualFold(v, "true") || v == "1"
	}
	return false
}

func addDocument(ctx context.Context, k *KB, p *Papers, s *Session, args map[string]any) (string, string, error) {
	a := kbtools.AddArgs{Source: str(args, "source"), Mode: str(args, "mode"), Title: str(args, "title"), Authors: str(args, "authors"), DOI: str(args, "doi"),
		WithFigures: boolArg(args, "with_figures"), AllowDuplicate: boolArg(args, "allow_duplicate"), Status: LedgerFrom(ctx).Status}
	if p.Model != nil {
		m, err := p.Model(s)
		if err != nil && a.Mode == ingest.Summary {
			return "", "", errs.WithHint(err, "retry with mode=full_text")
		}
		a.Model = m
		if rv := modelReviewFrom(ctx); rv != nil && m != nil {
			a.Model = reviewedModel{Model: m, review: rv} // the session asks before sending
		}
	}
	added, err := k.AddPaper(ctx, kbCaller(ctx, s), &p.Papers, a)
	if err != nil {
		return "", "", err
	}
	switch added.Why {
	case kbtools.AskedDuplicate:
		return added.Question, "duplicate: asking the user", nil
	case kbtools.AskedMode:
		return added.Question, "asking the user how to store the paper", nil
	}
	res := added.Result
	msg := fmt.Sprintf("Added %q (%s, %d chunks, %d annotations, %d figures) as a public paper [source: %s].",
		res.Title, added.Mode, len(res.Chunks), res.Marks, res.Figures, res.Source)
	if len(res.Warnings) > 0 {
		msg += " Warnings: " + strings.Join(res.Warnings, "; ")
	}
	return msg, "added " + res.Title, nil
}
