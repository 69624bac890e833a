package kbtools

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

func TestAPersonGetsAsManyResultsAsAskedAndAModelIsCapped(t *testing.T) {
	k, ctx := newKB(t), context.Background()
	k.NResults = 3
	for _, tc := range []struct {
		c    Caller
		want int
	}{{Caller{Person: true}, 40}, {Caller{}, 3}} { // the manual's 40 sections all match
		found, err := k.Search(ctx, tc.c, SearchArgs{Query: "section manual", N: MaxResults + 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(found.Chunks) != tc.want || len(found.Hits) != tc.want {
			t.Errorf("%+v asked for %d: %d chunks, %d hits, want %d", tc.c, MaxResults+1, len(found.Chunks), len(found.Hits), tc.want)
		}
		for i, h := range found.Hits {
			if h.Chunk.ID != found.Chunks[i].ID || h.Score == 0 {
				t.Fatalf("hit %d = %d (score %v), chunk %d", i, h.Chunk.ID, h.Score, found.Chunks[i].ID)
			}
		}
	}
}

func TestSchemaIsForLocalCallersOnly(t *testing.T) {
	k, ctx := newKB(t), context.Background()
	var l ledger
	keys, err := k.Schema(ctx, Caller{Ledger: &l}, "")
	if err != nil {
		t.Fatal(err)
	}
	if keys["title"] == 0 || !l.private {
		t.Errorf("keys = %v, private = %v; want title counted and the caller private", keys, l.private)
	}
	vis, err := k.Schema(ctx, Caller{}, "visibility")
	if err != nil {
		t.Fatal(err)
	}
	if vis[kb.Private] != 3 || vis[kb.Public] == 0 {
		t.Errorf("visibility values = %v, want 3 private chunks and some public", vis)
	}
	var cloud ledger
	if _, err := k.Schema(ctx, Caller{Cloud: true, Ledger: &cloud}, "visibility"); !errs.Is(err, errs.Privacy) || cloud.private {
		t.Errorf("cloud schema: err = %v, private = %v; want a privacy refusal", err, cloud.private)
	}
}

func TestPrepareRemoveWhereListsEveryMatchAndRemovesOnlyThose(t *testing.T) {
	k, ctx := newKB(t), context.Background()
	f, err := kb.ParseFilter("source", kb.SourceVault)
	if err != nil {
		t.Fatal(err)
	}
	// A cloud caller's removal takes public notes only, and names no
	// private one in its preview.
	r, err := k.PrepareRemoveWhere(ctx, Caller{Cloud: true}, f, "source = vault")
	if err != nil {
		t.Fatal(err)
	}
	// garden/link.md links into the private folder, so it is private.
	if len(r.Docs) != 2 || strings.Contains(r.Preview, "private/") || strings.Contains(r.Preview, "link.md") ||
		!strings.Contains(r.Preview, "garden/compost.md") || strings.Count(r.Preview, RemoveNotice) != 2 {
		t.Fatalf("docs %d, preview:\n%s", len(r.Docs), r.Preview)
	}
	// A note that starts matching after the preview stops the removal.
	stale := r
	if err := k.Store.Commit([]kb.Chunk{{Content: "new", EmbedText: "new", Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: kb.SourceVault, FilePath: "garden/new.md"}}}, ""); err != nil {
		t.Fatal(err)
	}
	if n, err := k.Remove(ctx, stale); !errs.Is(err, errs.Conflict) || n != 0 {
		t.Fatalf("a stale preview removed %d (%v)", n, err)
	}
	r, err = k.PrepareRemoveWhere(ctx, Caller{Cloud: true}, f, "source = vault")
	if err != nil || len(r.Docs) != 3 {
		t.Fatalf("%v, %d docs", err, len(r.Docs))
	}
	n, err := k.Remove(ctx, r)
	if err != nil || n == 0 {
		t.Fatalf("removed %d, %v", n, err)
	}
	left, err := k.Store.List(ctx, kb.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range left {
		if d.Visibility != kb.Private {
			t.Errorf("%s (%s) was not removed", d.Key, d.Visibility)
		}
	}
	if len(left) != 3 {
		t.Errorf("%d documents left, want the 3 private ones", len(left))
	}
	if _, err := k.PrepareRemoveWhere(ctx, Caller{}, kb.Filter{Source: "https://nowhere"}, "source = https://nowhere"); !errs.Is(err, errs.NotFound) {
		t.Errorf("nothing matching: %v, want not found", err)
	}
}
