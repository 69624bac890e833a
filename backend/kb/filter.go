package kb

import (
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Filter narrows the pool that both retrieval halves score. It is applied in
// SQL before any ranking, so nothing outside it can be scored at all — the
// privacy filter holds by construction, not by a later check.
type Filter struct {
	Visibility     []string          // allowed visibilities; empty means any
	DocTypes       []string          // one or more doc types; empty means any
	AnnotationKind string            // highlight | comment | figure
	Category       string            // record type
	Status         string            // record status
	Entity         string            // record entity
	Fields         map[string]string // x_<key> = value (exact)
	// Contains keeps the rows whose field holds the text, ASCII case
	// aside: an x_<key> field, or category, status or entity.
	Contains map[string]string
	Tags     []string // every tag must be present
	Source   string
	FilePath string
	// Collection keeps the documents filed in the collection at this path
	// ("Lab/Reviews") or in one under it: the "; "-separated paths of the
	// x_collections field (Zotero items), compared without regard to ASCII
	// case.
	Collection string
	// YearFrom and YearTo (inclusive; 0 is open) keep the papers whose
	// x_year lies between them.
	YearFrom, YearTo int
}

// CollectionsField holds the collections a document is filed in (Zotero
// items), their paths joined by CollectionSep.
const (
	CollectionsField = "x_collections"
	CollectionSep    = "; "
	YearField        = "x_year" // a paper's publication year
)

var fieldKey = regexp.MustCompile(`^x_[a-z0-9_]{1,64}$`)

// where renders the filter as a SQL predicate over chunks aliased c.
func (f Filter) where() (string, []any, error) {
	clauses := []string{"1=1"}
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		clauses = append(clauses, col+" IN ("+strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	eq := func(col, val string) {
		if val != "" {
			clauses = append(clauses, col+" = ?")
			args = append(args, val)
		}
	}
	// A filter naming one file is answered through chunks_file. Without the
	// unary plus SQLite prefers chunks_pool for visibility = ? AND doc_type
	// IN (?) — every public note — and a per-note check during indexing
	// then scans the whole pool: indexing a vault turned quadratic.
	pooled := func(col string) string {
		if f.FilePath != "" {
			return "+" + col
		}
		return col
	}
	in(pooled("c.visibility"), f.Visibility)
	in(pooled("c.doc_type"), f.DocTypes)
	eq("c.annotation_kind", f.AnnotationKind)
	eq("c.category", f.Category)
	eq("c.status", f.Status)
	eq("c.entity", f.Entity)
	eq(pooled("c.source"), f.Source)
	eq("c.file_path", f.FilePath)
	for _, k := range slices.Sorted(maps.Keys(f.Fields)) {
		if !fieldKey.MatchString(k) {
			return "", nil, errs.New(errs.Invalid, "kb.Filter", "field filter %q must be an x_<key> name", k)
		}
		clauses = append(clauses, `json_extract(c.extra, '$.`+k+`') = ?`)
		args = append(args, f.Fields[k])
	}
	for _, k := range slices.Sorted(maps.Keys(f.Contains)) {
		col, err := containsColumn(k)
		if err != nil {
			return "", nil, err
		}
		// SQLite's lower() folds ASCII only, as matches does.
		clauses = append(clauses, "instr(lower(COALESCE("+col+", '')), ?) > 0")
		args = append(args, asciiLower(f.Contains[k]))
	}
	for _, t := range f.Tags {
		clauses = append(clauses, "instr(c.tags, ?) > 0")
		args = append(args, "|"+strings.TrimSpace(t)+"|")
	}
	if want := collectionKey(f.Collection); want != "" {
		// SQLite's lower() folds ASCII only, as collectionKey does.
		list := `('` + CollectionSep + `' || lower(json_extract(c.extra, '$.` + CollectionsField + `')) || '` + CollectionSep + `')`
		clauses = append(clauses, "(instr("+list+", ?) > 0 OR instr("+list+", ?) > 0)")
		args = append(args, CollectionSep+want+CollectionSep, CollectionSep+want+"/")
	}
	if f.YearFrom != 0 || f.YearTo != 0 {
		year := `CAST(json_extract(c.extra, '$.` + YearField + `') AS INTEGER)`
		clauses = append(clauses, "json_extract(c.extra, '$."+YearField+"') GLOB '[0-9][0-9][0-9][0-9]'")
		if f.YearFrom != 0 {
			clauses = append(clauses, year+" >= ?")
			args = append(args, f.YearFrom)
		}
		if f.YearTo != 0 {
			clauses = append(clauses, year+" <= ?")
			args = append(args, f.YearTo)
		}
	}
	return strings.Join(clauses, " AND "), args, nil
}

// containsColumns are the record columns a contains filter may name.
var containsColumns = []string{"category", "status", "entity"}

// containsColumn is the SQL expression of a field a contains filter names.
func containsColumn(k string) (string, error) {
	if slices.Contains(containsColumns, k) {
		return "c." + k, nil
	}
	if !fieldKey.MatchString(k) {
		return "", errs.New(errs.Invalid, "kb.Filter", "contains filter %q must be category, status, entity or an x_<key> name", k)
	}
	return `json_extract(c.extra, '$.` + k + `')`, nil
}

// containsValue is the value of a field a contains filter names, in memory.
func (m *rowMeta) containsValue(k string) string {
	switch k {
	case "category":
		return m.category
	case "status":
		return m.status
	case "entity":
		return m.entity
	}
	return m.extra[k]
}

// collectionKey is a collection path as filters compare it: trimmed of
// spaces and slashes, ASCII letters lowered.
func collectionKey(path string) string {
	return asciiLower(strings.Trim(strings.TrimSpace(path), "/"))
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// inCollection is the Collection filter over one x_collections value.
func inCollection(list, want string) bool {
	list = CollectionSep + asciiLower(list) + CollectionSep
	return strings.Contains(list, CollectionSep+want+CollectionSep) || strings.Contains(list, CollectionSep+want+"/")
}

// year is a four-digit x_year as a number, or 0.
func year(v string) int {
	if len(v) != 4 {
		return 0
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// matches is where evaluated in memory over one row; the two must agree
// (a test compares them on generated rows), because the in-memory pool is
// what ranking is confined to.
func (f Filter) matches(m *rowMeta) bool {
	in := func(v string, set []string) bool { return len(set) == 0 || slices.Contains(set, v) }
	eq := func(v, want string) bool { return want == "" || v == want }
	if !in(m.visibility, f.Visibility) || !in(m.docType, f.DocTypes) || !eq(m.annotationKind, f.AnnotationKind) ||
		!eq(m.category, f.Category) || !eq(m.status, f.Status) || !eq(m.entity, f.Entity) ||
		!eq(m.source, f.Source) || !eq(m.filePath, f.FilePath) {
		return false
	}
	for k, v := range f.Fields {
		if got, ok := m.extra[k]; !ok || got != v {
			return false
		}
	}
	for k, v := range f.Contains {
		if !strings.Contains(asciiLower(m.containsValue(k)), asciiLower(v)) {
			return false
		}
	}
	for _, t := range f.Tags {
		if !strings.Contains(m.tags, "|"+strings.TrimSpace(t)+"|") {
			return false
		}
	}
	if want := collectionKey(f.Collection); want != "" {
		if list, ok := m.extra[CollectionsField]; !ok || !inCollection(list, want) {
			return false
		}
	}
	if f.YearFrom != 0 || f.YearTo != 0 {
		y := year(m.extra[YearField])
		if y == 0 || (f.YearFrom != 0 && y < f.YearFrom) || (f.YearTo != 0 && y > f.YearTo) {
			return false
		}
	}
	return true
}
