package kbtools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// DocPageSize is how many chunks one page of a document holds.
const DocPageSize = 15

// FindDocument returns a stored document's chunks in reading order, named
// as a citation names it (a vault note by path, anything else by source),
// or the one not-found answer: for a cloud caller a private document does
// not exist. Nothing is handed to the caller.
func (k *KB) FindDocument(ctx context.Context, c Caller, op, ref string) ([]kb.Chunk, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, errs.New(errs.Invalid, op, "source is empty")
	}
	var chunks []kb.Chunk
	for _, f := range Lookup(ref) {
		var err error
		if chunks, err = k.Store.Document(ctx, c.Scope(f)); err != nil {
			return nil, err
		}
		if len(chunks) > 0 {
			break
		}
	}
	if len(chunks) == 0 {
		return nil, k.notFound(ctx, c, kb.DocRef(ref).Filter(), errs.WithHint(errs.New(errs.NotFound, op, "no document %q", ref), "use the source exactly as a search result cited it, or list_documents"))
	}
	ReadingOrder(chunks)
	return chunks, nil
}

// Lookup is the one order in which a document reference is tried, by
// every surface: as a citation names it (a vault note by path, anything
// else by source), then as a file path (a local PDF or a file:// note as
// the Library keys it), then as a source exactly.
func Lookup(ref string) []kb.Filter {
	return []kb.Filter{kb.DocRef(ref).Filter(), {FilePath: ref}, {Source: ref}}
}

// Find is the listed document ref names, tried in Lookup's order, or the
// one not-found answer (for a cloud caller a private document does not
// exist).
func (k *KB) Find(ctx context.Context, c Caller, op, ref string) (kb.DocumentSummary, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return kb.DocumentSummary{}, errs.New(errs.Invalid, op, "source is empty")
	}
	for _, f := range Lookup(ref) {
		docs, err := k.Store.List(ctx, c.Scope(f), 1)
		if err != nil {
			return kb.DocumentSummary{}, err
		}
		if len(docs) > 0 {
			c.saw(docs[0].Visibility)
			return docs[0], nil
		}
	}
	return kb.DocumentSummary{}, k.notFound(ctx, c, kb.DocRef(ref).Filter(), errs.WithHint(errs.New(errs.NotFound, op, "no document %q", ref), "use list_documents to find the exact source"))
}

// ReadingOrder puts a document's body first, in reading order, then the
// reader's annotations (highlights and notes), then figure captions — the
// store keeps them in the order they were staged, annotations first.
func ReadingOrder(chunks []kb.Chunk) {
	rank := func(c kb.Chunk) int {
		switch c.Meta.AnnotationKind {
		case "":
			return 0
		case ingest.KindFigure:
			return 2
		}
		return 1
	}
	slices.SortStableFunc(chunks, func(a, b kb.Chunk) int { return cmp.Compare(rank(a), rank(b)) })
}

// DocumentPage is one page of a document.
type DocumentPage struct {
	Title  string
	Page   int // from 1
	Pages  int
	Total  int // chunks in the whole document
	Chunks []kb.Chunk
}

// GetDocument hands the caller one page (DocPageSize chunks) of a document.
func (k *KB) GetDocument(ctx context.Context, c Caller, ref string, page int) (DocumentPage, error) {
	const op = "get_document"
	chunks, err := k.FindDocument(ctx, c, op, ref)
	if err != nil {
		return DocumentPage{}, err
	}
	pages := (len(chunks) + DocPageSize - 1) / DocPageSize
	// Even a refusal tells the page count, which is the document's.
	c.saw(chunks[0].Meta.Visibility)
	if page < 1 || page > pages {
		return DocumentPage{}, errs.WithHint(errs.New(errs.Invalid, op, "page %d is out of range", page), fmt.Sprintf("the document has %d page(s)", pages))
	}
	part := chunks[(page-1)*DocPageSize : min(page*DocPageSize, len(chunks))]
	c.hand(part)
	return DocumentPage{Title: chunks[0].Meta.Title, Page: page, Pages: pages, Total: len(chunks), Chunks: part}, nil
}
