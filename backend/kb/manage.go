package kb

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// DocumentSummary is one de-duplicated document in a listing.
type DocumentSummary struct {
	Key        string   `json:"key"` // source for papers, file_path for notes
	DocType    string   `json:"doc_type"`
	Visibility string   `json:"visibility"`
	Source     string   `json:"source"`
	FilePath   string   `json:"file_path,omitempty"`
	Title      string   `json:"title,omitempty"`
	Authors    string   `json:"authors,omitempty"`
	DOI        string   `json:"doi,omitempty"`
	Category   string   `json:"category,omitempty"`
	Status     string   `json:"status,omitempty"`
	Entity     string   `json:"entity,omitempty"`
	EventDate  string   `json:"event_date,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Changed    string   `json:"changed,omitempty"` // last edited or added, RFC 3339 UTC to the second
	Chunks     int      `json:"chunks"`
	// Year is a paper's publication year (x_year), Added when it first
	// entered the knowledge base (RFC 3339), Annotations how many of its
	// chunks are the reader's highlights and notes.
	Year        string `json:"year,omitempty"`
	Added       string `json:"added,omitempty"`
	Annotations int    `json:"annotations,omitempty"`
	// ItemType is a Zotero item's type (journalArticle, book …, its
	// x_item_type), so a listing can show and sort by kind; "" for the rest.
	ItemType string `json:"item_type,omitempty"`
}

// List returns documents (not chunks) inside the filter, newest added
// first. Vault notes share source "local", so a document is keyed by
// file_path when it has one and by source otherwise.
func (s *Store) List(ctx context.Context, f Filter, limit int) ([]DocumentSummary, error) {
	return s.ListWith(ctx, f, ListOptions{Limit: limit})
}

// Listing orders.
const (
	ByAdded    = ""          // newest added first
	ByDateDesc = "date_desc" // a record's date (frontmatter date), newest first
	ByDateAsc  = "date_asc"
	ByChanged  = "changed" // last changed (edited, or added), newest first
)

// Sorts are the listing orders by name.
var Sorts = []string{"added", ByDateDesc, ByDateAsc, ByChanged}

// ListOptions shape a listing beyond its filter.
type ListOptions struct {
	Limit int    // 0: 1000
	Sort  string // one of the By constants ("added" is ByAdded)
	// DateFrom and DateTo bound a record's date, inclusive; a prefix such
	// as "2026-03" bounds by month (dates are compared as written,
	// YYYY-MM-DD). A bound excludes documents without a date.
	DateFrom, DateTo string
	// ChangedSince keeps documents edited or added at or after this
	// RFC 3339 time (compared to the second).
	ChangedSince string
	// Title keeps documents whose title or key contains it, case folded as
	// Go folds it (so "über" finds "Über"). A listing option, not a
	// filter: search pools have no titles in memory.
	Title string
	// Annotated keeps documents with at least one highlight or note.
	Annotated bool
	// Field, when set, is the frontmatter field (x_<key>, such as
	// x_deadline) that the date sorts and DateFrom/DateTo apply to instead
	// of the record's date. Values compare as written (YYYY-MM-DD sorts).
	Field string
}

// fieldName is what a listing's Field may be: an x_ key of letters,
// digits and underscores (it is written into the query).
var fieldName = regexp.MustCompile(`^x_[a-z0-9_]+$`)

// annotationsExpr counts a grouped document's highlights and notes (its
// annotation chunks other than figure captions).
const annotationsExpr = `SUM(c.annotation_kind != '' AND c.annotation_kind != 'figure')`

// changedExpr is when a grouped document last changed: its newest edit or
// addition, to the second (stored times mix RFC 3339 with and without
// fractions, which would not compare as text).
const changedExpr = `substr(MAX(CASE WHEN c.modified_at > c.date_added THEN c.modified_at ELSE c.date_added END), 1, 19)`

// ListWith is List with a sort, a record-date range and a changed-since bound.
func (s *Store) ListWith(ctx context.Context, f Filter, o ListOptions) ([]DocumentSummary, error) {
	const op = "kb.List"
	where, args, err := f.where()
	if err != nil {
		return nil, err
	}
	if o.Limit <= 0 {
		o.Limit = 1000
	}
	dated := "MAX(c.event_date)"
	if o.Field != "" {
		if !fieldName.MatchString(o.Field) {
			return nil, errs.WithHint(errs.New(errs.Invalid, op, "bad field %q", o.Field), "name a frontmatter field as x_<key>, e.g. x_deadline")
		}
		dated = "COALESCE(MAX(json_extract(c.extra, '$." + o.Field + "')), '')"
	}
	var having []string
	if o.DateFrom != "" {
		having = append(having, dated+" != '' AND substr("+dated+", 1, ?) >= ?")
		args = append(args, len(o.DateFrom), o.DateFrom)
	}
	if o.DateTo != "" {
		having = append(having, dated+" != '' AND substr("+dated+", 1, ?) <= ?")
		args = append(args, len(o.DateTo), o.DateTo)
	}
	if o.ChangedSince != "" {
		t, err := time.Parse(time.RFC3339, o.ChangedSince)
		if err != nil {
			return nil, errs.WithHint(errs.New(errs.Invalid, op, "bad time %q", o.ChangedSince), "give an RFC 3339 time such as 2026-03-01T00:00:00Z")
		}
		having = append(having, changedExpr+" >= ?")
		args = append(args, t.UTC().Format("2006-01-02T15:04:05"))
	}
	if t := strings.TrimSpace(o.Title); t != "" {
		having = append(having, "instr("+foldFunc+"(MAX(c.title) || ' ' || k), ?) > 0")
		args = append(args, strings.ToLower(t))
	}
	if o.Annotated {
		having = append(having, annotationsExpr+" > 0")
	}
	order := "MAX(c.date_added) DESC, k"
	switch o.Sort {
	case ByAdded, "added":
	case ByDateDesc:
		order = dated + " = '', " + dated + " DESC, k"
	case ByDateAsc:
		order = dated + " = '', " + dated + " ASC, k"
	case ByChanged:
		order = changedExpr + " DESC, k"
	default:
		return nil, errs.WithHint(errs.New(errs.Invalid, op, "unknown sort %q", o.Sort), "use one of "+strings.Join(Sorts, ", "))
	}
	q := `SELECT CASE WHEN c.file_path != '' THEN c.file_path ELSE c.source END AS k,
		MIN(c.doc_type), MIN(c.visibility), MIN(c.source), MIN(c.file_path), MAX(c.title), MAX(c.authors), MAX(c.doi),
		MAX(c.category), MAX(c.status), MAX(c.entity), MAX(c.event_date), MAX(c.tags), ` + changedExpr + `, COUNT(*),
		COALESCE(MAX(json_extract(c.extra, '$.` + YearField + `')), ''), MIN(c.date_added), ` + annotationsExpr + `,
		COALESCE(MAX(json_extract(c.extra, '$.` + ItemTypeField + `')), '')
		FROM chunks c WHERE ` + where + ` GROUP BY k`
	if len(having) > 0 {
		q += " HAVING " + strings.Join(having, " AND ")
	}
	q += " ORDER BY " + order + " LIMIT ?"
	rows, err := s.db.QueryContext(ctx, q, append(args, o.Limit)...)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	var out []DocumentSummary
	for rows.Next() {
		var d DocumentSummary
		var tags, changed string
		if err := rows.Scan(&d.Key, &d.DocType, &d.Visibility, &d.Source, &d.FilePath, &d.Title, &d.Authors, &d.DOI,
			&d.Category, &d.Status, &d.Entity, &d.EventDate, &tags, &changed, &d.Chunks, &d.Year, &d.Added, &d.Annotations, &d.ItemType); err != nil {
			return nil, errs.Wrap(errs.RAG, op, err)
		}
		d.Tags = DecodeTags(tags)
		if changed != "" {
			d.Changed = changed + "Z"
		}
		out = append(out, d)
	}
	return out, errs.Wrap(errs.RAG, op, rows.Err())
}

// Counts is the store at a glance.
type Counts struct {
	Chunks    int            `json:"chunks"`
	Documents int            `json:"documents"`
	ByType    map[string]int `json:"by_type"`    // chunks per doc_type
	Private   int            `json:"private"`    // private chunks
	Legacy    int            `json:"legacy"`     // private papers/digests: breaks the papers-are-public invariant
	Records   map[string]int `json:"categories"` // chunks per record category
	Statuses  map[string]int `json:"statuses"`
	// Collections and ItemTypes count documents (Zotero items) per
	// collection path they are filed in and per item type.
	Collections map[string]int `json:"collections,omitempty"`
	ItemTypes   map[string]int `json:"item_types,omitempty"`
}

// ItemTypeField holds a Zotero item's type (journalArticle, book ...).
const ItemTypeField = "x_item_type"

// Count gathers Counts over the whole store.
func (s *Store) Count(ctx context.Context) (Counts, error) { return s.CountWhere(ctx, Filter{}) }

// CountWhere gathers Counts over the chunks inside f, so a caller that may
// see only public chunks gets figures (record types and statuses included)
// that nothing private contributed to.
func (s *Store) CountWhere(ctx context.Context, f Filter) (Counts, error) {
	const op = "kb.Count"
	c := Counts{ByType: map[string]int{}, Records: map[string]int{}, Statuses: map[string]int{}}
	where, args, err := f.where()
	if err != nil {
		return c, err
	}
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT CASE WHEN file_path != '' THEN file_path ELSE source END),
		SUM(visibility='private'), SUM(visibility='private' AND doc_type IN ('paper','digest') AND source NOT LIKE '`+ZoteroScheme+`%') FROM chunks AS c WHERE `+where, args...).
		Scan(&c.Chunks, &c.Documents, nullInt(&c.Private), nullInt(&c.Legacy))
	if err != nil {
		return c, errs.Wrap(errs.RAG, op, err)
	}
	for col, m := range map[string]map[string]int{"doc_type": c.ByType, "category": c.Records, "status": c.Statuses} {
		rows, err := s.db.QueryContext(ctx, `SELECT `+col+`, COUNT(*) FROM chunks AS c WHERE `+col+` != '' AND `+where+` GROUP BY `+col, args...)
		if err != nil {
			return c, errs.Wrap(errs.RAG, op, err)
		}
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return c, errs.Wrap(errs.RAG, op, err)
			}
			m[k] = n
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return c, errs.Wrap(errs.RAG, op, err)
		}
	}
	return c, s.countCollections(ctx, &c, where, args)
}

// countCollections fills Counts.Collections and ItemTypes: one count per
// document, however many chunks it has.
func (s *Store) countCollections(ctx context.Context, c *Counts, where string, args []any) error {
	const op = "kb.Count"
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT c.source, COALESCE(json_extract(c.extra, '$.`+CollectionsField+`'), ''),
		COALESCE(json_extract(c.extra, '$.`+ItemTypeField+`'), '') FROM chunks AS c
		WHERE (json_extract(c.extra, '$.`+CollectionsField+`') IS NOT NULL OR json_extract(c.extra, '$.`+ItemTypeField+`') IS NOT NULL) AND `+where, args...)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	c.Collections, c.ItemTypes = map[string]int{}, map[string]int{}
	seen := map[string]bool{}
	for rows.Next() {
		var source, cols, typ string
		if err := rows.Scan(&source, &cols, &typ); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
		if seen[source] {
			continue // a document's chunks all carry its fields
		}
		seen[source] = true
		for _, col := range strings.Split(cols, CollectionSep) {
			if col != "" {
				c.Collections[col]++
			}
		}
		if typ != "" {
			c.ItemTypes[typ]++
		}
	}
	return errs.Wrap(errs.RAG, op, rows.Err())
}

type nullIntScanner struct{ dst *int }

func (n nullIntScanner) Scan(v any) error {
	if x, ok := v.(int64); ok {
		*n.dst = int(x)
	}
	return nil
}

func nullInt(dst *int) nullIntScanner { return nullIntScanner{dst} }

// KeyCounts reports how many chunks carry each metadata key (x_ keys
// included), so a typo such as "stauts" shows up as its own key.
func (s *Store) KeyCounts(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, col := range metadataColumns {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM chunks WHERE `+col+` != ''`).Scan(&n); err != nil {
			return nil, errs.Wrap(errs.RAG, "kb.KeyCounts", err)
		}
		if n > 0 {
			out[col] = n
		}
	}
	extra, err := s.countRows(ctx, "kb.KeyCounts", `SELECT j.key, COUNT(*) FROM chunks, json_each(chunks.extra) j GROUP BY j.key`)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, extra)
	return out, nil
}

// ValueCounts lists the distinct values of one key with chunk counts.
func (s *Store) ValueCounts(ctx context.Context, key string) (map[string]int, error) {
	expr, err := columnExpr(key)
	if err != nil {
		return nil, err
	}
	return s.countRows(ctx, "kb.ValueCounts", `SELECT `+expr+` AS v, COUNT(*) FROM chunks c WHERE v IS NOT NULL AND v != '' GROUP BY v`)
}

// countRows runs query, whose rows are (name, count) pairs, and maps each
// name to its count; op names the caller in errors.
func (s *Store) countRows(ctx context.Context, op, query string) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, errs.Wrap(errs.RAG, op, err)
		}
		out[name] = n
	}
	return out, errs.Wrap(errs.RAG, op, rows.Err())
}

// columnExpr maps a user-facing key to a safe SQL expression.
func columnExpr(key string) (string, error) {
	for _, c := range metadataColumns {
		if c == key {
			return "c." + c, nil
		}
	}
	if fieldKey.MatchString(key) {
		return `json_extract(c.extra, '$.` + key + `')`, nil
	}
	return "", errs.New(errs.Invalid, "kb", "unknown metadata key %q (known: %s, or x_<key>)", key, strings.Join(metadataColumns, ", "))
}

// Fields that UpdateFields may change without re-embedding.
var updatable = map[string]bool{"title": true, "authors": true, "doi": true, "visibility": true, "file_path": true,
	"source": true, "meta_schema": true, "modified_at": true, "content_hash": true, "category": true, "status": true,
	"entity": true, "event_date": true, "tags": true, "track": true}

// UpdateFields changes metadata of every chunk matching the filter without
// touching content or vectors. Papers stay public whatever is asked.
func (s *Store) UpdateFields(ctx context.Context, f Filter, fields map[string]any) (int, error) {
	return s.updateFields(ctx, f, nil, fields)
}

// UpdateFieldsIf is UpdateFields on the chunks that still hold same: a
// refresh that found a note's bytes unchanged restamps them only if no
// other process stored another version since it read the store's state
// (0 updated: index the note afresh).
func (s *Store) UpdateFieldsIf(ctx context.Context, f Filter, same Stored, fields map[string]any) (int, error) {
	if same.ContentHash == "" {
		return 0, errs.New(errs.Invalid, "kb.UpdateFields", "name the content hash the chunks must hold")
	}
	return s.updateFields(ctx, f, &same, fields)
}

func (s *Store) updateFields(ctx context.Context, f Filter, same *Stored, fields map[string]any) (int, error) {
	if len(fields) == 0 {
		return 0, errs.New(errs.Invalid, "kb.UpdateFields", "nothing to update")
	}
	where, args, err := f.where()
	if err != nil {
		return 0, err
	}
	if where == "1=1" {
		return 0, errs.New(errs.Invalid, "kb.UpdateFields", "refusing to update every chunk: give a filter")
	}
	var sets []string
	var vals []any
	keys := slices.Sorted(maps.Keys(fields))
	for _, k := range keys {
		if !updatable[k] {
			return 0, errs.New(errs.Invalid, "kb.UpdateFields", "%s cannot be updated in place", k)
		}
		if k == "visibility" && fields[k] != Public && fields[k] != Private {
			return 0, errs.New(errs.Invalid, "kb.UpdateFields", "visibility must be public or private")
		}
		sets = append(sets, k+" = ?")
		vals = append(vals, fields[k])
	}
	guard := ""
	if v, ok := fields["visibility"]; ok && v == Private {
		guard = " AND c.doc_type NOT IN ('paper','digest')"
	}
	if same != nil {
		cond, cargs := same.predicate()
		guard += " AND " + cond
		args = append(args, cargs...)
	}
	relex := fields["title"] != nil || fields["tags"] != nil // both feed the lexical metadata field
	var n int
	var learned map[string]int64
	err = s.writeTx(ctx, "kb.UpdateFields", func(tx *sql.Tx) error {
		gen, err := bumpGeneration(ctx, tx)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE chunks AS c SET `+strings.Join(sets, ", ")+`, rev = ? WHERE `+where+guard,
			append(append(vals, gen), args...)...)
		if err != nil {
			return err
		}
		affected, err := res.RowsAffected()
		if err != nil {
			return err
		}
		n = int(affected)
		if relex && n > 0 {
			learned, err = s.relex(ctx, tx, gen)
		}
		return err
	})
	if err == nil {
		s.terms.merge(learned)
	}
	return n, err
}

// relex re-analyses the rows written in generation gen (their title or
// tags changed, or a migration rebuilds the lexical index) and stores their
// new lexical entries, a page at a time.
func (s *Store) relex(ctx context.Context, tx *sql.Tx, gen int64) (map[string]int64, error) {
	learned := map[string]int64{}
	var after int64
	for {
		rows, err := tx.QueryContext(ctx, `SELECT `+selectCols+` FROM chunks WHERE rev = ? AND id > ? ORDER BY id LIMIT 1000`, gen, after)
		if err != nil {
			return nil, err
		}
		var chunks []Chunk
		for rows.Next() {
			c, err := scanChunk(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			chunks = append(chunks, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(chunks) == 0 {
			return learned, err
		}
		lex := make([][]byte, len(chunks))
		if err := s.encodeLex(ctx, tx, chunks, lex, learned); err != nil {
			return nil, err
		}
		for i, c := range chunks {
			if _, err := tx.ExecContext(ctx, `UPDATE chunks SET lex = ? WHERE id = ?`, lex[i], c.ID); err != nil {
				return nil, err
			}
		}
		after = chunks[len(chunks)-1].ID
	}
}

// execCounted runs one statement in a write transaction that bumps the
// generation first (so deletions are logged under it), returning the rows
// affected.
func (s *Store) execCounted(ctx context.Context, op, query string, args ...any) (int, error) {
	var n int64
	err := s.writeTx(ctx, op, func(tx *sql.Tx) error {
		if _, err := bumpGeneration(ctx, tx); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// SetPaperMeta corrects a paper's title, authors or DOI (empty = unchanged).
func (s *Store) SetPaperMeta(ctx context.Context, source, title, authors, doi string) (int, error) {
	fields := map[string]any{}
	for k, v := range map[string]string{"title": title, "authors": authors, "doi": doi} {
		if v != "" {
			fields[k] = v
		}
	}
	n, err := s.UpdateFields(ctx, Filter{Source: source, DocTypes: []string{DocPaper}}, fields)
	if err == nil && n == 0 {
		return 0, errs.New(errs.NotFound, "kb.SetPaperMeta", "no paper with source %s", source)
	}
	return n, err
}

var nonWord = regexp.MustCompile(`[^\p{L}\p{N}]+`)

// NormaliseTitle folds case, punctuation and spacing so "A Study: of X" and
// "a study of x" compare equal.
func NormaliseTitle(t string) string {
	return strings.TrimSpace(nonWord.ReplaceAllString(strings.Map(unicode.ToLower, t), " "))
}

// Duplicate says why an incoming document matches a stored one.
type Duplicate struct {
	Reason string          `json:"reason"` // "source" or "title"
	Doc    DocumentSummary `json:"doc"`
}

// FindDuplicates reports stored documents with the same source or the same
// normalised title.
func (s *Store) FindDuplicates(ctx context.Context, source, title string) ([]Duplicate, error) {
	var out []Duplicate
	if source != "" {
		docs, err := s.List(ctx, Filter{Source: source}, 10)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			out = append(out, Duplicate{Reason: "source", Doc: d})
		}
	}
	if norm := NormaliseTitle(title); norm != "" {
		docs, err := s.List(ctx, Filter{}, 100000)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if d.Source != source && NormaliseTitle(d.Title) == norm {
				out = append(out, Duplicate{Reason: "title", Doc: d})
			}
		}
	}
	return out, nil
}

// String renders a document for CLI listings.
func (d DocumentSummary) String() string {
	name := d.Title
	if name == "" {
		name = d.Key
	}
	return fmt.Sprintf("[%s/%s] %s (%d chunks) %s", d.DocType, d.Visibility, name, d.Chunks, d.Key)
}

// NoteState is what the vault refresh needs to know about an indexed note.
type NoteState struct {
	ContentHash string
	ModifiedAt  string
	Visibility  string
	MetaSchema  int
}

// NoteStates returns the indexed state of every vault note, by file_path.
// Notes added from outside the vault (source file://...) are not vault
// notes: a vault sync must never delete them.
func (s *Store) NoteStates(ctx context.Context) (map[string]NoteState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT file_path, MAX(content_hash), MAX(modified_at), MAX(visibility), MIN(meta_schema)
		FROM chunks WHERE doc_type = 'note' AND source = ? AND file_path != '' GROUP BY file_path`, SourceVault)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, "kb.NoteStates", err)
	}
	defer rows.Close()
	out := map[string]NoteState{}
	for rows.Next() {
		var path string
		var st NoteState
		if err := rows.Scan(&path, &st.ContentHash, &st.ModifiedAt, &st.Visibility, &st.MetaSchema); err != nil {
			return nil, errs.Wrap(errs.RAG, "kb.NoteStates", err)
		}
		out[path] = st
	}
	return out, errs.Wrap(errs.RAG, "kb.NoteStates", rows.Err())
}

// SourceHashes returns the content hash of every document whose source
// starts with prefix (one per source), for syncs that re-read only what
// changed (the Zotero library's items).
func (s *Store) SourceHashes(ctx context.Context, prefix string) (map[string]string, error) {
	const op = "kb.SourceHashes"
	if prefix == "" {
		return nil, errs.New(errs.Invalid, op, "name a source prefix")
	}
	// A range on source, not LIKE: the prefix may hold % or _.
	rows, err := s.db.QueryContext(ctx, `SELECT source, MAX(content_hash) FROM chunks WHERE source >= ? AND source < ? GROUP BY source`,
		prefix, prefix+"\U0010FFFF")
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var src, hash string
		if err := rows.Scan(&src, &hash); err != nil {
			return nil, errs.Wrap(errs.RAG, op, err)
		}
		out[src] = hash
	}
	return out, errs.Wrap(errs.RAG, op, rows.Err())
}

// Document returns every chunk inside f in reading order (chunk_index, then
// id), for paging through one document.
func (s *Store) Document(ctx context.Context, f Filter) ([]Chunk, error) {
	const op = "kb.Document"
	where, args, err := f.where()
	if err != nil {
		return nil, err
	}
	if where == "1=1" {
		return nil, errs.New(errs.Invalid, op, "name a document (source or file path)")
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+selectCols+` FROM chunks AS c WHERE `+where+` ORDER BY chunk_index, id`, args...)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, errs.Wrap(errs.RAG, op, err)
		}
		out = append(out, c)
	}
	return out, errs.Wrap(errs.RAG, op, rows.Err())
}

// PublicCopiesOfPrivate lists the public documents that are not the
// vault's own notes yet hold a private file's text: their file lies under
// one of dirs (absolute folder paths, such as the vault's private
// folders), or their bytes are those of a private vault note (an image
// added with kb add, then moved into a private folder).
func (s *Store) PublicCopiesOfPrivate(ctx context.Context, dirs []string) ([]DocumentSummary, error) {
	const op = "kb.PublicCopiesOfPrivate"
	var under []string
	var args []any
	for _, d := range dirs {
		d = strings.TrimRight(filepath.Clean(d), string(filepath.Separator))
		// A range on the indexed file_path: d/ up to d0 ('0' follows '/').
		under = append(under, "(c.file_path >= ? AND c.file_path < ?)")
		args = append(args, d+string(filepath.Separator), d+string(rune(filepath.Separator+1)))
	}
	cond := `c.content_hash IN (SELECT content_hash FROM chunks WHERE source = ? AND visibility = ? AND content_hash != '')`
	args = append([]any{SourceVault, Private}, args...)
	if len(under) > 0 {
		cond = "(" + cond + " OR " + strings.Join(under, " OR ") + ")"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT c.source, c.file_path, c.title FROM chunks c
		WHERE c.visibility = ? AND c.source != ? AND c.file_path != '' AND `+cond, append([]any{Public, SourceVault}, args...)...)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	var out []DocumentSummary
	for rows.Next() {
		d := DocumentSummary{Visibility: Public}
		if err := rows.Scan(&d.Source, &d.FilePath, &d.Title); err != nil {
			return nil, errs.Wrap(errs.RAG, op, err)
		}
		d.Key = d.FilePath
		out = append(out, d)
	}
	return out, errs.Wrap(errs.RAG, op, rows.Err())
}
