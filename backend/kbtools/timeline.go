package kbtools

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jarvis-kb/jarvis/backend/analysis"
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
	// Nothing is handed to the caller until the items are chosen: what it
	// is given, and so cites and becomes private by, is what it sees.
	records, err := k.Store.ListWith(ctx, c.Scope(kb.Filter{Entity: entity}), kb.ListOptions{Limit: limit, Sort: kb.ByDateAsc})
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
	// Mentions: the name by keyword, past the records that use up hits
	// (a model's search stays within MaxResults).
	n := MaxResults
	if c.Person {
		n = max(MaxResults, limit) + len(records)
	}
	found, unscoped, err := k.search(ctx, c, SearchArgs{Query: entity, N: n})
	if err != nil {
		return nil, err
	}
	for _, ch := range found.Chunks {
		m := ch.Meta
		key := cmp.Or(m.FilePath, m.Source)
		// A mention names the entity; a passage only similar in meaning,
		// or one where the name is part of another word, is not one.
		if seen[key] || nameAt(ch.Content+"\n"+m.Title, entity) < 0 {
			continue
		}
		seen[key] = true
		d := kb.DocumentSummary{Key: key, DocType: m.DocType, Visibility: m.Visibility, Source: m.Source, FilePath: m.FilePath, Title: m.Title,
			Authors: m.Authors, DOI: m.DOI, Category: m.Category, Status: m.Status, Entity: m.Entity, EventDate: m.EventDate, Changed: cmp.Or(m.ModifiedAt, m.DateAdded)}
		items = append(items, TimelineItem{Date: dayOf(m.EventDate, d.Changed), Doc: d, Excerpt: analysis.Plain(analysis.Excerpt(ch.Content, entity, TimelineExcerptChars)), Citation: CitationOf(ch)})
	}
	// Oldest first; undated items last, records before mentions.
	slices.SortStableFunc(items, func(a, b TimelineItem) int {
		if (a.Date == "") != (b.Date == "") {
			return cmp.Compare(b.Date, a.Date)
		}
		return cmp.Compare(a.Date, b.Date)
	})
	items = items[:min(len(items), limit)]
	for _, it := range items {
		c.saw(it.Doc.Visibility)
		if c.Ledger != nil {
			c.Ledger.Add(it.Citation)
		}
	}
	if c.Cloud {
		c.withheld(k.privateAbout(ctx, entity, unscoped))
	}
	return items, nil
}

// privateAbout counts, for the user, the private records filed under an
// entity and the private passages that name it: what a cloud caller's
// timeline kept back.
func (k *KB) privateAbout(ctx context.Context, entity string, hits []kb.Hit) int {
	records, err := k.Store.List(ctx, kb.Filter{Entity: entity, Visibility: []string{kb.Private}}, MaxListed)
	if err != nil {
		return 0 // a count for the user's display only; the timeline stands
	}
	n := len(records)
	for _, h := range hits {
		if h.Chunk.Meta.Visibility == kb.Private && h.Chunk.Meta.Entity != entity && nameAt(h.Chunk.Content+"\n"+h.Chunk.Meta.Title, entity) >= 0 {
			n++
		}
	}
	return n
}

// TimelineExcerptChars is about how much of a mention's passage a timeline
// gives, around the name.
const TimelineExcerptChars = 300

// nameAt is the byte offset where text names the entity as a whole word
// (Unicode case folded), or -1.
func nameAt(text, name string) int {
	lower, want := strings.ToLower(text), strings.ToLower(name)
	for from := 0; from < len(lower); {
		i := strings.Index(lower[from:], want)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(lower[:i])
		after, _ := utf8.DecodeRuneInString(lower[i+len(want):])
		if !isWordRune(before) && !isWordRune(after) {
			return i
		}
		from = i + len(want)
	}
	return -1
}

// isWordRune says r would join a name beside it into a longer word.
// Scripts written without spaces (Chinese, Japanese, Thai) join nothing:
// 田中さん names 田中.
func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) &&
		!unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai)
}

// dayOf is the date an item is placed at: the record's own date, else the
// day it last changed.
func dayOf(eventDate, changed string) string {
	d := cmp.Or(strings.TrimSpace(eventDate), strings.TrimSpace(changed))
	return d[:min(len(d), len("2006-01-02"))]
}
