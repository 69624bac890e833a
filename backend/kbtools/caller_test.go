package kbtools

import (
	"slices"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

func TestScopeConfinesCloudToPublic(t *testing.T) {
	f := kb.Filter{Source: "s", Visibility: []string{kb.Private}}
	if got := (Caller{Cloud: true}).Scope(f); !slices.Equal(got.Visibility, []string{kb.Public}) || got.Source != "s" {
		t.Errorf("cloud scope = %+v", got)
	}
	if got := (Caller{}).Scope(f); !slices.Equal(got.Visibility, []string{kb.Private}) {
		t.Errorf("local scope changed the filter: %+v", got)
	}
}

func TestNoWriteDown(t *testing.T) {
	if err := (Caller{Private: true}).NoWriteDown("op", kb.Public); !errs.Is(err, errs.Privacy) {
		t.Errorf("private caller writing public: %v", err)
	}
	for _, c := range []struct {
		caller Caller
		vis    string
	}{{Caller{Private: true}, kb.Private}, {Caller{}, kb.Public}} {
		if err := c.caller.NoWriteDown("op", c.vis); err != nil {
			t.Errorf("%+v writing %s: %v", c.caller, c.vis, err)
		}
	}
}
