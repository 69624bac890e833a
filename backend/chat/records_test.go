package chat

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// queryRecords runs query_records with args for s's model and returns its
// answer, which must not be an error.
func queryRecords(t *testing.T, f *kbFixture, s *Session, args map[string]any) string {
	t.Helper()
	ctx, _, _ := turnCtx()
	out, err := f.tools.Dispatch(ctx, s, call("query_records", args), func(Event) {})
	if err != nil || out.IsError {
		t.Fatalf("%v %+v", err, out)
	}
	return out.Content
}

// query_records answers "applications since March, newest first": the
// records of that category dated in range, in date order, each with its
// date; a private one is listed for a local model and absent for a cloud
// one, which is told nothing of it.
func TestQueryRecordsListsRecordsByDateInOrder(t *testing.T) {
	f := newKB(t)
	var chunks []kb.Chunk
	for _, r := range []struct{ path, vis, entity, date string }{
		{"jobs/acme.md", kb.Public, "Acme", "2026-01-15"},
		{"jobs/borealis.md", kb.Public, "Borealis", "2026-03-02"},
		{"jobs/cygnus.md", kb.Public, "Cygnus", "2026-05-20"},
		{"private/dorado.md", kb.Private, "Dorado", "2026-04-11"},
		{"jobs/undated.md", kb.Public, "Eridanus", ""},
	} {
		text := "Application to " + r.entity + "."
		chunks = append(chunks, kb.Chunk{Content: text, EmbedText: text, Meta: kb.Metadata{DocType: kb.DocNote, Visibility: r.vis, Source: kb.SourceVault,
			FilePath: r.path, Title: r.entity, Category: "job_application", Status: "sent", Entity: r.entity, EventDate: r.date}})
	}
	meeting := "Meeting with Borealis."
	chunks = append(chunks, kb.Chunk{Content: meeting, EmbedText: meeting, Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: kb.SourceVault,
		FilePath: "meetings/borealis.md", Title: "Borealis meeting", Category: "meeting", Entity: "Borealis", EventDate: "2026-03-05"}})
	if err := f.eng.Store.Ingest(context.Background(), nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	order := func(out string) []string {
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if i := strings.Index(line, "  ["); i == 10 {
				got = append(got, line[:10])
			}
		}
		return got
	}
	since := map[string]any{"category": "job_application", "from": "2026-03"}
	out := queryRecords(t, f, local, since)
	if got := strings.Join(order(out), " "); got != "2026-05-20 2026-04-11 2026-03-02" || !strings.Contains(out, "Cygnus") || strings.Contains(out, "Acme") || strings.Contains(out, "meeting") {
		t.Fatalf("applications since March, newest first, for a local model:\n%s", out)
	}
	out = queryRecords(t, f, cloud, since)
	if got := strings.Join(order(out), " "); got != "2026-05-20 2026-03-02" || strings.Contains(out, "Dorado") || strings.Contains(out, "private") {
		t.Fatalf("a cloud model sees the public records only:\n%s", out)
	}
	out = queryRecords(t, f, local, map[string]any{"entity": "Borealis", "sort": "date_asc"})
	if got := strings.Join(order(out), " "); got != "2026-03-02 2026-03-05" {
		t.Fatalf("everything about Borealis, oldest first:\n%s", out)
	}
	// "contains": every record whose entity has "or" in it, case aside…
	out = queryRecords(t, f, local, map[string]any{"category": "job_application", "fields": "entity~OR", "sort": "date_asc"})
	if got := strings.Join(order(out), " "); got != "2026-03-02 2026-04-11" {
		t.Fatalf("entity containing 'or' (Borealis, Dorado):\n%s", out)
	}
	// …and for a cloud model the private one is not there.
	if out = queryRecords(t, f, cloud, map[string]any{"fields": "entity~dorad"}); strings.Contains(out, "Dorado") {
		t.Fatalf("a cloud model found a private record by a contains filter:\n%s", out)
	}
	ctx, _, _ := turnCtx()
	bad, err := f.tools.Dispatch(ctx, local, call("query_records", map[string]any{"sort": "alphabetical"}), func(Event) {})
	if err != nil || !bad.IsError || !strings.Contains(bad.Content, "date_desc") {
		t.Fatalf("an unknown sort is explained to the model: %v %+v", err, bad)
	}
}

// query_records bounds and orders by another frontmatter field when the
// model names one: applications due from April, soonest deadline first.
func TestQueryRecordsByAnotherField(t *testing.T) {
	f := newKB(t)
	var chunks []kb.Chunk
	for _, r := range []struct{ path, deadline string }{{"jobs/a.md", "2026-05-01"}, {"jobs/b.md", "2026-03-15"}, {"jobs/d.md", "2026-04-02"}} {
		text := "Application " + r.path + "."
		chunks = append(chunks, kb.Chunk{Content: text, EmbedText: text, Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: kb.SourceVault,
			FilePath: r.path, Title: r.path, Category: "job_application", EventDate: "2026-01-10", Extra: map[string]string{"x_deadline": r.deadline}}})
	}
	if err := f.eng.Store.Ingest(context.Background(), nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	out := queryRecords(t, f, cloud, map[string]any{"category": "job_application", "field": "deadline", "from": "2026-04", "sort": "date_asc"})
	d, a, b := strings.Index(out, "jobs/d.md"), strings.Index(out, "jobs/a.md"), strings.Index(out, "jobs/b.md")
	if d < 0 || a < 0 || b >= 0 || d > a {
		t.Fatalf("due from April, soonest first (d, then a; not b):\n%s", out)
	}
}

// query_records compares a field's dates however the notes wrote them:
// indexed by the vault's own note builder, "deadline: March 10, 2026"
// falls in March and sorts among the ISO deadlines, and "TBD" is outside
// the range.
func TestQueryRecordsByADeadlineWrittenInWords(t *testing.T) {
	f := newKB(t)
	var chunks []kb.Chunk
	for _, r := range []struct{ path, deadline string }{
		{"jobs/a.md", "March 10, 2026"}, {"jobs/b.md", "2026-02-20"}, {"jobs/c.md", "2026-04-05"}, {"jobs/d.md", "2026-03-20"}, {"jobs/e.md", "TBD"},
	} {
		built, _ := vault.BuildNote(vault.Note{FilePath: r.path, Source: kb.SourceVault, Visibility: kb.Public, Hash: r.path,
			Text: "---\ncategory: job_application\ndeadline: " + r.deadline + "\n---\n# Application\n\nCover letter sent.\n"}, 400, 0)
		chunks = append(chunks, built...)
	}
	if err := f.eng.Store.Ingest(context.Background(), nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	out := queryRecords(t, f, local, map[string]any{"category": "job_application", "field": "deadline", "from": "2026-03-01", "sort": "date_desc"})
	var got []string
	for _, line := range strings.Split(out, "\n") {
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			if strings.Contains(line, "jobs/"+name+".md") {
				got = append(got, name)
			}
		}
	}
	if strings.Join(got, " ") != "c d a" {
		t.Fatalf("deadlines from March 1, latest first (c, d, a):\n%s", out)
	}
}
