package vault

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

func TestRecordDayReadsTheWaysVaultsWriteDates(t *testing.T) {
	for in, want := range map[string]string{
		"2026-03-10": "2026-03-10", "2026-03-10T09:30:00Z": "2026-03-10", "2026-03-10 09:30": "2026-03-10", "2026-03": "2026-03",
		"2026/03/10": "2026-03-10", "2026.03.10": "2026-03-10",
		"March 10, 2026": "2026-03-10", "Mar 10, 2026": "2026-03-10", "10 March 2026": "2026-03-10", "10 Mar 2026": "2026-03-10",
		"Tuesday, March 10, 2026": "2026-03-10", "March 2026": "2026-03",
		"15/03/2026": "2026-03-15", "03/15/2026": "2026-03-15", "15.03.2026": "2026-03-15", "04/04/2026": "2026-04-04",
	} {
		if got, ok, _ := recordDay(in); !ok || got != want {
			t.Errorf("recordDay(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok, ambiguous := recordDay("03/04/2026"); ok || !ambiguous {
		t.Errorf("03/04/2026 is March 4 or April 3: ok %v, ambiguous %v", ok, ambiguous)
	}
	for _, in := range []string{"soon", "31/02/2026", "2026-13-01", "next Tuesday"} {
		if got, ok, ambiguous := recordDay(in); ok || ambiguous {
			t.Errorf("recordDay(%q) = %q: not a date", in, got)
		}
	}
}

// Records sort by their dates however the notes wrote them; a date Jarvis
// cannot place is kept as written, with a warning that says why the
// record does not sort.
func TestRecordDatesAreStoredAsISODays(t *testing.T) {
	r, emb, root := setup(t)
	ctx := context.Background()
	write(t, root, "meetings/a.md", "---\ncategory: meeting\ndate: March 10, 2026\n---\n# A\n\nWe talked about the grant plan.\n")
	write(t, root, "meetings/b.md", "---\ncategory: meeting\ndate: 15/02/2026\n---\n# B\n\nWe talked about the grant plan.\n")
	write(t, root, "meetings/c.md", "---\ncategory: meeting\ndate: \"03/04/2026\"\n---\n# C\n\nWe talked about the grant plan.\n")
	res, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "c.md") || !strings.Contains(res.Warnings[0], "YYYY-MM-DD") {
		t.Fatalf("warnings = %v", res.Warnings)
	}
	docs, err := r.Store.ListWith(ctx, kb.Filter{Category: "meeting"}, kb.ListOptions{Limit: 10, Sort: kb.ByDateAsc})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.FilePath+"@"+d.EventDate)
	}
	if strings.Join(got, " ") != "meetings/b.md@2026-02-15 meetings/a.md@2026-03-10 meetings/c.md@" {
		t.Fatalf("meetings by date = %v", got)
	}

	if vals, _ := r.Store.ValueCounts(ctx, "x_date"); vals["03/04/2026"] == 0 {
		t.Errorf("the ambiguous date was not kept: %v", vals)
	}

	// A note indexed under schema 2 kept its date as written: the next
	// refresh restamps the date and embeds nothing again.
	if _, err := r.Store.UpdateFields(ctx, kb.Filter{FilePath: "meetings/a.md"}, map[string]any{"event_date": "March 10, 2026", "meta_schema": 2}); err != nil {
		t.Fatal(err)
	}
	calls := emb.calls
	if res, err = r.Refresh(ctx); err != nil || res.Migrated != 1 || res.Updated != 0 || emb.calls != calls {
		t.Fatalf("migration = %+v, %v; embedded %d times", res, err, emb.calls-calls)
	}
	docs, _ = r.Store.List(ctx, kb.Filter{FilePath: "meetings/a.md"}, 1)
	if len(docs) != 1 || docs[0].EventDate != "2026-03-10" {
		t.Fatalf("after the migration: %+v", docs)
	}
}
