package kb

import (
	"context"
	"reflect"
	"slices"
	"testing"
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
