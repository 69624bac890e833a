package kb

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// failingEmbedder fails (or cancels) on its n-th call.
type failingEmbedder struct {
	wordEmbedder
	calls, failAt int
	cancel        context.CancelFunc
}

func (f *failingEmbedder) EmbedDocuments(ctx context.Context, ts []string) ([][]float32, error) {
	f.calls++
	if f.calls == f.failAt {
		if f.cancel != nil {
			f.cancel()
			return nil, ctx.Err()
		}
		return nil, errors.New("model crashed")
	}
	return f.wordEmbedder.EmbedDocuments(ctx, ts)
}

func vectorCount(t *testing.T, s *Store, model string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM vectors WHERE model = ?`, model).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestIngestEmbedsAndReplacesAtomically(t *testing.T) {
	emb := wordEmbedder{vocab: []string{"protein", "folding", "budget"}}
	s := open(t, t.TempDir())
	ctx := context.Background()
	doc := []Chunk{note("a.md", "protein folding", Public, nil), note("a.md", "budget", Public, nil)}
	if err := s.Ingest(ctx, emb, doc, &Filter{Source: "a.md"}); err != nil {
		t.Fatal(err)
	}
	if n := vectorCount(t, s, emb.Info().ID); n != 2 {
		t.Fatalf("%d vectors stored", n)
	}
	// A failed embed of the replacement leaves the old document in place.
	bad := &failingEmbedder{wordEmbedder: emb, failAt: 1}
	err := s.Ingest(ctx, bad, []Chunk{note("a.md", "new text", Public, nil)}, &Filter{Source: "a.md"})
	if !errs.Is(err, errs.RAG) {
		t.Fatalf("err = %v", err)
	}
	if n := count(t, s); n != 2 {
		t.Fatalf("failed ingest changed the store: %d chunks", n)
	}
	// A cancelled one is reported as such and also changes nothing.
	cctx, cancel := context.WithCancel(ctx)
	canc := &failingEmbedder{wordEmbedder: emb, failAt: 1, cancel: cancel}
	if err := s.Ingest(cctx, canc, []Chunk{note("a.md", "x", Public, nil)}, &Filter{Source: "a.md"}); !errs.Is(err, errs.Cancelled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	if n := count(t, s); n != 2 {
		t.Fatalf("cancelled ingest changed the store: %d chunks", n)
	}
	// Without an embedder the chunks are stored at once and wait for a
	// vector; an embedder of a model the store does not use stores none.
	if err := s.Ingest(ctx, nil, []Chunk{note("b.md", "pending budget", Public, nil)}, nil); err != nil {
		t.Fatal(err)
	}
	other := namedEmbedder{wordEmbedder{vocab: []string{"x"}}, "test/other"}
	if err := s.Ingest(ctx, other, []Chunk{note("c.md", "other model", Public, nil)}, nil); err != nil {
		t.Fatal(err)
	}
	if p, total, err := s.PendingCount(ctx, emb.Info().ID); err != nil || p != 2 || total != 4 {
		t.Fatalf("pending %d of %d, %v", p, total, err)
	}
	if n := vectorCount(t, s, other.Info().ID); n != 0 {
		t.Fatalf("vectors of an unused model were stored: %d", n)
	}
}

func TestBackfillEmbedsPendingInBatchesAndResumes(t *testing.T) {
	emb := wordEmbedder{vocab: []string{"protein", "folding", "budget"}}
	s := open(t, t.TempDir())
	ctx := context.Background()
	var docs []Chunk
	for range 2*BackfillBatch + 10 {
		docs = append(docs, note("p.md", "protein folding budget", Public, nil))
	}
	if err := s.Commit(docs, ""); err != nil {
		t.Fatal(err)
	}
	sr := NewSearcher(s, SearchOptions{Hybrid: true, RerankTopN: 25}, nil, emb)
	if r, err := sr.Search(ctx, "protein", 3, Filter{}); err != nil || r.Mode.Dense || !r.Mode.Keyword || len(r.Hits) != 3 {
		t.Fatalf("before any vector the search is keyword only: %v %+v", err, r.Mode)
	}
	// The backfill fails in its second batch: the first batch stays stored.
	bad := &failingEmbedder{wordEmbedder: emb, failAt: 2}
	if _, err := Backfill(ctx, s, bad, BackfillOptions{}); !errs.Is(err, errs.RAG) {
		t.Fatalf("err = %v", err)
	}
	if n := vectorCount(t, s, emb.Info().ID); n != BackfillBatch {
		t.Fatalf("after a failure in batch 2: %d vectors", n)
	}
	// Search is already hybrid for the chunks that have vectors.
	r, err := sr.Search(ctx, "protein", 3, Filter{})
	if err != nil || !r.Mode.Dense || !r.Mode.Keyword || r.Mode.Vectors != BackfillBatch || r.Mode.Pool != len(docs) {
		t.Fatalf("partial: %v %+v", err, r.Mode)
	}
	// A second run resumes: only the rest is embedded.
	var last [2]int
	res, err := Backfill(ctx, s, emb, BackfillOptions{Progress: func(done, total int) { last = [2]int{done, total} }})
	if err != nil || res.Embedded != len(docs)-BackfillBatch || last != [2]int{res.Embedded, res.Embedded} {
		t.Fatalf("resume: %+v %v progress %v", res, err, last)
	}
	if p, _, _ := s.PendingCount(ctx, emb.Info().ID); p != 0 {
		t.Fatalf("%d still pending", p)
	}
	// Nothing left: a third run embeds nothing.
	if res, err := Backfill(ctx, s, emb, BackfillOptions{}); err != nil || res.Embedded != 0 {
		t.Fatalf("idle: %+v %v", res, err)
	}
}

// Embedding runs a batch ahead of the commits: a backfill stopped midway
// reports the cancellation, keeps every batch it committed, and the next
// run embeds exactly the rest.
func TestBackfillStoppedMidwayKeepsItsCommitsAndResumes(t *testing.T) {
	emb := wordEmbedder{vocab: []string{"protein", "folding", "budget"}}
	s := open(t, t.TempDir())
	var docs []Chunk
	for range 3*BackfillBatch + 7 {
		docs = append(docs, note("p.md", "protein folding budget", Public, nil))
	}
	if err := s.Commit(docs, ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopping := &failingEmbedder{wordEmbedder: emb, failAt: 3, cancel: cancel}
	res, err := Backfill(ctx, s, stopping, BackfillOptions{})
	if !errs.Is(err, errs.Cancelled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
	stored := vectorCount(t, s, emb.Info().ID)
	if stored != res.Embedded || stored < BackfillBatch || stored > 2*BackfillBatch || stored%BackfillBatch != 0 {
		t.Fatalf("%d vectors stored, %d reported; want the whole batches committed before the stop", stored, res.Embedded)
	}
	rest, err := Backfill(context.Background(), s, emb, BackfillOptions{})
	if err != nil || rest.Embedded != len(docs)-stored {
		t.Fatalf("resume embedded %d (%v), want %d", rest.Embedded, err, len(docs)-stored)
	}
	if n := vectorCount(t, s, emb.Info().ID); n != len(docs) {
		t.Fatalf("%d vectors after the resume, want %d", n, len(docs))
	}
}

func TestBackfillRefusesASecondProcess(t *testing.T) {
	s := open(t, t.TempDir())
	other := open(t, s.Dir())
	if err := s.Commit([]Chunk{note("a", "protein", Public, nil)}, ""); err != nil {
		t.Fatal(err)
	}
	emb := wordEmbedder{vocab: []string{"protein"}}
	started, release := make(chan struct{}), make(chan struct{})
	blocking := &blockingEmbedder{wordEmbedder: emb, started: started, release: release}
	done := make(chan error, 1)
	go func() { _, err := Backfill(context.Background(), s, blocking, BackfillOptions{}); done <- err }()
	<-started
	if _, err := Backfill(context.Background(), other, emb, BackfillOptions{}); !errs.Is(err, errs.Conflict) {
		t.Fatalf("second backfill: %v", err)
	}
	// One that asks to wait does, is told who it waits for, then finds
	// nothing left to embed.
	waited := make(chan string, 1)
	second := make(chan BackfillResult, 1)
	go func() {
		res, err := Backfill(context.Background(), other, emb, BackfillOptions{Wait: true, Waiting: func(pid string) { waited <- pid }})
		if err != nil {
			t.Error(err)
		}
		second <- res
	}()
	if holder := <-waited; !strings.HasPrefix(holder, "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("waiting for %q", holder)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res := <-second; res.Embedded != 0 {
		t.Fatalf("the waiting backfill re-embedded %d chunks", res.Embedded)
	}
}

type blockingEmbedder struct {
	wordEmbedder
	started, release chan struct{}
}

func (b *blockingEmbedder) EmbedDocuments(ctx context.Context, ts []string) ([][]float32, error) {
	close(b.started)
	<-b.release
	return b.wordEmbedder.EmbedDocuments(ctx, ts)
}

func TestModelSwitchServesOldVectorsUntilTheSwap(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := context.Background()
	oldEmb := wordEmbedder{vocab: []string{"protein", "folding"}}
	newWords := wordEmbedder{vocab: []string{"protein", "folding", "budget"}}
	newEmb := namedEmbedder{newWords, "test/new"}
	var docs []Chunk
	for range BackfillBatch + 20 {
		docs = append(docs, note("p.md", "protein folding budget", Public, nil))
	}
	if err := s.Ingest(ctx, oldEmb, docs, nil); err != nil {
		t.Fatal(err)
	}
	// The user configures the new model; this process still has the old
	// one loaded for queries.
	sr := NewSearcher(s, SearchOptions{Hybrid: true, RerankTopN: 25}, nil, newEmb, oldEmb)
	bad := &failingEmbedder{wordEmbedder: newWords, failAt: 2}
	if _, err := Backfill(ctx, s, namedEmbedder{bad, "test/new"}, BackfillOptions{}); err == nil {
		t.Fatal("a failing backfill succeeded")
	}
	m, _ := s.Models(ctx)
	if !sameModel(m.Active, oldEmb.Info()) || !sameModel(m.Target, newEmb.Info()) {
		t.Fatalf("mid-switch record: %+v", m)
	}
	r, err := sr.Search(ctx, "protein", 3, Filter{})
	if err != nil || r.Mode.Model != oldEmb.Info().ID || r.Mode.Vectors != len(docs) {
		t.Fatalf("mid-switch search must use the complete old vectors: %v %+v", err, r.Mode)
	}
	res, err := Backfill(ctx, s, newEmb, BackfillOptions{})
	if err != nil || !res.Swapped {
		t.Fatalf("finish: %+v %v", res, err)
	}
	m, _ = s.Models(ctx)
	if !sameModel(m.Active, newEmb.Info()) || !m.Target.IsZero() || vectorCount(t, s, oldEmb.Info().ID) != 0 {
		t.Fatalf("after the swap: %+v, old vectors %d", m, vectorCount(t, s, oldEmb.Info().ID))
	}
	r, err = sr.Search(ctx, "protein", 3, Filter{})
	if err != nil || r.Mode.Model != newEmb.Info().ID || r.Mode.Vectors != len(docs) {
		t.Fatalf("after the swap the search uses the new model: %v %+v", err, r.Mode)
	}
}

// namedEmbedder gives a word embedder another model id.
type namedEmbedder struct {
	kbEmbedder
	id string
}

type kbEmbedder interface {
	Info() ModelInfo
	Backend() string
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	EmbedQuery(ctx context.Context, query string) ([]float32, error)
}

func (n namedEmbedder) Info() ModelInfo {
	i := n.kbEmbedder.Info()
	i.ID = n.id
	return i
}

func TestMigratesAFirstReleaseStoreInPlace(t *testing.T) {
	dir := t.TempDir()
	src, err := os.Open(filepath.Join("testdata", "v1.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.Create(filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	dst.Close()
	s := open(t, dir)
	ctx := context.Background()
	if v, err := s.version(ctx, s.db); err != nil || v != schemaVersion {
		t.Fatalf("version %d %v", v, err)
	}
	var fts int
	s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name LIKE 'chunks_fts%' OR name IN ('chunks_ai','chunks_ad')`).Scan(&fts)
	if fts != 0 || count(t, s) != 3 {
		t.Fatalf("fts objects left %d, chunks %d", fts, count(t, s))
	}
	m, _ := s.Models(ctx)
	if m.Active.ID != "test/bow" || m.Active.Dims != 3 || vectorCount(t, s, "test/bow") != 3 {
		t.Fatalf("model record and vectors: %+v, %d vectors", m, vectorCount(t, s, "test/bow"))
	}
	// Stemmed keyword search over the migrated rows, metadata intact.
	hits, err := s.BM25(ctx, "landlord deposits", Filter{Visibility: []string{Private}}, 5)
	if err != nil || len(hits) != 1 || hits[0].Chunk.Meta.Tags != "|housing|" || hits[0].Chunk.Meta.Section != "Lease" {
		t.Fatalf("migrated note: %v %+v", err, hits)
	}
	if hits, _ := s.BM25(ctx, "registers", Filter{Fields: map[string]string{"x_salary": "high"}}, 5); len(hits) != 1 || hits[0].Chunk.Meta.Entity != "Acme" {
		t.Fatalf("record fields after migration: %+v", hits)
	}
	// The migrated vectors serve dense search under their model.
	if ids := denseIDsFor(t, s, ModelInfo{ID: "test/bow", Dims: 3}, []float32{0, 1, 0}); len(ids) != 3 {
		t.Fatalf("dense after migration: %v", ids)
	}
	// New writes continue the id sequence (ids are never reused).
	if err := s.Commit([]Chunk{note("new.md", "fresh", Public, nil)}, ""); err != nil {
		t.Fatal(err)
	}
	var maxID int64
	s.db.QueryRow(`SELECT max(id) FROM chunks`).Scan(&maxID)
	if maxID != 5 {
		t.Fatalf("new chunk id %d: the v1 store had used ids 1-4", maxID)
	}
}

func denseIDsFor(t *testing.T, s *Store, m ModelInfo, q []float32) []int64 {
	return denseRanked(t, s, m, q, Filter{}, 10)
}

// denseRanked syncs s's index with model m and returns the ids of the k
// nearest vectors inside f, as a search ranks them (candidates rescored).
func denseRanked(t *testing.T, s *Store, m ModelInfo, q []float32, f Filter, k int) []int64 {
	t.Helper()
	ix := s.Index()
	if err := ix.Sync(context.Background(), s, m); err != nil {
		t.Fatal(err)
	}
	q = normalise(append([]float32(nil), q...))
	ix.mu.RLock()
	cands, exact := ix.dense(ix.poolOf(f), q, k)
	ids := ix.ids(cands)
	ix.mu.RUnlock()
	if !exact {
		var err error
		if _, ids, err = s.rescore(context.Background(), m, q, cands, ids, k); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}
