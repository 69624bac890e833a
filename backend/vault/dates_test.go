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
	for _, in := range []string{"soon", "31/02/2026", "2026-13-01", "next Tuesday", "555-123-4567"} {
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

// Any field whose value is a date gets its day as an ISO companion, the
// text as written kept in the field; numbers, titles and day/month
// puzzles get none (the puzzle with a warning), and a key of the user's
// that looks like a companion is not overwritten.
func TestEveryDateFieldGetsAnISOCompanion(t *testing.T) {
	rec, warns := ParseRecord(strings.Join([]string{
		"deadline: March 10, 2026",
		"interview: 2026-04-02",
		"reviewed: \"[[2026-03-01]]\"",
		"due: 15/03/2026",
		"month: March 2026",
		"priority: 42",
		"year: 2021",
		"title: March 2026 lab retreat",
		"phone: 555-123-4567",
		"version: 1.2.3",
		"next: soon",
		"follow_up: \"03/04/2026\"",
		"sent: 2026-05-01",
		"sent__date: mine",
	}, "\n"))
	for key, want := range map[string]string{
		"x_deadline": "March 10, 2026", "x_deadline__date": "2026-03-10",
		"x_interview__date": "2026-04-02", "x_reviewed__date": "2026-03-01", "x_due__date": "2026-03-15", "x_month__date": "2026-03",
		"x_due": "15/03/2026", "x_follow_up": "03/04/2026", "x_sent__date": "mine",
	} {
		if got := rec.Extra[key]; got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	for _, key := range []string{"priority", "year", "title", "phone", "version", "next", "follow_up", "sent__date"} {
		if got, ok := rec.Extra["x_"+key+"__date"]; ok {
			t.Errorf("%s is no date, yet has the companion %q", key, got)
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "follow_up") || !strings.Contains(warns[0], "day/month") {
		t.Errorf("warnings = %v", warns)
	}
	if DateField("x_deadline") != "x_deadline__date" || !IsDateField("x_deadline__date") || IsDateField("x_deadline") {
		t.Error("DateField and IsDateField disagree")
	}
}

// Rows indexed before fields had companions are brought up to date by the
// next refresh: a note with a date in a field is indexed afresh and gains
// its companion; a note with none is only restamped, embedding nothing.
func TestRefreshGivesOlderRowsTheirDateCompanions(t *testing.T) {
	r, emb, root := setup(t)
	ctx := context.Background()
	write(t, root, "jobs/acme.md", "---\ncategory: job_application\ndeadline: March 10, 2026\n---\n# Acme\n\nThe grant plan.\n")
	write(t, root, "jobs/plain.md", "---\ncategory: job_application\nlocation: Berlin\n---\n# Plain\n\nThe grant plan.\n")
	if _, err := r.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	// As schema 3 stored them: no companion.
	for _, rel := range []string{"jobs/acme.md", "jobs/plain.md"} {
		chunks, err := r.Store.Document(ctx, *noteFilter(rel))
		if err != nil || len(chunks) == 0 {
			t.Fatalf("%s: %v", rel, err)
		}
		for i := range chunks {
			delete(chunks[i].Meta.Extra, "x_deadline__date")
			chunks[i].Meta.MetaSchema = 3
			chunks[i].Vector = nil
		}
		if err := r.Store.CommitReplacing(chunks, noteFilter(rel)); err != nil {
			t.Fatal(err)
		}
	}
	dated := func() string {
		docs, err := r.Store.ListWith(ctx, kb.Filter{}, kb.ListOptions{Field: "x_deadline__date", DateFrom: "2026-03", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.FilePath)
		}
		return strings.Join(got, " ")
	}
	if got := dated(); got != "" {
		t.Fatalf("the old rows already have companions: %q", got)
	}
	calls := emb.calls
	res, err := r.Refresh(ctx)
	if err != nil || res.Updated != 1 || res.Migrated != 1 {
		t.Fatalf("migration = %+v, %v", res, err)
	}
	if got := dated(); got != "jobs/acme.md" {
		t.Fatalf("after the refresh, dated by deadline: %q", got)
	}
	acme, _ := r.Store.Document(ctx, *noteFilter("jobs/acme.md"))
	if emb.calls-calls != len(acme) {
		t.Errorf("embedded %d chunks, want only acme's %d", emb.calls-calls, len(acme))
	}
	states, _ := r.Store.NoteStates(ctx)
	for rel, st := range states {
		if st.MetaSchema != MetaSchema {
			t.Errorf("%s is at schema %d", rel, st.MetaSchema)
		}
	}
	if res, err := r.Refresh(ctx); err != nil || res.Updated+res.Migrated+res.Added != 0 {
		t.Fatalf("a second refresh did work again: %+v %v", res, err)
	}
}
