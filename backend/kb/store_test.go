package kb

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Vectors here are tiny hand-made ones: these tests cover the store's and
// index's bookkeeping (pure logic), not embedding quality.
var model = ModelInfo{ID: "test/model", Dims: 3}

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir, model)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func note(source, text, visibility string, vec []float32) Chunk {
	return Chunk{Content: text, EmbedText: text, Vector: vec,
		Meta: Metadata{DocType: DocNote, Visibility: visibility, Source: source, FilePath: source}}
}

func count(t *testing.T, s *Store) int {
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM chunks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenCreatesPrivateDirAndGuardsModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rag")
	s := open(t, dir)
	st, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("rag dir mode %v", st.Mode().Perm())
	}
	s.Close()
	_, err := Open(dir, ModelInfo{ID: "other/model", Dims: 384})
	if !errs.Is(err, errs.RAG) || errs.HintOf(err) == "" {
		t.Fatalf("model mismatch must refuse and name reindex: %v", err)
	}
}

func TestCommitBumpsGenerationAndReplacesSource(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	g0, _ := s.Generation(ctx)
	if err := s.Commit([]Chunk{note("a.md", "one", Public, []float32{1, 0, 0}), note("a.md", "two", Public, []float32{0, 1, 0})}, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit([]Chunk{note("a.md", "three", Public, []float32{0, 0, 1})}, "a.md"); err != nil {
		t.Fatal(err)
	}
	g2, _ := s.Generation(ctx)
	if g2 != g0+2 || count(t, s) != 1 {
		t.Fatalf("generation %d -> %d, rows %d", g0, g2, count(t, s))
	}
	// An empty commit with replaceSource still supersedes the old entry.
	if err := s.Commit(nil, "a.md"); err != nil || count(t, s) != 0 {
		t.Fatalf("empty replace: %v rows=%d", err, count(t, s))
	}
}

func TestFailedCommitLeavesStoreUnchanged(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	if err := s.Commit([]Chunk{note("a.md", "original", Public, []float32{1, 0, 0})}, ""); err != nil {
		t.Fatal(err)
	}
	g1, _ := s.Generation(ctx)
	s.failAfterInserts = 1
	err := s.Commit([]Chunk{note("a.md", "new 1", Public, nil), note("a.md", "new 2", Public, nil)}, "a.md")
	if !errs.Is(err, errs.RAG) {
		t.Fatalf("expected injected failure, got %v", err)
	}
	s.failAfterInserts = 0
	hits, _ := s.BM25(ctx, "original", Filter{}, 10)
	if count(t, s) != 1 || len(hits) != 1 || hits[0].Chunk.Content != "original" {
		t.Fatal("a failed replace must keep the old entry and add nothing")
	}
	if g, _ := s.Generation(ctx); g != g1 {
		t.Fatal("a failed commit must not bump the generation")
	}
	// Bad input is refused before the transaction starts.
	paper := note("p", "x", Private, nil)
	paper.Meta.DocType = DocPaper
	if err := s.Commit([]Chunk{paper}, ""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("private paper: %v", err)
	}
	if err := s.Commit([]Chunk{note("b", "x", Public, []float32{1})}, ""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("wrong dims: %v", err)
	}
}

func TestSecondHandleSeesNewWritesWithoutRestart(t *testing.T) {
	dir := t.TempDir()
	writer, reader := open(t, dir), open(t, dir)
	ctx := context.Background()
	idx := NewDenseIndex()
	if err := idx.Sync(ctx, reader); err != nil || idx.Len() != 0 {
		t.Fatal(err)
	}
	writer.Commit([]Chunk{note("a.md", "alpha", Public, []float32{1, 0, 0})}, "")
	if err := idx.Sync(ctx, reader); err != nil || idx.Len() != 1 {
		t.Fatalf("after insert: %v len=%d", err, idx.Len())
	}
	// The writer rewrites the note (delete + insert): the reader must drop
	// the old id and pick up the new one, never serving a deleted chunk.
	writer.Commit([]Chunk{note("a.md", "alpha v2", Public, []float32{0, 1, 0})}, "a.md")
	if err := idx.Sync(ctx, reader); err != nil {
		t.Fatal(err)
	}
	pool, _ := reader.PoolIDs(ctx, Filter{})
	hits := idx.Search([]float32{0, 1, 0}, pool, 5)
	if idx.Len() != 1 || len(hits) != 1 {
		t.Fatalf("len=%d hits=%+v", idx.Len(), hits)
	}
	got, _ := reader.Chunks(ctx, []int64{hits[0].Chunk.ID})
	if got[0].Content != "alpha v2" {
		t.Fatalf("stale chunk served: %q", got[0].Content)
	}
}

func TestPoolFilterIsAppliedBeforeRanking(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	pub := note("notes/jobs.md", "Acme interview went well", Public, []float32{1, 0, 0})
	pub.Meta.Category, pub.Meta.Status, pub.Meta.Tags = "job_application", "rejected", EncodeTags([]string{"remote"})
	pub.Meta.Extra = map[string]string{"x_venue": "NeurIPS"}
	priv := note("private/diary.md", "Acme interview diary entry", Private, []float32{1, 0, 0})
	other := note("notes/other.md", "Acme remote-first policy", Public, []float32{0, 1, 0})
	other.Meta.Tags = EncodeTags([]string{"remote-first"})
	if err := s.Commit([]Chunk{pub, priv, other}, ""); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		f    Filter
		want []string
	}{
		{"public only", Filter{Visibility: []string{Public}}, []string{"notes/jobs.md", "notes/other.md"}},
		{"record status", Filter{Status: "rejected"}, []string{"notes/jobs.md"}},
		{"tags exact", Filter{Tags: []string{"remote"}}, []string{"notes/jobs.md"}},
		{"x_ field", Filter{Fields: map[string]string{"x_venue": "NeurIPS"}}, []string{"notes/jobs.md"}},
		{"doc type list", Filter{DocTypes: []string{DocPaper, DocDigest}}, nil},
	}
	for _, c := range cases {
		hits, err := s.BM25(ctx, "Acme", c.f, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.Chunk.Meta.Source)
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v want %v", c.name, got, c.want)
			continue
		}
		seen := map[string]bool{}
		for _, g := range got {
			seen[g] = true
		}
		for _, w := range c.want {
			if !seen[w] {
				t.Errorf("%s: got %v want %v", c.name, got, c.want)
			}
		}
	}
	// Dense search over a public-only pool never sees the private vector,
	// even though it is the closest match.
	idx := NewDenseIndex()
	idx.Sync(ctx, s)
	pool, _ := s.PoolIDs(ctx, Filter{Visibility: []string{Public}})
	for _, h := range idx.Search([]float32{1, 0, 0}, pool, 10) {
		got, _ := s.Chunks(ctx, []int64{h.Chunk.ID})
		if got[0].Meta.Visibility != Public {
			t.Fatal("private chunk scored outside its pool")
		}
	}
	if _, err := s.BM25(ctx, "x", Filter{Fields: map[string]string{"visibility') OR 1=1 --": "x"}}, 10); !errs.Is(err, errs.Invalid) {
		t.Fatalf("field names are validated: %v", err)
	}
}

func TestBM25QueryIsSafeAndRanksExactTokens(t *testing.T) {
	s := open(t, t.TempDir())
	s.Commit([]Chunk{
		note("a", "The CRISPR-Cas9 screen found BRCA1 hits", Public, nil),
		note("b", "A general note about screens and genes", Public, nil),
	}, "")
	hits, err := s.BM25(context.Background(), `BRCA1 "AND (NOT*`, Filter{}, 10)
	if err != nil {
		t.Fatalf("operators in user text must not break the query: %v", err)
	}
	if len(hits) == 0 || hits[0].Chunk.Meta.Source != "a" {
		t.Fatalf("hits = %+v", hits)
	}
}

func TestRRF(t *testing.T) {
	got := RRF(60, []int64{1, 2, 3}, []int64{3, 1, 4})
	want := []int64{1, 3, 2, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("RRF = %v, want %v", got, want)
		}
	}
}
