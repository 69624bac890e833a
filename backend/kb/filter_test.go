package kb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The in-memory pool (what ranking is confined to) must be exactly the SQL
// predicate's pool (what listing, deletion and the privacy rules use).
// Generated rows and filters over a small value space make collisions,
// empty values and near-misses (tag "remote" vs "remote-first") common.
func TestInMemoryFilterEqualsSQLFilter(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	var chunks []Chunk
	for i := range 300 {
		c := note(pick("a.md", "b.md", "private/c.md"), fmt.Sprintf("text %d", i), pick(Public, Private), nil)
		c.Meta.DocType = pick(DocNote, DocChat, DocDigest)
		c.Meta.FilePath = pick("", "a.md", "x/y.md")
		c.Meta.AnnotationKind = pick("", "highlight", "comment")
		c.Meta.Category, c.Meta.Status, c.Meta.Entity = pick("", "job"), pick("", "applied", "rejected"), pick("", "Acme", "acme")
		c.Meta.Tags = EncodeTags([]string{pick("", "remote", "remote-first"), pick("", "ml")})
		if r.IntN(2) == 0 {
			c.Meta.Extra = map[string]string{"x_venue": pick("NeurIPS", "ICML"), "x_" + pick("a", "b"): "1"}
			if r.IntN(2) == 0 {
				c.Meta.Extra[CollectionsField] = pick("Lab", "Lab/Reviews", "lab/reviews; Reading", "Laboratory", "Reading/Lab", "Old Lab; Lab/Reviews/2026")
			}
			if r.IntN(2) == 0 {
				c.Meta.Extra[YearField] = pick("2019", "2020", "2021", "20x1", "", "999")
			}
		}
		chunks = append(chunks, c)
	}
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	ix := s.Index()
	if err := ix.Sync(ctx, s, ModelInfo{}); err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		f := Filter{}
		if r.IntN(2) == 0 {
			f.Visibility = []string{pick(Public, Private)}
		}
		if r.IntN(2) == 0 {
			f.DocTypes = []string{pick(DocNote, DocChat), pick(DocDigest, DocPaper)}
		}
		if r.IntN(3) == 0 {
			f.AnnotationKind = pick("highlight", "comment")
		}
		if r.IntN(3) == 0 {
			f.Category, f.Status, f.Entity = pick("", "job"), pick("", "applied"), pick("", "Acme")
		}
		if r.IntN(3) == 0 {
			f.Source, f.FilePath = pick("", "a.md", "private/c.md"), pick("", "a.md", "x/y.md")
		}
		if r.IntN(3) == 0 {
			f.Tags = []string{pick("remote", " remote ", "ml", "remote-first")}
		}
		if r.IntN(3) == 0 {
			f.Fields = map[string]string{"x_venue": pick("NeurIPS", "ICML"), "x_a": pick("1", "2")}
		}
		if r.IntN(3) == 0 {
			f.Collection = pick("Lab", "lab/Reviews", " /Reading/ ", "Reviews", "La", "Lab/Reviews/2026")
		}
		if r.IntN(3) == 0 {
			f.Contains = map[string]string{pick("x_venue", "entity", "status", "x_a", CollectionsField): pick("neur", "ACM", "cme", "ICML", "lied", "Lab/", "1", "")}
		}
		if r.IntN(3) == 0 {
			f.YearFrom, f.YearTo = []int{0, 2020, 2021}[r.IntN(3)], []int{0, 2020, 2021}[r.IntN(3)]
		}
		where, args, err := f.where()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.db.Query(`SELECT c.id FROM chunks c WHERE `+where+` ORDER BY c.id`, args...)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			want = append(want, id)
		}
		rows.Close()
		ix.mu.RLock()
		p := ix.poolOf(f)
		var got []int64
		for row := range ix.rows {
			if p.rows.has(int32(row)) {
				got = append(got, ix.rows[row].id)
			}
		}
		ix.mu.RUnlock()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("filter %d %+v: memory %v, SQL %v", i, f, got, want)
		}
	}
}

// What the collection and year filters mean: a collection holds what is
// filed in it and in the collections under it; years are inclusive.
func TestCollectionAndYearFilters(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	paper := func(source, collections, year string) Chunk {
		c := note(source, "text of "+source, Public, nil)
		c.Meta.Extra = map[string]string{CollectionsField: collections, YearField: year}
		return c
	}
	if err := s.Commit([]Chunk{paper("a", "Lab/Reviews; Reading", "2019"), paper("b", "Laboratory", "2021"), paper("c", "Reading/Lab", "2020"), note("d", "no fields", Public, nil)}, ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{Filter{Collection: "lab"}, []string{"a"}},
		{Filter{Collection: "Lab/Reviews/"}, []string{"a"}},
		{Filter{Collection: "Reading"}, []string{"a", "c"}},
		{Filter{Collection: "Reviews"}, nil},
		{Filter{YearFrom: 2020}, []string{"b", "c"}},
		{Filter{YearTo: 2020}, []string{"a", "c"}},
		{Filter{YearFrom: 2020, YearTo: 2020}, []string{"c"}},
		{Filter{Collection: "Reading", YearFrom: 2020}, []string{"c"}},
	} {
		docs, err := s.List(ctx, tc.f, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.Source)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.f, got, tc.want)
		}
	}
}

// A filter naming one file is answered through the file-path index, even
// when it also names a visibility and a doc type (the composite pool
// index SQLite would otherwise prefer). Indexing a vault checks each note
// with such a filter; through the pool index every check scanned every
// public note, and a 20,000-note vault indexed at 5 notes/s by the end.
func TestAOneFileFilterSearchesTheFileIndex(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	f := Filter{Source: SourceVault, FilePath: "a.md", DocTypes: []string{DocNote}, Visibility: []string{Public}}
	where, args, err := f.where()
	if err != nil {
		t.Fatal(err)
	}
	cond, cargs := Stored{ContentHash: "h", MetaSchema: 3, Visibility: Public}.predicate()
	for _, q := range []string{
		`SELECT 1 FROM chunks AS c WHERE ` + where,
		`SELECT 1 FROM chunks AS c WHERE (` + where + `) AND ` + cond,
	} {
		all := append(slices.Clone(args), cargs...)[:strings.Count(q, "?")]
		rows, err := s.db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, all...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if len(plan) != 1 || !strings.Contains(plan[0], "USING INDEX chunks_file") {
			t.Errorf("%s\nplan: %q", q, plan)
		}
	}
	// And it still selects exactly the rows it names.
	var chunks []Chunk
	for _, p := range []string{"a.md", "b.md", "a.md"} {
		c := note(p, "text of "+p, Public, nil)
		c.Meta.Source = SourceVault
		chunks = append(chunks, c)
	}
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	n, err := s.CountWhere(ctx, f)
	if err != nil || n.Chunks != 2 {
		t.Fatalf("counts = %+v, %v", n, err)
	}
}
