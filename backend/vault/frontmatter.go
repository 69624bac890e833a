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
// older one are migrated on refresh. 2: lists of scalars, aliases and
// frontmatter wikilinks are mapped (1 skipped them as nested values).
// 3: record dates written in other forms (March 3, 2026; 03/15/2026) are
// stored as YYYY-MM-DD. 4: every other field whose value is a date
// (deadline: March 10, 2026) has an ISO companion (DateField) that ranges
// and date sorts use.
const MetaSchema = 4

// Record is the filterable part of a note's frontmatter.
type Record struct {
	Category  string
	Status    string
	Entity    string
	EventDate string
	Tags      []string
	Aliases   []string          // Obsidian's other names for the note
	Links     []Link            // wikilinks written in frontmatter values
	Extra     map[string]string // x_<key> -> scalar, or a list joined with ", "
}

// Link is a wikilink found in a frontmatter value: the key it was under and
// the note it points at ("[[Note#Part|shown]]" -> Note).
type Link struct {
	Key, Target string
}

// HasFields reports whether anything was mapped.
func (r Record) HasFields() bool {
	return r.Category != "" || r.Status != "" || r.Entity != "" || r.EventDate != "" || len(r.Tags) > 0 ||
		len(r.Aliases) > 0 || len(r.Links) > 0 || len(r.Extra) > 0
}

// Header is the record line embedded with every chunk of the note, and so
// also in its lexical index ("job_application · Acme Bio · rejected ·
// aliases: ACME · related: Hiring plan"): "jobs I was rejected from" matches
// a record whose body never says so, and a note is found by any of its
// names and by the notes its frontmatter links to, as plain text.
func (r Record) Header() string {
	var parts []string
	for _, p := range []string{r.Category, r.Entity, r.Status} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(r.Aliases) > 0 {
		parts = append(parts, "aliases: "+strings.Join(r.Aliases, ", "))
	}
	var keys []string
	targets := map[string][]string{}
	for _, l := range r.Links {
		if !slices.Contains(keys, l.Key) {
			keys = append(keys, l.Key)
		}
		targets[l.Key] = append(targets[l.Key], l.Target)
	}
	for _, k := range keys {
		parts = append(parts, k+": "+strings.Join(targets[k], ", "))
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
// (the note is still indexed), and every key that is not well known is
// namespaced x_<key> so nothing can overwrite Jarvis's own fields (a note
// saying "visibility: public" stays private). A list of scalars is kept
// (joined with ", "); a wikilink, which YAML reads unquoted as a nested list
// ("related: [[Note]]"), is kept as written and its target recorded; other
// nested values are skipped with a warning.
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
		items, ok := flatValues(v)
		if !ok {
			warnings = append(warnings, fmt.Sprintf("frontmatter key %q has a nested value; skipped", k))
			continue
		}
		for _, it := range items {
			if t := linkTarget(it); t != "" {
				r.Links = append(r.Links, Link{Key: lk, Target: t})
			}
		}
		if lk == "aliases" || lk == "alias" {
			r.Aliases = append(r.Aliases, items...)
			continue
		}
		s := strings.Join(items, ", ")
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
				day, ok, ambiguous := recordDay(s)
				if ok {
					r.EventDate = day
					continue
				}
				// Not a date to sort by: kept as a field (x_date), so
				// nothing is lost and the record lists as undated.
				if r.Extra == nil {
					r.Extra = map[string]string{}
				}
				r.Extra["x_"+lk] = s
				why := "is not a date Jarvis can read"
				if ambiguous {
					why = "could be day/month or month/day"
				}
				warnings = append(warnings, fmt.Sprintf("frontmatter %s %q %s; write it as YYYY-MM-DD so the record sorts by date (kept as x_%s)", k, s, why, lk))
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
	warnings = append(warnings, r.addDateFields()...)
	return r, warnings
}

// dateSuffix marks a field's ISO companion: x_deadline__date holds
// x_deadline's day as YYYY-MM-DD (or YYYY-MM). Double, so that it reads as
// Jarvis's and not as a word of the user's key.
const dateSuffix = "__date"

// DateField is the key of a field's ISO companion: "x_deadline" ->
// "x_deadline__date". The field keeps the user's text as written (and so
// equality filters and what is shown); ranges and date sorts use this.
func DateField(key string) string { return key + dateSuffix }

// IsDateField reports whether a key is a companion DateField made.
func IsDateField(key string) bool { return strings.HasSuffix(key, dateSuffix) }

// ParseDay reads a date the way record dates are read (March 10, 2026;
// 15/03/2026; 2026-03): YYYY-MM-DD, or YYYY-MM for a month. ok is false
// for anything else, and for a numeric day and month that could be either
// way round.
func ParseDay(s string) (day string, ok bool) {
	day, ok, _ = fieldDay(s)
	return day, ok
}

// fieldDay is recordDay for any field's value, more wary: a whole-value
// wikilink to a daily note ("[[2026-03-10]]") is its day, and a value too
// long to be a date is not read as one ("March 2026 lab retreat" is a
// title; "42" and "2021" are numbers, which recordDay refuses).
func fieldDay(s string) (day string, ok, ambiguous bool) {
	s = strings.TrimSpace(s)
	if t := linkTarget(s); t != "" {
		s = t
	}
	if len(s) < 7 || len(s) > 40 {
		return "", false, false
	}
	return recordDay(s)
}

// addDateFields gives every field whose value is a date its ISO
// companion, so "deadline: March 10, 2026" sorts and bounds among ISO
// deadlines; a numeric date that could be read either way gets none and
// a warning. A key of the user's own that looks like a companion is left
// as it is.
func (r *Record) addDateFields() []string {
	var warnings []string
	for _, k := range slices.Sorted(maps.Keys(r.Extra)) {
		if IsDateField(k) || k == "x_date" || k == "x_applied" { // those two hold a date that did not read
			continue
		}
		day, ok, ambiguous := fieldDay(r.Extra[k])
		if ambiguous {
			warnings = append(warnings, fmt.Sprintf("frontmatter %s %q could be day/month or month/day; write it as YYYY-MM-DD so records sort and filter by it", strings.TrimPrefix(k, "x_"), r.Extra[k]))
		}
		if !ok {
			continue
		}
		if _, taken := r.Extra[DateField(k)]; !taken {
			r.Extra[DateField(k)] = day
		}
	}
	return warnings
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

// flatValues reads a frontmatter value as text: a scalar, or a list of
// scalars and wikilinks, in order. false for maps and deeper nesting.
func flatValues(v any) ([]string, bool) {
	if l, ok := wikilink(v); ok {
		return []string{l}, true
	}
	list, isList := v.([]any)
	if !isList {
		s, ok := scalar(v)
		if !ok {
			return nil, false
		}
		if s == "" {
			return nil, true
		}
		return []string{s}, true
	}
	var out []string
	for _, item := range list {
		if l, ok := wikilink(item); ok {
			out = append(out, l)
			continue
		}
		s, ok := scalar(item)
		if !ok {
			return nil, false
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out, true
}

// wikilink recognises [[Note]] written unquoted, which YAML reads as a list
// holding a list holding the text, and gives it back as written.
func wikilink(v any) (string, bool) {
	outer, ok := v.([]any)
	if !ok || len(outer) != 1 {
		return "", false
	}
	inner, ok := outer[0].([]any)
	if !ok || len(inner) != 1 {
		return "", false
	}
	s, ok := scalar(inner[0])
	if !ok || s == "" {
		return "", false
	}
	return "[[" + s + "]]", true
}

var wikilinkRE = regexp.MustCompile(`^\[\[([^\]|#^]+)(?:[#^][^\]|]*)?(?:\|[^\]]*)?\]\]$`)

// linkTarget is the note a whole-value wikilink points at, as plain text;
// "" when the value is not one.
func linkTarget(s string) string {
	if m := wikilinkRE.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
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
