package chat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

// Papers is what add_document needs beyond the KB.
type Papers struct {
	Arxiv   *digest.Arxiv
	Biorxiv *digest.Biorxiv                        // nil: bioRxiv DOIs cannot be added
	Options ingest.Options                         // chunking and figure limits; Model is set per call
	Model   func(s *Session) (ingest.Model, error) // the session's own provider
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
	const op = "add_document"
	src := strings.TrimSpace(str(args, "source"))
	if src == "" {
		return "", "", errs.New(errs.Invalid, op, "source is empty")
	}
	mode := str(args, "mode")
	switch mode {
	case ingest.Summary, ingest.FullText:
	case "": // asked below, once the paper is known to exist
	default:
		return "", "", errs.New(errs.Invalid, op, "unknown mode %q: use summary or full_text", mode)
	}
	paper := ingest.Paper{Mode: mode, Title: str(args, "title"), Authors: str(args, "authors"), DOI: str(args, "doi")}
	if paper.Title+paper.Authors+paper.DOI != "" {
		// A paper is public: words chosen by a conversation that has read
		// private notes must not become its title, authors or DOI.
		if err := noWriteDown(ctx, s, op, kb.Public); err != nil {
			return "", "", err
		}
	}
	if boolArg(args, "with_figures") {
		yes := true
		paper.Figures = &yes
	}
	opts := p.Options
	if p.Model != nil {
		m, err := p.Model(s)
		if err != nil && mode == ingest.Summary {
			return "", "", errs.WithHint(err, "retry with mode=full_text")
		}
		opts.Model = m
	}

	// An absolute path is a local file even when its name looks like an id.
	ref, remote, err := ingest.ParseRemote(src)
	if filepath.IsAbs(src) {
		remote, err = false, nil
	}
	if err != nil {
		return "", "", err
	}
	var res ingest.Result
	if remote {
		server := &ingest.Remote{Arxiv: p.Arxiv, Biorxiv: p.Biorxiv}
		status := LedgerFrom(ctx).Status
		status("looking up " + src)
		rp, err := server.Lookup(ctx, ref)
		if err != nil {
			return "", "", err
		}
		paper.Source = rp.Source
		if ask, err := k.duplicateQuestion(ctx, s, rp.Source, firstSet(paper.Title, rp.Title), args); err != nil || ask != "" {
			return ask, "duplicate: asking the user", err
		}
		if mode == "" {
			return modeQuestion(firstSet(paper.Title, rp.Title)), "asking the user how to store the paper", nil
		}
		dir, err := os.MkdirTemp("", "jarvis-add-")
		if err != nil {
			return "", "", errs.Wrap(errs.Internal, op, err)
		}
		defer os.RemoveAll(dir)
		pdfPath := ""
		title := firstSet(paper.Title, rp.Title)
		if rp.HasPDF {
			status(fmt.Sprintf("downloading the PDF of %q", title))
			if pdfPath, err = server.Download(ctx, rp, dir); err != nil {
				return "", "", err
			}
		}
		status(fmt.Sprintf("reading and indexing %q", title))
		if res, err = ingest.BuildRemote(ctx, rp, pdfPath, paper, opts); err != nil {
			return "", "", err
		}
	} else {
		if !filepath.IsAbs(src) || !strings.EqualFold(filepath.Ext(src), ".pdf") {
			return "", "", errs.WithHint(errs.New(errs.Invalid, op, "%q is neither an arXiv paper, a DOI nor an absolute path to a PDF", src),
				"give an arXiv URL or id, a DOI, or the full path of a local .pdf file")
		}
		noPDF := errs.WithHint(errs.New(errs.NotFound, op, "no PDF at %s", src), "give the full path of an existing .pdf file, or an arXiv URL or id")
		// Papers are public: a PDF kept in a private vault folder (or reached
		// through a link into one), or the file of a private Zotero item,
		// must not become one because a model, or a document it read, asked.
		// A cloud model gets the answer a missing file gets.
		private, err := ingest.PrivateFile(ctx, k.Store, k.VaultRoot, k.PrivateDirs, src)
		if err != nil {
			return "", "", err
		}
		if private {
			if cloudSession(s) {
				LedgerFrom(ctx).AddWithheld(1)
				return "", "", noPDF
			}
			return "", "", errs.New(errs.Privacy, op, "%s is private (in a private vault folder, or the file of a private Zotero item); it cannot be added as a public paper", filepath.Base(src))
		}
		if st, err := os.Stat(src); err != nil || !st.Mode().IsRegular() {
			return "", "", noPDF
		}
		if mode == "" {
			return modeQuestion(filepath.Base(src)), "asking the user how to store the paper", nil
		}
		paper.Path = src
		LedgerFrom(ctx).Status("reading and indexing " + filepath.Base(src))
		if res, err = ingest.BuildPaper(ctx, paper, opts); err != nil {
			return "", "", err
		}
		// A local PDF: check now that the title is known.
		if ask, err := k.duplicateQuestion(ctx, s, res.Source, res.Title, args); err != nil || ask != "" {
			return ask, "duplicate: asking the user", err
		}
	}
	if err := ctx.Err(); err != nil {
		return "", "", errs.Wrap(errs.Cancelled, op, err)
	}
	// Re-adding a known source replaces it; not knowing whether it is known
	// would risk a duplicate, so a failed lookup fails the add.
	var replace *kb.Filter
	dups, err := k.duplicates(ctx, s, res.Source, "")
	if err != nil {
		return "", "", err
	}
	if len(dups) > 0 {
		replace = &kb.Filter{Source: res.Source, Visibility: scope(kb.Filter{}, cloudSession(s)).Visibility}
	}
	if err := k.Store.Ingest(ctx, k.Searcher.Embedder(), res.Chunks, replace); err != nil {
		return "", "", err
	}
	msg := fmt.Sprintf("Added %q (%s, %d chunks, %d annotations, %d figures) as a public paper [source: %s].",
		res.Title, mode, len(res.Chunks), res.Marks, res.Figures, res.Source)
	if len(res.Warnings) > 0 {
		msg += " Warnings: " + strings.Join(res.Warnings, "; ")
	}
	LedgerFrom(ctx).Add(Citation{Source: res.Source, Title: res.Title})
	return msg, "added " + res.Title, nil
}

// duplicates are the stored documents with the same source or title that
// the session may see: a cloud model is never told that a private note
// shares a paper's title.
func (k *KB) duplicates(ctx context.Context, s *Session, source, title string) ([]kb.Duplicate, error) {
	all, err := k.Store.FindDuplicates(ctx, source, title)
	if err != nil {
		return nil, err
	}
	var out []kb.Duplicate
	for _, d := range all {
		if d.Doc.Visibility == kb.Private {
			if cloudSession(s) {
				continue
			}
			saw(ctx, kb.Private)
		}
		out = append(out, d)
	}
	return out, nil
}

// duplicateQuestion returns the ask-the-user message for a duplicate, or ""
// when there is none or the user already agreed.
func (k *KB) duplicateQuestion(ctx context.Context, s *Session, source, title string, args map[string]any) (string, error) {
	if boolArg(args, "allow_duplicate") {
		return "", nil
	}
	dups, err := k.duplicates(ctx, s, source, title)
	if err != nil || len(dups) == 0 {
		return "", err
	}
	var b strings.Builder
	b.WriteString("This paper looks like one already in the knowledge base:\n")
	for _, d := range dups {
		fmt.Fprintf(&b, "- same %s: %s\n", d.Reason, d.Doc.String())
	}
	b.WriteString("Ask the user whether to add it again. Only if they agree, call add_document again with allow_duplicate=true (a same-source entry is then replaced).")
	return b.String(), nil
}

// modeQuestion is add_document's answer when no storage mode was given: the
// two modes differ in cost and in what becomes searchable, so the user
// decides and the model does not guess.
func modeQuestion(paper string) string {
	return fmt.Sprintf("Nothing was added yet. Ask the user how to store %q: "+
		"as a summary (the model writes a summary of the paper, which is what gets searched; needs a model and costs one call) "+
		"or as full text (every page searchable and quotable with page numbers, no model needed). "+
		"Then call add_document again with mode=summary or mode=full_text. Use summary without asking only if the user said to use the default.", paper)
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
