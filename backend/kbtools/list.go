package kbtools

import (
	"context"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
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
// A bound may be written as the notes write dates (March 2026, 10 March
// 2026). Ordered or bounded by another field (o.Field), the field's dates
// are compared as days whatever way each note wrote them (its ISO
// companion, vault.DateField), a value that is no date as undated; a
// field no record in scope has a date in (a number, a name) compares as
// written.
func (k *KB) Query(ctx context.Context, c Caller, f kb.Filter, o kb.ListOptions) ([]kb.DocumentSummary, error) {
	if o.Limit <= 0 || (o.Limit > MaxListed && !c.Person) {
		o.Limit = MaxListed
	}
	o.DateFrom, o.DateTo = dayBound(o.DateFrom), dayBound(o.DateTo)
	if o.Field != "" && !vault.IsDateField(o.Field) && (o.DateFrom != "" || o.DateTo != "" || o.Sort == kb.ByDateAsc || o.Sort == kb.ByDateDesc) {
		if k.hasDates(ctx, c, f, vault.DateField(o.Field)) {
			o.Field = vault.DateField(o.Field)
		}
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

// hasDates reports whether a document in the caller's scope has the
// companion field: a date in the field it is made from. It tells the
// caller nothing itself (nothing is marked seen); a field name the store
// refuses is reported by the query proper, in the caller's terms.
func (k *KB) hasDates(ctx context.Context, c Caller, f kb.Filter, companion string) bool {
	docs, err := k.Store.ListWith(ctx, c.Scope(f), kb.ListOptions{Field: companion, DateFrom: "0", Limit: 1})
	return err == nil && len(docs) > 0
}

// dayBound is a date bound as stored dates are written: "March 2026" is
// 2026-03, "10/03/2026"-style forms only when they read one way; anything
// else (2026, a number) is kept as given.
func dayBound(s string) string {
	s = strings.TrimSpace(s)
	if day, ok := vault.ParseDay(s); ok {
		return day
	}
	return s
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
