package kbtools

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// TimelineItem is one dated appearance of an entity: a record filed under
// it, or a note, paper or past chat that names it.
type TimelineItem struct {
	Date     string // YYYY-MM-DD: a record's own date, else the day the document last changed; "" unknown
	Doc      kb.DocumentSummary
	Record   bool   // filed under the entity (its entity field), not only naming it
	Excerpt  string // for a mention: the passage that names the entity
	Citation Citation
}

// Timeline is everything about an entity (a person, lab, project,
// journal) in date order, oldest first: the records whose entity field is
// it, then every document whose text names it (a wikilink [[Name]]
// included), each once and each cited. The caller's pool bounds both, so a
// cloud caller's timeline is the one a store without private notes gives.
func (k *KB) Timeline(ctx context.Context, c Caller, entity string, limit int) ([]TimelineItem, error) {
	const op = "timeline"
	entity = strings.TrimSpace(entity)
	if entity == "" {
		return nil, errs.New(errs.Invalid, op, "name the entity: a person, lab, project or journal")
	}
	if limit <= 0 || (limit > MaxListed && !c.Person) {
		limit = 50
	}
	records, err := k.Query(ctx, c, kb.Filter{Entity: entity}, kb.ListOptions{Limit: limit, Sort: kb.ByDateAsc})
	if err != nil {
		return nil, err
	}
	var items []TimelineItem
	seen := map[string]bool{}
	for _, d := range records {
		seen[d.Key] = true
		items = append(items, TimelineItem{Date: dayOf(d.EventDate, d.Changed), Doc: d, Record: true,
			Citation: Citation{Source: SummaryCiteName(d), Title: d.Title, FilePath: d.FilePath}})
	}
	found, err := k.Search(ctx, c, SearchArgs{Query: entity, N: MaxResults})
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(entity)
	for _, ch := range found.Chunks {
		m := ch.Meta
		key := cmp.Or(m.FilePath, m.Source)
		// A mention names the entity; a passage that is only similar in
		// meaning is not one.
		if seen[key] || !strings.Contains(strings.ToLower(ch.Content+" "+m.Title), name) {
			continue
		}
		seen[key] = true
		d := kb.DocumentSummary{Key: key, DocType: m.DocType, Visibility: m.Visibility, Source: m.Source, FilePath: m.FilePath, Title: m.Title,
			Authors: m.Authors, DOI: m.DOI, Category: m.Category, Status: m.Status, Entity: m.Entity, EventDate: m.EventDate, Changed: cmp.Or(m.ModifiedAt, m.DateAdded)}
		items = append(items, TimelineItem{Date: dayOf(m.EventDate, d.Changed), Doc: d, Excerpt: ch.Content, Citation: CitationOf(ch)})
	}
	// Oldest first; undated items last, records before mentions.
	slices.SortStableFunc(items, func(a, b TimelineItem) int {
		if (a.Date == "") != (b.Date == "") {
			return cmp.Compare(b.Date, a.Date)
		}
		return cmp.Compare(a.Date, b.Date)
	})
	items = items[:min(len(items), limit)]
	if c.Ledger != nil {
		for _, it := range items {
			c.Ledger.Add(it.Citation)
		}
	}
	return items, nil
}

// dayOf is the date an item is placed at: the record's own date, else the
// day it last changed.
func dayOf(eventDate, changed string) string {
	d := cmp.Or(strings.TrimSpace(eventDate), strings.TrimSpace(changed))
	return d[:min(len(d), len("2006-01-02"))]
}
