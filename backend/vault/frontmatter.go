// Package vault keeps the knowledge base in step with an Obsidian vault:
// incremental refresh by content hash, frontmatter records, and the one
// visibility policy (top-level private folders, classified on the resolved
// path).
package vault

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// MetaSchema is the frontmatter-mapping version; notes indexed under an
// older one are migrated on refresh.
const MetaSchema = 1

// Record is the filterable part of a note's frontmatter.
type Record struct {
	Category  string
	Status    string
	Entity    string
	EventDate string
	Tags      []string
	Extra     map[string]string // x_<key> -> scalar
}

// HasFields reports whether anything was mapped.
func (r Record) HasFields() bool {
	return r.Category != "" || r.Status != "" || r.Entity != "" || r.EventDate != "" || len(r.Tags) > 0 || len(r.Extra) > 0
}

// Header is the record line embedded with every chunk of the note
// ("job_application · Acme Bio · rejected"), so "jobs I was rejected from"
// matches a record whose body never says so.
func (r Record) Header() string {
	var parts []string
	for _, p := range []string{r.Category, r.Entity, r.Status} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " · ")
}

var extraKey = regexp.MustCompile(`[^a-z0-9_]+`)

// SplitFrontmatter separates a leading YAML block from the body. ok is false
// when the note has none.
func SplitFrontmatter(text string) (yamlBlock, body string, ok bool) {
	t := strings.TrimPrefix(text, "\ufeff")
	if !strings.HasPrefix(t, "---\n") && !strings.HasPrefix(t, "---\r\n") {
		return "", text, false
	}
	rest := t[strings.Index(t, "\n")+1:]
	for _, end := range []string{"\n---\n", "\n---\r\n", "\n...\n"} {
		if i := strings.Index(rest, end); i >= 0 {
			return rest[:i], rest[i+len(end):], true
		}
	}
	if strings.HasSuffix(rest, "\n---") {
		return strings.TrimSuffix(rest, "\n---"), "", true
	}
	return "", text, false
}

// ParseRecord maps frontmatter onto a record. Frontmatter is untrusted: it is
// decoded as plain data, a malformed block yields a warning and no record
// (the note is still indexed), nested values are skipped with a warning, and
// every key that is not well known is namespaced x_<key> so nothing can
// overwrite Jarvis's own fields (a note saying "visibility: public" stays
// private).
func ParseRecord(yamlBlock string) (Record, []string) {
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(yamlBlock), &raw); err != nil {
		return Record{}, []string{fmt.Sprintf("malformed frontmatter ignored: %v", err)}
	}
	var r Record
	var warnings []string
	keys := slices.Sorted(maps.Keys(raw))
	for _, k := range keys {
		v := raw[k]
		lk := strings.ToLower(strings.TrimSpace(k))
		if lk == "tags" {
			r.Tags = tags(v)
			continue
		}
		s, ok := scalar(v)
		if !ok {
			warnings = append(warnings, fmt.Sprintf("frontmatter key %q has a nested value; skipped", k))
			continue
		}
		switch lk {
		case "type", "category":
			if r.Category == "" {
				r.Category = s
			}
		case "status":
			r.Status = s
		case "entity", "org", "company":
			if r.Entity == "" {
				r.Entity = s
			}
		case "date", "applied":
			if r.EventDate == "" {
				r.EventDate = s
			}
		default:
			name := "x_" + strings.Trim(extraKey.ReplaceAllString(lk, "_"), "_")
			if name == "x_" || len(name) > 66 {
				warnings = append(warnings, fmt.Sprintf("frontmatter key %q cannot be used as a field; skipped", k))
				continue
			}
			if r.Extra == nil {
				r.Extra = map[string]string{}
			}
			r.Extra[name] = s
		}
	}
	return r, warnings
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return strings.TrimSpace(x), true
	case bool, int, int64, float64, uint64:
		return fmt.Sprint(x), true
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 {
			return x.Format("2006-01-02"), true
		}
		return x.Format(time.RFC3339), true
	}
	return "", false
}

func tags(v any) []string {
	var out []string
	switch x := v.(type) {
	case string:
		for _, t := range strings.FieldsFunc(x, func(r rune) bool { return r == ',' || r == ' ' }) {
			out = append(out, strings.TrimPrefix(t, "#"))
		}
	case []any:
		for _, t := range x {
			if s, ok := scalar(t); ok && s != "" {
				out = append(out, strings.TrimPrefix(s, "#"))
			}
		}
	}
	return out
}

// Apply copies a record into chunk metadata. It runs before Jarvis sets its
// own fields, and only writes record fields, so a collision cannot win.
func (r Record) Apply(m *kb.Metadata) {
	m.Category, m.Status, m.Entity, m.EventDate = r.Category, r.Status, r.Entity, r.EventDate
	m.Tags = kb.EncodeTags(r.Tags)
	if len(r.Extra) > 0 {
		m.Extra = map[string]string{}
		for k, v := range r.Extra {
			m.Extra[k] = v
		}
	}
}
