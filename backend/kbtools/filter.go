package kbtools

import (
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
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
	return f, nil
}
