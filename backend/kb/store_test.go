package kb

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Vectors here are tiny hand-made ones: these tests cover the store's and
// index's bookkeeping (pure logic), not embedding quality.
var model = ModelInfo{ID: "test/model", Dims: 3}

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
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

// commitVecs commits chunks with vectors of the test model.
func commitVecs(t *testing.T, s *Store, chunks []Chunk, replace *Filter) {
	t.Helper()
	if err := s.commit(chunks, replace, model); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, s *Store) int {
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM chunks`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestOpenCreatesPrivateDirWithoutAnyModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rag")
	s := open(t, dir)
	st, _ := os.Stat(dir)
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("rag dir mode %v", st.Mode().Perm())
	}
	ctx := context.Background()
	m, err := s.Models(ctx)
	if err != nil || !m.Active.IsZero() || !m.Target.IsZero() {
		t.Fatalf("a new store has no model: %+v %v", m, err)
	}
	// Chunks go in and are found by keyword with no model at all.
	if err := s.Commit([]Chunk{note("a.md", "the landlord kept the deposit", Private, nil)}, ""); err != nil {
		t.Fatal(err)
	}
	hits, err := s.BM25(ctx, "landlords deposits", Filter{}, 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("keyword search without a model: %v %+v", err, hits)
	}
	// The first model to store vectors is adopted; another model starts a
	// switch instead of being refused.
	if m, err = s.UseModel(ctx, model); err != nil || !sameModel(m.Active, model) {
		t.Fatalf("adopt: %+v %v", m, err)
	}
	other := ModelInfo{ID: "other/model", Dims: 384}
	if m, err = s.UseModel(ctx, other); err != nil || !sameModel(m.Active, model) || !sameModel(m.Target, other) {
		t.Fatalf("switch: %+v %v", m, err)
	}
	s.Close()
	s2 := open(t, dir) // reopening keeps the record
	if m, _ := s2.Models(ctx); !sameModel(m.Target, other) {
		t.Fatalf("reopened: %+v", m)
	}
	if m, err := s2.UseModel(ctx, model); err != nil || !m.Target.IsZero() {
		t.Fatalf("switching back cancels the switch: %+v %v", m, err)
	}
}

func TestCommitBumpsGenerationAndReplacesSource(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	g0, _ := s.Generation(ctx)
	commitVecs(t, s, []Chunk{note("a.md", "one", Public, []float32{1, 0, 0}), note("a.md", "two", Public, []float32{0, 1, 0})}, nil)
	commitVecs(t, s, []Chunk{note("a.md", "three", Public, []float32{0, 0, 1})}, &Filter{Source: "a.md"})
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
	commitVecs(t, s, []Chunk{note("a.md", "original", Public, []float32{1, 0, 0})}, nil)
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
	if err := s.commit([]Chunk{note("b", "x", Public, []float32{1})}, nil, model); !errs.Is(err, errs.Invalid) {
		t.Fatalf("wrong dims: %v", err)
	}
	if err := s.Commit([]Chunk{note("b", "x", Public, []float32{1, 0, 0})}, ""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a vector without its model: %v", err)
	}
}

// denseIDs syncs s's index with the test model and returns the ids of the
// k nearest vectors inside f.
func denseIDs(t *testing.T, s *Store, q []float32, f Filter, k int) []int64 {
	return denseRanked(t, s, model, q, f, k)
}

func TestSecondHandleSeesNewWritesWithoutRestart(t *testing.T) {
	dir := t.TempDir()
	writer, reader := open(t, dir), open(t, dir)
	ctx := context.Background()
	if got := denseIDs(t, reader, []float32{1, 0, 0}, Filter{}, 5); len(got) != 0 {
		t.Fatal(got)
	}
	commitVecs(t, writer, []Chunk{note("a.md", "alpha", Public, []float32{1, 0, 0})}, nil)
	if got := denseIDs(t, reader, []float32{1, 0, 0}, Filter{}, 5); len(got) != 1 {
		t.Fatalf("after insert: %v", got)
	}
	// The writer rewrites the note (delete + insert): the reader must drop
	// the old id and pick up the new one, never serving a deleted chunk.
	commitVecs(t, writer, []Chunk{note("a.md", "alpha v2", Public, []float32{0, 1, 0})}, &Filter{Source: "a.md"})
	ids := denseIDs(t, reader, []float32{0, 1, 0}, Filter{}, 5)
	if n, v := reader.Index().Len(); n != 1 || v != 1 || len(ids) != 1 {
		t.Fatalf("len=%d vectors=%d hits=%v", n, v, ids)
	}
	got, _ := reader.Chunks(ctx, ids)
	if got[0].Content != "alpha v2" {
		t.Fatalf("stale chunk served: %q", got[0].Content)
	}
	// A metadata change in the writer (a note made private) reaches the
	// reader's pool before its next search.
	if _, err := writer.UpdateFields(ctx, Filter{Source: "a.md"}, map[string]any{"visibility": Private}); err != nil {
		t.Fatal(err)
	}
	if ids := denseIDs(t, reader, []float32{0, 1, 0}, Filter{Visibility: []string{Public}}, 5); len(ids) != 0 {
		t.Fatalf("a note made private is still in the public pool: %v", ids)
	}
	if hits, _ := reader.BM25(ctx, "alpha", Filter{Visibility: []string{Private}}, 5); len(hits) != 1 {
		t.Fatalf("the private note keeps its terms: %+v", hits)
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
	commitVecs(t, s, []Chunk{pub, priv, other}, nil)
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
	for _, id := range denseIDs(t, s, []float32{1, 0, 0}, Filter{Visibility: []string{Public}}, 10) {
		got, _ := s.Chunks(ctx, []int64{id})
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

// Keyword statistics come from the filtered pool: private notes that share
// the query's words change nothing in a public-only ranking, not even the
// scores.
func TestPrivateChunksDoNotMovePublicScores(t *testing.T) {
	ctx := context.Background()
	public := []Chunk{
		note("a.md", "grant budget for the protein lab", Public, nil),
		note("b.md", "protein folding notes", Public, nil),
		note("c.md", "budget spreadsheet", Public, nil),
	}
	alone := open(t, t.TempDir())
	if err := alone.Commit(public, ""); err != nil {
		t.Fatal(err)
	}
	mixed := open(t, t.TempDir())
	var withPrivate []Chunk
	for i := range 50 {
		withPrivate = append(withPrivate, note(fmt.Sprintf("private/%d.md", i), "budget budget protein secret", Private, nil))
	}
	if err := mixed.Commit(append(withPrivate, public...), ""); err != nil {
		t.Fatal(err)
	}
	f := Filter{Visibility: []string{Public}}
	a, err1 := alone.BM25(ctx, "protein budget", f, 10)
	b, err2 := mixed.BM25(ctx, "protein budget", f, 10)
	if err1 != nil || err2 != nil || len(a) != 3 || len(a) != len(b) {
		t.Fatalf("%v %v %d %d", err1, err2, len(a), len(b))
	}
	for i := range a {
		if a[i].Chunk.Content != b[i].Chunk.Content || a[i].Score != b[i].Score {
			t.Fatalf("rank %d: %q %.6f vs %q %.6f", i, a[i].Chunk.Content, a[i].Score, b[i].Chunk.Content, b[i].Score)
		}
	}
}

// Candidates are rescored on the store's float vectors: in float order,
// with float scores, and a candidate whose chunk was deleted after the
// index synced is left out rather than served.
func TestRescoreReadsTheStoresVectors(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	commitVecs(t, s, []Chunk{
		note("a.md", "alpha", Public, []float32{0.6, 0.8, 0}),
		note("b.md", "beta", Public, []float32{1, 0, 0}),
		note("c.md", "gamma", Public, []float32{0, 0, 1}),
	}, nil)
	ix := s.Index()
	if err := ix.Sync(ctx, s, model); err != nil {
		t.Fatal(err)
	}
	q := normalise([]float32{1, 0.2, 0})
	ix.mu.RLock()
	cands := []scored{{row: 0}, {row: 1}, {row: 2}} // any order, any approximate score
	ids := ix.ids(cands)
	ix.mu.RUnlock()
	top, got, err := s.rescore(ctx, model, q, cands, ids, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{ids[1], ids[0], ids[2]}; !slices.Equal(got, want) {
		t.Fatalf("rescored %v, want %v", got, want)
	}
	if want := dot(normalise([]float32{0.6, 0.8, 0}), q); top[1].score != want {
		t.Fatalf("score %v, want the float cosine %v", top[1].score, want)
	}
	if n, err := s.DeleteWhere(ctx, Filter{Source: "b.md"}); err != nil || n != 1 {
		t.Fatalf("delete: %d, %v", n, err)
	}
	if _, got, err = s.rescore(ctx, model, q, cands, ids, 3); err != nil || !slices.Equal(got, []int64{ids[0], ids[2]}) {
		t.Fatalf("after the delete: %v, %v (want %v)", got, err, []int64{ids[0], ids[2]})
	}
}

// More candidates than one query may bind are read in slices; vectors of
// another model are never read.
func TestRescoreManyCandidatesOfTheSearchedModelOnly(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	const n = 2*rescoreBatch + 500
	chunks := make([]Chunk, n)
	for i := range chunks {
		a := float64(i) / n * math.Pi / 2
		chunks[i] = note(fmt.Sprintf("n%d.md", i), "x", Public, []float32{float32(math.Cos(a)), float32(math.Sin(a)), 0})
	}
	commitVecs(t, s, chunks, nil)
	ix := s.Index()
	if err := ix.Sync(ctx, s, model); err != nil {
		t.Fatal(err)
	}
	ix.mu.RLock()
	cands := make([]scored, 0, n)
	for r := range ix.rows {
		cands = append(cands, scored{row: int32(r)})
	}
	ids := ix.ids(cands)
	ix.mu.RUnlock()
	q := []float32{0, 1, 0} // nearest: the last chunks written
	_, got, err := s.rescore(ctx, model, q, cands, ids, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{ids[n-1], ids[n-2], ids[n-3]}; !slices.Equal(got, want) {
		t.Fatalf("rescored %v, want %v", got, want)
	}
	if _, got, err = s.rescore(ctx, ModelInfo{ID: "another", Dims: 3}, q, cands, ids, 3); err != nil || len(got) != 0 {
		t.Fatalf("another model's rescoring read %v, %v", got, err)
	}
}
