package kbtools

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// deadlineKB is a vault of applications whose deadlines are written the
// ways people write them: ISO, "March 10, 2026", 15/03/2026, a daily-note
// link, and "TBD"; one is private; and a priority that is a number.
func deadlineKB(t *testing.T) *KB {
	t.Helper()
	note := func(deadline, priority string) string {
		return "---\ncategory: job_application\ndeadline: " + deadline + "\npriority: " + priority + "\n---\n# Application\n\nCover letter sent.\n"
	}
	return vaultKB(t, t.TempDir(), map[string]string{
		"jobs/acme.md":      note("March 10, 2026", "2"),
		"jobs/borealis.md":  note("2026-02-20", "1"),
		"jobs/cygnus.md":    note("2026-04-05", "3"),
		"jobs/dorado.md":    note(`"15/03/2026"`, "5"),
		"jobs/eridanus.md":  note("TBD", "4"),
		"jobs/fornax.md":    note(`"[[2026-03-25]]"`, "6"),
		"private/gemini.md": note("2026-03-20", "7"),
	}, 400)
}

// names lists the documents' file names without folder and extension.
func names(docs []kb.DocumentSummary) string {
	var out []string
	for _, d := range docs {
		name := d.FilePath[strings.LastIndex(d.FilePath, "/")+1:]
		out = append(out, strings.TrimSuffix(name, ".md"))
	}
	return strings.Join(out, " ")
}

// A frontmatter field's dates are normalised when the vault is indexed, so
// records bound and sort by them whatever way each note wrote its date: a
// deadline of "March 10, 2026" falls in March and sorts among the ISO
// ones, "TBD" is undated (last, and outside every bound), and a cloud
// caller's list has no private record. Compared as written, "March 10,
// 2026" and "TBD" would sort after every 2026-… and pass any --since.
func TestQueryRecordsComparesAFieldsDatesHoweverTheyAreWritten(t *testing.T) {
	k, ctx := deadlineKB(t), context.Background()
	f, err := FilterArgs{Kind: "notes", Category: "job_application"}.Filter("test")
	if err != nil {
		t.Fatal(err)
	}
	query := func(c Caller, o kb.ListOptions) string {
		t.Helper()
		o.Field = FieldKey("deadline")
		docs, err := k.Query(ctx, c, f, o)
		if err != nil {
			t.Fatal(err)
		}
		return names(docs)
	}
	local, cloud := Caller{Person: true}, Caller{Cloud: true, Ledger: &ledger{}}
	for _, tc := range []struct {
		what string
		c    Caller
		o    kb.ListOptions
		want string
	}{
		{"since March 1, latest first", local, kb.ListOptions{DateFrom: "2026-03-01", Sort: kb.ByDateDesc}, "cygnus fornax gemini dorado acme"},
		{"until March 15, soonest first", local, kb.ListOptions{DateTo: "2026-03-15", Sort: kb.ByDateAsc}, "borealis acme dorado"},
		{"in March", local, kb.ListOptions{DateFrom: "2026-03", DateTo: "2026-03", Sort: kb.ByDateAsc}, "acme dorado gemini fornax"},
		{"bounds written as the notes write dates", local, kb.ListOptions{DateFrom: "March 11, 2026", DateTo: "March 2026", Sort: kb.ByDateAsc}, "dorado gemini fornax"},
		{"every record, latest first, the undated last", local, kb.ListOptions{Sort: kb.ByDateDesc}, "cygnus fornax gemini dorado acme borealis eridanus"},
		{"a cloud caller: public records only", cloud, kb.ListOptions{DateFrom: "2026-03-01", Sort: kb.ByDateDesc}, "cygnus fornax dorado acme"},
	} {
		if got := query(tc.c, tc.o); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.what, got, tc.want)
		}
	}
	// A field that holds no dates (a number) still sorts as written.
	docs, err := k.Query(ctx, local, f, kb.ListOptions{Field: FieldKey("priority"), Sort: kb.ByDateAsc})
	if err != nil || names(docs) != "borealis acme cygnus eridanus dorado fornax gemini" {
		t.Fatalf("by priority: %v %q", err, names(docs))
	}
}

// The user's text stays what is shown and filtered on: the schema lists
// the field (not Jarvis's companion) with its values as written, and an
// equality filter takes the text the note has.
func TestADateFieldKeepsItsTextAsWritten(t *testing.T) {
	k, ctx := deadlineKB(t), context.Background()
	keys, err := k.Schema(ctx, Caller{Person: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	if keys["x_deadline"] == 0 {
		t.Fatalf("schema lacks the field: %v", keys)
	}
	for key := range keys {
		if strings.HasSuffix(key, "__date") {
			t.Errorf("the schema lists Jarvis's companion %s: %v", key, keys)
		}
	}
	values, err := k.Schema(ctx, Caller{Person: true}, "x_deadline")
	if err != nil || values["March 10, 2026"] == 0 || values["15/03/2026"] == 0 || values["TBD"] == 0 {
		t.Fatalf("values as written: %v %v", err, values)
	}
	f, err := FilterArgs{Fields: map[string]string{"x_deadline": "March 10, 2026"}}.Filter("test")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := k.Query(ctx, Caller{Person: true}, f, kb.ListOptions{})
	if err != nil || names(docs) != "acme" {
		t.Fatalf("deadline = March 10, 2026: %v %q", err, names(docs))
	}
}
