package kb

import (
	"context"
	"slices"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestParseKindAndDocTypes(t *testing.T) {
	for in, want := range map[string][]string{"": nil, "all": nil, "papers": {DocPaper, DocDigest}, "notes": {DocNote}, "chat": {DocChat}} {
		k, err := ParseKind(in)
		if err != nil || !slices.Equal(k.DocTypes(), want) {
			t.Errorf("ParseKind(%q) = %v %v, %v; want %v", in, k, k.DocTypes(), err, want)
		}
	}
	if _, err := ParseKind("pictures"); !errs.Is(err, errs.Invalid) {
		t.Errorf("unknown kind: %v", err)
	}
}

func TestDocRefFilter(t *testing.T) {
	cases := map[DocRef]Filter{
		"https://arxiv.org/abs/1": {Source: "https://arxiv.org/abs/1"},
		"arXiv:2401.1":            {Source: "arXiv:2401.1"},
		"chat:abc":                {Source: "chat:abc"},
		"notes/a.md":              {Source: SourceVault, FilePath: "notes/a.md"},
	}
	for r, want := range cases {
		if got := r.Filter(); got.Source != want.Source || got.FilePath != want.FilePath {
			t.Errorf("%q.Filter() = %+v, want %+v", r, got, want)
		}
	}
}

func TestParseFilterRefusesUnknownAndEmpty(t *testing.T) {
	if f, err := ParseFilter("x_lab", "bio"); err != nil || f.Fields["x_lab"] != "bio" {
		t.Errorf("x_ key: %+v %v", f, err)
	}
	for _, kv := range [][2]string{{"title", "a"}, {"source", ""}, {"x_Bad", "a"}} {
		if _, err := ParseFilter(kv[0], kv[1]); !errs.Is(err, errs.Invalid) {
			t.Errorf("ParseFilter(%q, %q) = %v, want Invalid", kv[0], kv[1], err)
		}
	}
}

func TestDeleteWhereRefusesEmptyFilter(t *testing.T) {
	s := open(t, t.TempDir())
	if _, err := s.DeleteWhere(context.Background(), Filter{}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("empty filter: %v", err)
	}
}
