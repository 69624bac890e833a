package kb

import (
	"context"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func paper(source, title, text string) Chunk {
	return Chunk{Content: text, EmbedText: title + "\n" + text, Meta: Metadata{DocType: DocPaper, Visibility: Public, Source: source, Title: title}}
}

func TestListCountsSchemaAndDuplicates(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	n1 := note("local", "job note", Public, nil)
	n1.Meta.FilePath, n1.Meta.Category, n1.Meta.Status = "jobs/acme.md", "job_application", "rejected"
	n1.Meta.Extra = map[string]string{"x_stauts": "typo"}
	n1.Meta.EventDate, n1.Meta.Tags = "2024-03-01", EncodeTags([]string{"remote", "ml"})
	n2 := note("local", "diary", Private, nil)
	n2.Meta.FilePath = "private/diary.md"
	s.Commit([]Chunk{n1, n2, paper("https://arxiv.org/abs/1", "Attention Is All You Need", "a"), paper("https://arxiv.org/abs/1", "Attention Is All You Need", "b")}, "")

	docs, err := s.List(ctx, Filter{}, 0)
	if err != nil || len(docs) != 3 {
		t.Fatalf("notes share source=local and must key on file_path: %v %+v", err, docs)
	}
	for _, d := range docs {
		if d.Key == "jobs/acme.md" && (d.EventDate != "2024-03-01" || len(d.Tags) != 2 || d.Tags[0] != "ml" || d.Tags[1] != "remote") {
			t.Fatalf("a record's listing carries its date and tags: %+v", d)
		}
	}
	c, err := s.Count(ctx)
	if err != nil || c.Chunks != 4 || c.Documents != 3 || c.Private != 1 || c.ByType[DocPaper] != 2 || c.Records["job_application"] != 1 || c.Statuses["rejected"] != 1 {
		t.Fatalf("counts = %+v %v", c, err)
	}
	n3 := note("local", "private job", Private, nil)
	n3.Meta.FilePath, n3.Meta.Category, n3.Meta.Status = "private/offer.md", "secret_offer", "accepted"
	s.Commit([]Chunk{n3}, "")
	pub, err := s.CountWhere(ctx, Filter{Visibility: []string{Public}})
	if err != nil || pub.Chunks != 3 || pub.Documents != 2 || pub.Private != 0 || pub.Records["secret_offer"] != 0 || pub.Statuses["accepted"] != 0 ||
		pub.Records["job_application"] != 1 || pub.ByType[DocNote] != 1 {
		t.Fatalf("public-only counts = %+v %v", pub, err)
	}
	keys, _ := s.KeyCounts(ctx)
	if keys["x_stauts"] != 1 || keys["category"] != 2 {
		t.Fatalf("schema keys = %v", keys)
	}
	vals, _ := s.ValueCounts(ctx, "status")
	if vals["rejected"] != 1 {
		t.Fatalf("values = %v", vals)
	}
	if _, err := s.ValueCounts(ctx, "content; DROP TABLE chunks"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("unknown key: %v", err)
	}
	dups, _ := s.FindDuplicates(ctx, "https://other", "attention is all you need!")
	if len(dups) != 1 || dups[0].Reason != "title" {
		t.Fatalf("normalised title duplicate: %+v", dups)
	}
	dups, _ = s.FindDuplicates(ctx, "https://arxiv.org/abs/1", "")
	if len(dups) != 1 || dups[0].Reason != "source" {
		t.Fatalf("source duplicate: %+v", dups)
	}
}

func TestUpdateAndDeleteAreMetadataOnly(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	n := note("local", "body text", Public, []float32{1, 0, 0})
	n.Meta.FilePath = "notes/a.md"
	commitVecs(t, s, []Chunk{n, paper("doi:1", "Old title", "p")}, nil)
	g0, _ := s.Generation(ctx)
	if k, err := s.UpdateFields(ctx, Filter{FilePath: "notes/a.md"}, map[string]any{"visibility": Private}); err != nil || k != 1 {
		t.Fatalf("%d %v", k, err)
	}
	if g, _ := s.Generation(ctx); g != g0+1 {
		t.Fatal("metadata updates must bump the generation")
	}
	hits, _ := s.BM25(ctx, "body", Filter{Visibility: []string{Private}}, 5)
	if len(hits) != 1 || hits[0].Chunk.Content != "body text" {
		t.Fatal("content must survive a metadata update")
	}
	// Papers stay public whatever is asked.
	if k, _ := s.UpdateFields(ctx, Filter{Source: "doi:1"}, map[string]any{"visibility": Private}); k != 0 {
		t.Fatal("a paper was made private")
	}
	if _, err := s.UpdateFields(ctx, Filter{}, map[string]any{"title": "x"}); !errs.Is(err, errs.Invalid) {
		t.Fatal("an unfiltered update must be refused")
	}
	if _, err := s.UpdateFields(ctx, Filter{Source: "doi:1"}, map[string]any{"content": "x"}); !errs.Is(err, errs.Invalid) {
		t.Fatal("content is not a metadata field")
	}
	if k, err := s.SetPaperMeta(ctx, "doi:1", "Renamed heading", "A. Author", ""); err != nil || k != 1 {
		t.Fatalf("%d %v", k, err)
	}
	// The title is part of what keyword search matches: the new one finds
	// the paper, the old one no longer does.
	if hits, _ := s.BM25(ctx, "renamed", Filter{}, 5); len(hits) != 1 || hits[0].Chunk.Meta.Title != "Renamed heading" {
		t.Fatalf("new title: %+v", hits)
	}
	if hits, _ := s.BM25(ctx, "old", Filter{DocTypes: []string{DocPaper}}, 5); len(hits) != 1 {
		t.Fatalf("the embed text still says Old title: %+v", hits)
	}
	if _, err := s.SetPaperMeta(ctx, "doi:404", "x", "", ""); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing paper: %v", err)
	}
	if k, err := s.DeleteWhere(ctx, Filter{Source: "doi:1"}); err != nil || k != 1 {
		t.Fatalf("%d %v", k, err)
	}
	if _, err := s.DeleteWhere(ctx, Filter{Source: ""}); !errs.Is(err, errs.Invalid) {
		t.Fatal("empty value delete must be refused")
	}
}

// SourceHashes lists one hash per document under a source prefix and
// nothing outside it, even when the prefix holds LIKE's wildcards.
func TestSourceHashesByPrefix(t *testing.T) {
	s := open(t, t.TempDir())
	a1, a2 := paper("zotero://select/library/items/AAAA2345", "A", "one"), paper("zotero://select/library/items/AAAA2345", "A", "two")
	a1.Meta.ContentHash, a2.Meta.ContentHash = "h-a", "h-a"
	b := paper("zotero://select/library/items/BBBB2345", "B", "three")
	b.Meta.ContentHash = "h-b"
	other := paper("zoteroXselect/library/items/CCCC2345", "C", "four") // would match a LIKE on "zotero_"
	other.Meta.ContentHash = "h-c"
	s.Commit([]Chunk{a1, a2, b, other, paper("https://arxiv.org/abs/1", "D", "five")}, "")
	got, err := s.SourceHashes(context.Background(), "zotero://select/library/items/")
	if err != nil || len(got) != 2 || got["zotero://select/library/items/AAAA2345"] != "h-a" || got["zotero://select/library/items/BBBB2345"] != "h-b" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := s.SourceHashes(context.Background(), ""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("an empty prefix would list everything: %v", err)
	}
}
