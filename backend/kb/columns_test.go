package kb

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// The column table is the chunks table: every column the schema (with its
// migrations) creates is mapped, except the ones the store fills itself,
// and a chunk with every field set comes back as it went in.
func TestColumnTableMatchesTheSchema(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.db.Query(`SELECT name FROM pragma_table_info('chunks') ORDER BY cid`)
	if err != nil {
		t.Fatal(err)
	}
	var schema []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		if n != "id" && n != "lex" && n != "rev" {
			schema = append(schema, n)
		}
	}
	rows.Close()
	if !slices.Equal(schema, columnNames) {
		t.Fatalf("schema %v\ntable  %v", schema, columnNames)
	}

	score := 7
	in := Chunk{Content: "body", EmbedText: "header\n\nbody", Meta: Metadata{DocType: DocPaper, Visibility: Public, Source: "arxiv:1", Title: "T",
		Authors: "A", DOI: "10.1/x", Score: &score, Track: "t", StorageMode: "full_text", FilePath: "/p.pdf", ContentHash: "h", ChunkIndex: 0,
		Section: "S", ModifiedAt: "m", MetaSchema: 3, DateAdded: "d", Category: "c", Status: "st", Entity: "e", EventDate: "2026-01-02",
		Tags: "|a|", AnnotationKind: "highlight", Page: 4, NoteText: "n", Extra: map[string]string{"x_year": "2021"}}}
	if err := s.Ingest(context.Background(), nil, []Chunk{in}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Document(context.Background(), Filter{Source: "arxiv:1"})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	out := got[0]
	out.ID, out.Meta.DateAdded = 0, in.Meta.DateAdded // the store stamps these
	if !reflect.DeepEqual(out.Meta, in.Meta) || out.Content != in.Content || out.EmbedText != in.EmbedText {
		t.Fatalf("round trip:\n in %+v\nout %+v", in, out)
	}
}

// Chunks and search hits (read packed into one column) hold every field
// exactly as a column-by-column read does, also when a value holds the
// packing separator, a score is NULL or a chunk has no extras.
func TestChunksReadEveryFieldAsStored(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	score, negative := 7, -2
	full := Metadata{DocType: DocNote, Visibility: Public, Source: "local", Title: "T", Authors: "A", DOI: "10.1/x", Score: &score,
		Track: "t", StorageMode: "full_text", FilePath: "full.md", ContentHash: "h", ChunkIndex: 3, Section: "S", ModifiedAt: "m",
		MetaSchema: 3, DateAdded: "d", Category: "c", Status: "st", Entity: "e", EventDate: "2026-01-02", Tags: "|a|",
		AnnotationKind: "highlight", Page: 4, NoteText: "n", Extra: map[string]string{"x_year": "2021", "x_sep": "a\x1fb"}}
	bare := Metadata{DocType: DocNote, Visibility: Private, Source: "local", FilePath: "bare.md"}
	chunks := []Chunk{
		{Content: "zeta full", EmbedText: "header\n\nzeta full", Meta: full},
		{Content: "zeta bare", EmbedText: "zeta bare", Meta: bare},
		{Content: "zeta in\x1fside", EmbedText: "zeta last\x1f", Meta: Metadata{DocType: DocNote, Visibility: Public, Source: "local",
			FilePath: "sep.md", Title: "\x1f", Score: &negative}},
		{Content: "zeta ünïcödé 日本 \x00 nul", EmbedText: "zeta \x1e\x1f\x1f", Meta: Metadata{DocType: DocNote, Visibility: Public,
			Source: "local", FilePath: "odd.md", Section: "a › b"}},
	}
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	stored, err := s.Document(ctx, Filter{Source: "local"}) // scanned column by column
	if err != nil || len(stored) != len(chunks) {
		t.Fatalf("%d %v", len(stored), err)
	}
	ids := make([]int64, len(stored))
	for i, c := range stored {
		ids[i] = c.ID
	}
	got, err := s.Chunks(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, stored) {
		t.Fatalf("Chunks:\n got %+v\nwant %+v", got, stored)
	}
	for range 2 { // read from the store, then from the hit cache
		hits, err := s.BM25(ctx, "zeta", Filter{}, 10)
		if err != nil || len(hits) != len(chunks) {
			t.Fatalf("%d hits, %v", len(hits), err)
		}
		for _, h := range hits {
			i := slices.Index(ids, h.Chunk.ID)
			if !reflect.DeepEqual(h.Chunk, stored[i]) {
				t.Fatalf("hit:\n got %+v\nwant %+v", h.Chunk, stored[i])
			}
		}
	}
	for _, c := range chunks {
		i := slices.IndexFunc(stored, func(s Chunk) bool { return s.Meta.FilePath == c.Meta.FilePath })
		if i < 0 || c.Content != stored[i].Content || c.EmbedText != stored[i].EmbedText || c.Meta.Title != stored[i].Meta.Title {
			t.Fatalf("%s came back as %+v", c.Meta.FilePath, stored)
		}
	}
}

// A listing's title option keeps documents whose title or key holds the
// text, folded as Go folds case, before the limit is applied.
func TestListByTitle(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	var chunks []Chunk
	for i, d := range []struct{ title, path string }{{"Über die Aufmerksamkeit", "papers/a.md"}, {"Sparse attention", "notes/ueber-sparse.md"}, {"Tomatoes", "garden/t.md"}} {
		for j := 0; j <= i; j++ {
			chunks = append(chunks, Chunk{Content: d.title, EmbedText: d.title, Meta: Metadata{DocType: DocNote, Visibility: Public, Source: SourceVault, FilePath: d.path, Title: d.title, ChunkIndex: j}})
		}
	}
	if err := s.Ingest(ctx, nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	for title, want := range map[string][]string{
		"über": {"papers/a.md"}, "ÜBER": {"papers/a.md"}, "ueber": {"notes/ueber-sparse.md"}, "attention": {"notes/ueber-sparse.md"},
		" ": {"garden/t.md", "notes/ueber-sparse.md", "papers/a.md"}, "nothing": nil,
	} {
		docs, err := s.ListWith(ctx, Filter{}, ListOptions{Title: title, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range docs {
			got = append(got, d.Key)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("title %q: %v, want %v", title, got, want)
		}
	}
	// Applied before the limit: the one match is found even when one
	// document is listed.
	if docs, _ := s.ListWith(ctx, Filter{}, ListOptions{Title: "über", Limit: 1}); len(docs) != 1 || docs[0].Key != "papers/a.md" {
		t.Fatalf("limit 1: %+v", docs)
	}
}

// A listing says, per document, its year, when it was first added and how
// many highlights and notes it holds (figure captions are not notes), and
// Annotated keeps only documents with at least one.
func TestListCountsAnnotationsAndKeepsTheAnnotated(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	paper := func(src, kind string, i int, year string) Chunk {
		return Chunk{Content: src + kind, EmbedText: src + kind, Meta: Metadata{DocType: DocPaper, Visibility: Public, Source: src, Title: src,
			ChunkIndex: i, AnnotationKind: kind, Extra: map[string]string{"x_year": year}}}
	}
	chunks := []Chunk{
		paper("arxiv:1", "", 0, "2019"), paper("arxiv:1", "highlight", 1, "2019"), paper("arxiv:1", "comment", 2, "2019"), paper("arxiv:1", "figure", 3, "2019"),
		paper("arxiv:2", "", 0, "2024"), paper("arxiv:2", "figure", 1, "2024"),
	}
	if err := s.Ingest(ctx, nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	docs, err := s.ListWith(ctx, Filter{}, ListOptions{})
	if err != nil || len(docs) != 2 {
		t.Fatalf("%v %+v", err, docs)
	}
	byKey := map[string]DocumentSummary{docs[0].Key: docs[0], docs[1].Key: docs[1]}
	if d := byKey["arxiv:1"]; d.Annotations != 2 || d.Year != "2019" || d.Added == "" || d.Chunks != 4 {
		t.Fatalf("arxiv:1 %+v", d)
	}
	if d := byKey["arxiv:2"]; d.Annotations != 0 || d.Year != "2024" {
		t.Fatalf("arxiv:2 %+v", d)
	}
	docs, err = s.ListWith(ctx, Filter{}, ListOptions{Annotated: true})
	if err != nil || len(docs) != 1 || docs[0].Key != "arxiv:1" {
		t.Fatalf("annotated only: %v %+v", err, docs)
	}
}

// A listing sorts and bounds by any frontmatter field, not only the
// record's date: applications by their deadline, say. Documents without
// the field go last in either order, and are left out by a bound.
func TestListSortsAndBoundsByAnyField(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	var chunks []Chunk
	for path, deadline := range map[string]string{"jobs/a.md": "2026-05-01", "jobs/b.md": "2026-03-15", "jobs/c.md": "", "jobs/d.md": "2026-04-02"} {
		extra := map[string]string{}
		if deadline != "" {
			extra["x_deadline"] = deadline
		}
		chunks = append(chunks, Chunk{Content: path, EmbedText: path, Meta: Metadata{DocType: DocNote, Visibility: Public, Source: SourceVault, FilePath: path,
			Category: "application", EventDate: "2026-01-01", Extra: extra}})
	}
	if err := s.Ingest(ctx, nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	keys := func(o ListOptions) string {
		t.Helper()
		docs, err := s.ListWith(ctx, Filter{}, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range docs {
			out = append(out, d.Key)
		}
		return strings.Join(out, " ")
	}
	if got := keys(ListOptions{Field: "x_deadline", Sort: ByDateAsc}); got != "jobs/b.md jobs/d.md jobs/a.md jobs/c.md" {
		t.Errorf("by deadline, soonest first: %s", got)
	}
	if got := keys(ListOptions{Field: "x_deadline", Sort: ByDateDesc}); got != "jobs/a.md jobs/d.md jobs/b.md jobs/c.md" {
		t.Errorf("by deadline, latest first: %s", got)
	}
	if got := keys(ListOptions{Field: "x_deadline", Sort: ByDateAsc, DateFrom: "2026-04", DateTo: "2026-04-30"}); got != "jobs/d.md" {
		t.Errorf("deadlines in April: %s", got)
	}
	if _, err := s.ListWith(ctx, Filter{}, ListOptions{Field: "x_deadline') --", Sort: ByDateAsc}); !errs.Is(err, errs.Invalid) {
		t.Errorf("a field that is not a key was accepted: %v", err)
	}
}
