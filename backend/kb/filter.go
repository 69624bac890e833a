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
	Tags           []string          // every tag must be present
	Source         string
	FilePath       string
}

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
	in("c.visibility", f.Visibility)
	in("c.doc_type", f.DocTypes)
	eq("c.annotation_kind", f.AnnotationKind)
	eq("c.category", f.Category)
	eq("c.status", f.Status)
	eq("c.entity", f.Entity)
	eq("c.source", f.Source)
	eq("c.file_path", f.FilePath)
	for _, k := range slices.Sorted(maps.Keys(f.Fields)) {
		if !fieldKey.MatchString(k) {
			return "", nil, errs.New(errs.Invalid, "kb.Filter", "field filter %q must be an x_<key> name", k)
		}
		clauses = append(clauses, `json_extract(c.extra, '$.`+k+`') = ?`)
		args = append(args, f.Fields[k])
	}
	for _, t := range f.Tags {
		clauses = append(clauses, "instr(c.tags, ?) > 0")
		args = append(args, "|"+strings.TrimSpace(t)+"|")
	}
	return strings.Join(clauses, " AND "), args, nil
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
	for _, t := range f.Tags {
		if !strings.Contains(m.tags, "|"+strings.TrimSpace(t)+"|") {
			return false
		}
	}
	return true
}
