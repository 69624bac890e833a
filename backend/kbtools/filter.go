package kbtools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// FilterArgs narrow an operation to some documents: a kind and the
// records' frontmatter fields. Every surface decodes its own syntax into
// these; the zero value is everything.
type FilterArgs struct {
	Kind     string            // all | papers | notes | chat
	Category string            // record type
	Status   string            // record status
	Entity   string            // organisation or person
	Tags     []string          // every one must be present
	Fields   map[string]string // x_<key> = value
	// Contains: the field (x_<key>, category, status or entity) holds
	// the text, ASCII case aside.
	Contains map[string]string
	// Collection is a collection path ("Lab/Reviews"): what is filed in it
	// or under it (Zotero items).
	Collection string
	// Year is a paper's year or range: "2021", "2019-2021", "2019-", "-2021".
	Year string
	// ItemType is Zotero's item type: journalArticle, book, preprint ...
	ItemType string
}

// Filter is the store filter the arguments name.
func (a FilterArgs) Filter(op string) (kb.Filter, error) {
	kind, err := kb.ParseKind(a.Kind)
	if err != nil {
		return kb.Filter{}, errs.WithHint(errs.New(errs.Invalid, op, "unknown kind %q", a.Kind), "use all, papers, notes or chat")
	}
	f := kb.Filter{DocTypes: kind.DocTypes(), Category: strings.TrimSpace(a.Category), Status: strings.TrimSpace(a.Status), Entity: strings.TrimSpace(a.Entity)}
	for _, tag := range a.Tags {
		if tag = strings.TrimSpace(tag); tag != "" {
			f.Tags = append(f.Tags, tag)
		}
	}
	f.Collection = strings.TrimSpace(a.Collection)
	if f.YearFrom, f.YearTo, err = ParseYears(a.Year); err != nil {
		return kb.Filter{}, errs.WithHint(errs.Wrap(errs.Invalid, op, err), "give a year (2021) or a range (2019-2021, 2019-, -2021)")
	}
	if t := strings.TrimSpace(a.ItemType); t != "" {
		f.Fields = map[string]string{ingest.ZoteroItemTypeField: t}
	}
	for key, value := range a.Fields {
		key = strings.TrimSpace(key)
		if !strings.HasPrefix(key, "x_") {
			return kb.Filter{}, errs.WithHint(errs.New(errs.Invalid, op, "bad field filter %q", key+"="+value), "write fields as x_<key>=value; kb_stats lists what exists")
		}
		if f.Fields == nil {
			f.Fields = map[string]string{}
		}
		f.Fields[key] = strings.TrimSpace(value)
	}
	for key, value := range a.Contains {
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if value == "" {
			continue
		}
		if key != "category" && key != "status" && key != "entity" && !strings.HasPrefix(key, "x_") {
			key = "x_" + key
		}
		if f.Contains == nil {
			f.Contains = map[string]string{}
		}
		f.Contains[key] = value
	}
	return f, nil
}

// ParseYears reads a year or an inclusive range: "2021", "2019-2021",
// "2019-" (from), "-2021" (until); "" is no bound.
func ParseYears(s string) (from, to int, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, 0, nil
	}
	lo, hi, isRange := strings.Cut(s, "-")
	parse := func(v string) (int, error) {
		v = strings.TrimSpace(v)
		if v == "" && isRange {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 || n > 9999 {
			return 0, fmt.Errorf("%q is not a year or a range of years", s)
		}
		return n, nil
	}
	if from, err = parse(lo); err != nil {
		return 0, 0, err
	}
	if !isRange {
		return from, from, nil
	}
	if to, err = parse(hi); err != nil {
		return 0, 0, err
	}
	if from == 0 && to == 0 || to != 0 && from > to {
		return 0, 0, fmt.Errorf("%q is not a range of years", s)
	}
	return from, to, nil
}

// SplitFilters takes the filters typed into a search or filter box out of
// it: key:value words for tag, collection, year, type (the Zotero item
// type), category, status and entity, a value in double quotes when it has
// spaces (collection:"Thesis/Chapter 2"). It returns them with the rest of
// the text, which stays the query or the title filter.
func SplitFilters(text string) (FilterArgs, string, error) {
	var a FilterArgs
	var rest []string
	set := map[string]*string{"collection": &a.Collection, "year": &a.Year, "type": &a.ItemType, "category": &a.Category, "status": &a.Status, "entity": &a.Entity}
	for s := strings.TrimSpace(text); s != ""; s = strings.TrimSpace(s) {
		word, after := nextWord(s)
		key, value, ok := strings.Cut(word, ":")
		target, known := set[strings.ToLower(key)]
		switch {
		case ok && strings.EqualFold(key, "tag"):
			a.Tags = append(a.Tags, strings.Trim(value, `"`))
		case ok && known:
			*target = strings.Trim(value, `"`)
		default:
			rest = append(rest, word)
		}
		s = after
	}
	if _, _, err := ParseYears(a.Year); err != nil {
		return a, "", errs.WithHint(errs.Wrap(errs.Invalid, "filters", err), "write year:2021 or year:2019-2021")
	}
	return a, strings.Join(rest, " "), nil
}

// nextWord splits off the first word of s, keeping a double-quoted stretch
// (key:"two words") in one word.
func nextWord(s string) (word, rest string) {
	quoted := false
	for i, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ' ' && !quoted:
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// SplitListFilters reads a listing's filter box: SplitFilters' words,
// plus has:highlights (has:notes, has:annotations: documents with at least
// one highlight or note); what is left filters titles.
func SplitListFilters(text string) (FilterArgs, kb.ListOptions, error) {
	a, rest, err := SplitFilters(text)
	if err != nil {
		return a, kb.ListOptions{}, err
	}
	var o kb.ListOptions
	var title []string
	for s := strings.TrimSpace(rest); s != ""; s = strings.TrimSpace(s) {
		word, after := nextWord(s)
		switch strings.ToLower(word) {
		case "has:highlights", "has:notes", "has:annotations":
			o.Annotated = true
		default:
			title = append(title, word)
		}
		s = after
	}
	o.Title = strings.Join(title, " ")
	return a, o, nil
}
