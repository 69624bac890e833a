package kbtools

import (
	"context"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// MaxListed caps one listing by a model, and is the length of a listing
// that asks for none.
const MaxListed = 200

// ListDocuments lists the documents inside the filter the caller may see.
func (k *KB) ListDocuments(ctx context.Context, c Caller, f kb.Filter, limit int) ([]kb.DocumentSummary, error) {
	return k.Query(ctx, c, f, kb.ListOptions{Limit: limit})
}

// Query lists the documents inside the filter the caller may see, sorted
// and bounded by date (records by their date, anything by when it changed).
func (k *KB) Query(ctx context.Context, c Caller, f kb.Filter, o kb.ListOptions) ([]kb.DocumentSummary, error) {
	if o.Limit <= 0 || (o.Limit > MaxListed && !c.Person) {
		o.Limit = MaxListed
	}
	docs, err := k.Store.ListWith(ctx, c.Scope(f), o)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		c.saw(d.Visibility)
	}
	return docs, nil
}

// Stats counts what the caller may see: for a cloud caller public chunks
// only, so no private record type or status is named.
func (k *KB) Stats(ctx context.Context, c Caller) (kb.Counts, error) {
	counts, err := k.Store.CountWhere(ctx, c.Scope(kb.Filter{}))
	if err != nil {
		return kb.Counts{}, err
	}
	if counts.Private > 0 {
		c.saw(kb.Private)
	}
	return counts, nil
}

// FieldKey is the stored key of a frontmatter field a user or a model
// names ("deadline" or "x_deadline" is x_deadline); "" stays "".
func FieldKey(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return ""
	}
	return "x_" + strings.TrimPrefix(name, "x_")
}

// RecordDefaults fills what a records query leaves unset, the same for
// every surface: records are notes, newest record date first. An empty
// Sort is unset here; "added" asks for the order of adding.
func RecordDefaults(a FilterArgs, o kb.ListOptions) (FilterArgs, kb.ListOptions) {
	if a.Kind == "" {
		a.Kind = string(kb.KindNotes)
	}
	if o.Sort == "" {
		o.Sort = kb.ByDateDesc
	}
	return a, o
}
