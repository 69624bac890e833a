package kbtools

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// Papers are what adding a paper needs beyond the store: the paper
// servers and how papers are read.
type Papers struct {
	Arxiv   *digest.Arxiv
	Biorxiv *digest.Biorxiv // nil: bioRxiv DOIs cannot be added
	Options ingest.Options  // chunking and figure limits; Model is set per call
}

// AddArgs is one paper to add.
type AddArgs struct {
	Source string // an arXiv URL or id, a DOI, or the absolute path of a PDF
	// Mode is ingest.Summary or ingest.FullText; empty means the human
	// has not chosen yet, and nothing is added until they have.
	Mode                string
	Title, Authors, DOI string // overrides
	WithFigures         bool
	AllowDuplicate      bool         // the human agreed to add a look-alike again
	Model               ingest.Model // the caller's own model, for summaries and captions (nil: none)
	Status              func(string) // what a long add is doing now (nil: nobody follows)
}

// Added is an add's outcome: a question for the human (nothing was added),
// or what was added.
type Added struct {
	Question string // non-empty: nothing was added; ask the human this
	Why      string // why it asks: AskedDuplicate or AskedMode
	Result   ingest.Result
	Mode     string
}

// Why an add asks the human instead of adding.
const (
	AskedDuplicate = "duplicate" // the paper looks like one already stored
	AskedMode      = "mode"      // summary or full text was not chosen
)

// AddPaper adds a paper, always public, as the human chose: from arXiv or
// bioRxiv, or a local PDF. Without a mode, or when the paper looks like
// one already stored (same source or title, that the caller may see), it
// adds nothing and returns the question to put to the human. A same-source
// re-add replaces the old entry in the same commit.
func (k *KB) AddPaper(ctx context.Context, c Caller, p *Papers, a AddArgs) (Added, error) {
	const op = "add_document"
	src := strings.TrimSpace(a.Source)
	if src == "" {
		return Added{}, errs.New(errs.Invalid, op, "source is empty")
	}
	switch a.Mode {
	case ingest.Summary, ingest.FullText, "":
	default:
		return Added{}, errs.New(errs.Invalid, op, "unknown mode %q: use summary or full_text", a.Mode)
	}
	paper := ingest.Paper{Mode: a.Mode, Title: a.Title, Authors: a.Authors, DOI: a.DOI}
	if paper.Title+paper.Authors+paper.DOI != "" {
		// A paper is public: words chosen by a caller that has read
		// private notes must not become its title, authors or DOI.
		if err := c.NoWriteDown(op, kb.Public); err != nil {
			return Added{}, err
		}
	}
	if a.WithFigures {
		yes := true
		paper.Figures = &yes
	}
	status := a.Status
	if status == nil {
		status = func(string) {}
	}
	opts := p.Options
	opts.Model = a.Model

	// An absolute path is a local file even when its name looks like an id.
	ref, remote, err := ingest.ParseRemote(src)
	if filepath.IsAbs(src) {
		remote, err = false, nil
	}
	if err != nil {
		return Added{}, err
	}
	var res ingest.Result
	if remote {
		server := &ingest.Remote{Arxiv: p.Arxiv, Biorxiv: p.Biorxiv}
		status("looking up " + src)
		rp, err := server.Lookup(ctx, ref)
		if err != nil {
			return Added{}, err
		}
		paper.Source = rp.Source
		title := cmp.Or(paper.Title, rp.Title)
		if q, err := k.duplicateQuestion(ctx, c, rp.Source, title, a.AllowDuplicate); err != nil || q != "" {
			return Added{Question: q, Why: AskedDuplicate}, err
		}
		if a.Mode == "" {
			return Added{Question: modeQuestion(title), Why: AskedMode}, nil
		}
		dir, err := os.MkdirTemp("", "jarvis-add-")
		if err != nil {
			return Added{}, errs.Wrap(errs.Internal, op, err)
		}
		defer os.RemoveAll(dir)
		pdfPath := ""
		if rp.HasPDF {
			status(fmt.Sprintf("downloading the PDF of %q", title))
			if pdfPath, err = server.Download(ctx, rp, dir); err != nil {
				return Added{}, err
			}
		}
		status(fmt.Sprintf("reading and indexing %q", title))
		if res, err = ingest.BuildRemote(ctx, rp, pdfPath, paper, opts); err != nil {
			return Added{}, err
		}
	} else {
		if !filepath.IsAbs(src) || !strings.EqualFold(filepath.Ext(src), ".pdf") {
			return Added{}, errs.WithHint(errs.New(errs.Invalid, op, "%q is neither an arXiv paper, a DOI nor an absolute path to a PDF", src),
				"give an arXiv URL or id, a DOI, or the full path of a local .pdf file")
		}
		noPDF := errs.WithHint(errs.New(errs.NotFound, op, "no PDF at %s", src), "give the full path of an existing .pdf file, or an arXiv URL or id")
		// Papers are public: a PDF kept in a private vault folder (or reached
		// through a link into one), or the file of a private Zotero item,
		// must not become one because a model, or a document it read, asked.
		// A cloud caller gets the answer a missing file gets.
		private, err := ingest.PrivateFile(ctx, k.Store, k.VaultRoot, k.PrivateDirs, src)
		if err != nil {
			return Added{}, err
		}
		if private {
			if c.Cloud {
				c.withheld(1)
				return Added{}, noPDF
			}
			return Added{}, errs.New(errs.Privacy, op, "%s is private (in a private vault folder, or the file of a private Zotero item); it cannot be added as a public paper", filepath.Base(src))
		}
		if st, err := os.Stat(src); err != nil || !st.Mode().IsRegular() {
			return Added{}, noPDF
		}
		if a.Mode == "" {
			return Added{Question: modeQuestion(filepath.Base(src)), Why: AskedMode}, nil
		}
		paper.Path = src
		status("reading and indexing " + filepath.Base(src))
		if res, err = ingest.BuildPaper(ctx, paper, opts); err != nil {
			return Added{}, err
		}
		// A local PDF: check now that the title is known.
		if q, err := k.duplicateQuestion(ctx, c, res.Source, res.Title, a.AllowDuplicate); err != nil || q != "" {
			return Added{Question: q, Why: AskedDuplicate}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Added{}, errs.Wrap(errs.Cancelled, op, err)
	}
	// Re-adding a known source replaces it; not knowing whether it is known
	// would risk a duplicate, so a failed lookup fails the add.
	var replace *kb.Filter
	dups, err := k.duplicates(ctx, c, res.Source, "")
	if err != nil {
		return Added{}, err
	}
	if len(dups) > 0 {
		f := c.Scope(kb.Filter{Source: res.Source})
		replace = &f
	}
	if err := k.Store.Ingest(ctx, k.Searcher.Embedder(), res.Chunks, replace); err != nil {
		return Added{}, err
	}
	if c.Ledger != nil {
		c.Ledger.Add(Citation{Source: res.Source, Title: res.Title})
	}
	return Added{Result: res, Mode: a.Mode}, nil
}

// duplicates are the stored documents with the same source or title that
// the caller may see: a cloud caller is never told that a private note
// shares a paper's title.
func (k *KB) duplicates(ctx context.Context, c Caller, source, title string) ([]kb.Duplicate, error) {
	all, err := k.Store.FindDuplicates(ctx, source, title)
	if err != nil {
		return nil, err
	}
	var out []kb.Duplicate
	for _, d := range all {
		if d.Doc.Visibility == kb.Private && c.Cloud {
			continue
		}
		c.saw(d.Doc.Visibility)
		out = append(out, d)
	}
	return out, nil
}

// duplicateQuestion is the question for the human about a look-alike, or
// "" when there is none or they already agreed.
func (k *KB) duplicateQuestion(ctx context.Context, c Caller, source, title string, allowed bool) (string, error) {
	if allowed {
		return "", nil
	}
	dups, err := k.duplicates(ctx, c, source, title)
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

// modeQuestion is the answer when no storage mode was given: the two modes
// differ in cost and in what becomes searchable, so the human decides and
// the model does not guess.
func modeQuestion(paper string) string {
	return fmt.Sprintf("Nothing was added yet. Ask the user how to store %q: "+
		"as a summary (the model writes a summary of the paper, which is what gets searched; needs a model and costs one call) "+
		"or as full text (every page searchable and quotable with page numbers, no model needed). "+
		"Then call add_document again with mode=summary or mode=full_text. Use summary without asking only if the user said to use the default.", paper)
}
