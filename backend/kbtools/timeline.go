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
	"github.com/jarvis-kb/jarvis/backend/vault"
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
// included), each once and each cited. An entity with a note of its own
// (people/Tanaka.md, aliases: [Dr. Tanaka, 田中]) is found by any of its
// names, asked for by any of them. The caller's pool bounds both, so a
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
	names := k.names(ctx, c, entity)
	var records []kb.DocumentSummary
	for _, name := range names {
		rs, err := k.Store.ListWith(ctx, c.Scope(kb.Filter{Entity: name}), kb.ListOptions{Limit: limit, Sort: kb.ByDateAsc})
		if err != nil {
			return nil, err
		}
		records = append(records, rs...)
	}
	var items []TimelineItem
	seen := map[string]bool{}
	for _, d := range records {
		if seen[d.Key] {
			continue
		}
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
	var chunks []kb.Chunk
	var unscoped []kb.Hit
	for _, name := range names {
		found, all, err := k.search(ctx, c, SearchArgs{Query: name, N: n})
		if err != nil {
			return nil, err
		}
		chunks, unscoped = append(chunks, found.Chunks...), append(unscoped, all...)
	}
	for _, ch := range chunks {
		m := ch.Meta
		key := cmp.Or(m.FilePath, m.Source)
		// A mention names the entity; a passage only similar in meaning,
		// or one where the name is part of another word, is not one.
		name := namedIn(ch.Content+"\n"+m.Title, names)
		if seen[key] || name == "" {
			continue
		}
		seen[key] = true
		d := kb.DocumentSummary{Key: key, DocType: m.DocType, Visibility: m.Visibility, Source: m.Source, FilePath: m.FilePath, Title: m.Title,
			Authors: m.Authors, DOI: m.DOI, Category: m.Category, Status: m.Status, Entity: m.Entity, EventDate: m.EventDate, Changed: cmp.Or(m.ModifiedAt, m.DateAdded)}
		items = append(items, TimelineItem{Date: dayOf(m.EventDate, d.Changed), Doc: d, Excerpt: analysis.Plain(analysis.Excerpt(ch.Content, name, TimelineExcerptChars)), Citation: CitationOf(ch)})
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
		c.withheld(k.privateAbout(ctx, names, unscoped))
	}
	return items, nil
}

// privateAbout counts, for the user, the private records filed under an
// entity and the private passages that name it: what a cloud caller's
// timeline kept back.
func (k *KB) privateAbout(ctx context.Context, names []string, hits []kb.Hit) int {
	counted := map[string]bool{}
	for _, name := range names {
		records, err := k.Store.List(ctx, kb.Filter{Entity: name, Visibility: []string{kb.Private}}, MaxListed)
		if err != nil {
			return 0 // a count for the user's display only; the timeline stands
		}
		for _, d := range records {
			counted[d.Key] = true
		}
	}
	n := len(counted)
	passages := map[int64]bool{}
	for _, h := range hits {
		m := h.Chunk.Meta
		if m.Visibility == kb.Private && !slices.Contains(names, m.Entity) && !passages[h.Chunk.ID] && namedIn(h.Chunk.Content+"\n"+m.Title, names) != "" {
			passages[h.Chunk.ID] = true
			n++
		}
	}
	return n
}

// names is the entity and its other names. When a vault note the caller
// may see is the entity's own (titled with the name, or listing it among
// its frontmatter aliases), its title and its aliases name the entity too;
// what the caller may not see adds no name.
func (k *KB) names(ctx context.Context, c Caller, entity string) []string {
	names := []string{entity}
	add := func(name string) {
		if name = strings.TrimSpace(name); name != "" && !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, name) }) {
			names = append(names, name)
		}
	}
	if k.VaultRoot == "" {
		return names
	}
	found, _, err := k.search(ctx, c, SearchArgs{Query: entity, N: aliasCandidates, Filter: kb.Filter{DocTypes: []string{kb.DocNote}}})
	if err != nil {
		return names // the timeline under the name asked for still stands
	}
	checked := map[string]bool{}
	for _, ch := range found.Chunks {
		m := ch.Meta
		if m.Source != kb.SourceVault || checked[m.FilePath] {
			continue
		}
		checked[m.FilePath] = true
		n, err := k.ReadNote(ctx, c, "timeline", m.FilePath)
		if err != nil {
			continue
		}
		block, _, ok := vault.SplitFrontmatter(n.Text)
		if !ok {
			continue
		}
		rec, _ := vault.ParseRecord(block)
		own := strings.EqualFold(strings.TrimSpace(m.Title), entity) && len(rec.Aliases) > 0 ||
			slices.ContainsFunc(rec.Aliases, func(a string) bool { return strings.EqualFold(strings.TrimSpace(a), entity) })
		if !own {
			continue
		}
		add(m.Title)
		for _, a := range rec.Aliases {
			add(a)
		}
	}
	return names
}

// aliasCandidates is how many notes that mention a name are looked at for
// the one that is the entity's own.
const aliasCandidates = 10

// namedIn is the first of names that text names as a whole word, or "".
func namedIn(text string, names []string) string {
	for _, name := range names {
		if nameAt(text, name) >= 0 {
			return name
		}
	}
	return ""
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
