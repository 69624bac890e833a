package kb

import (
	"context"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Kind is the one document vocabulary every surface (chat tools, the
// window's Library, the CLI) speaks: a user-facing family of doc types.
type Kind string

const (
	KindAll    Kind = "all"
	KindPapers Kind = "papers"
	KindNotes  Kind = "notes"
	KindChat   Kind = "chat"
)

// Kinds lists the kinds in the order they are offered.
var Kinds = []Kind{KindAll, KindPapers, KindNotes, KindChat}

// ParseKind reads a kind; empty means all.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case "":
		return KindAll, nil
	case KindAll, KindPapers, KindNotes, KindChat:
		return k, nil
	}
	return "", errs.WithHint(errs.New(errs.Invalid, "kb.ParseKind", "unknown kind %q", s), "use all, papers, notes or chat")
}

// DocTypes is the doc types of the kind; nil means any.
func (k Kind) DocTypes() []string {
	switch k {
	case KindPapers:
		return []string{DocPaper, DocDigest}
	case KindNotes:
		return []string{DocNote}
	case KindChat:
		return []string{DocChat}
	}
	return nil
}

// DocRef names one stored document the way a user or a model cites it: a
// source URI / identifier, or a vault note's relative path.
type DocRef string

// IsSource reports whether the reference is a source rather than a note path.
func (r DocRef) IsSource() bool {
	s := string(r)
	return strings.Contains(s, "://") || strings.HasPrefix(s, "arXiv:") || strings.HasPrefix(s, "bioRxiv:") || strings.HasPrefix(s, "chat:")
}

// Filter selects the document: a vault note by path, anything else by source.
func (r DocRef) Filter() Filter {
	if r.IsSource() {
		return Filter{Source: string(r)}
	}
	return Filter{Source: SourceVault, FilePath: string(r)}
}

// ParseFilter reads one KEY=VALUE selection (the CLI's remove, a tool's
// filter argument) into a Filter; only keys a Filter selects exactly are
// accepted, so a preview lists exactly what a delete would remove.
func ParseFilter(key, value string) (Filter, error) {
	if value == "" {
		return Filter{}, errs.New(errs.Invalid, "kb.ParseFilter", "refusing to select by an empty %s", key)
	}
	switch key {
	case "source":
		return Filter{Source: value}, nil
	case "file_path":
		return Filter{FilePath: value}, nil
	case "doc_type":
		return Filter{DocTypes: []string{value}}, nil
	case "category":
		return Filter{Category: value}, nil
	case "status":
		return Filter{Status: value}, nil
	case "entity":
		return Filter{Entity: value}, nil
	}
	if fieldKey.MatchString(key) {
		return Filter{Fields: map[string]string{key: value}}, nil
	}
	return Filter{}, errs.New(errs.Invalid, "kb.ParseFilter", "select by source, file_path, doc_type, category, status, entity or an x_<key>, not %q", key)
}

// DeleteWhere removes every chunk the filter matches and returns how many.
// An empty filter is refused: it would empty the store. Only database rows
// are deleted: no file on disk is ever touched.
func (s *Store) DeleteWhere(ctx context.Context, f Filter) (int, error) {
	where, args, err := f.where()
	if err != nil {
		return 0, err
	}
	if where == "1=1" {
		return 0, errs.New(errs.Invalid, "kb.DeleteWhere", "refusing to delete every chunk: give a filter")
	}
	return s.execCounted(ctx, "kb.DeleteWhere", `DELETE FROM chunks AS c WHERE `+where, args...)
}
