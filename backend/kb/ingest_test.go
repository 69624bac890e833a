package kb

import (
	"context"
	"errors"
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

func TestIngestEmbedsAndReplacesAtomically(t *testing.T) {
	emb := wordEmbedder{vocab: []string{"protein", "folding", "budget"}}
	s, err := Open(t.TempDir(), emb.Info())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	doc := []Chunk{note("a.md", "protein folding", Public, nil), note("a.md", "budget", Public, nil)}
	if err := s.Ingest(ctx, emb, doc, &Filter{Source: "a.md"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Chunks(ctx, []int64{1, 2})
	if err != nil || len(got) != 2 {
		t.Fatalf("chunks %v %v", got, err)
	}
	idx := NewDenseIndex()
	if err := idx.Sync(ctx, s); err != nil || idx.Len() != 2 {
		t.Fatalf("index len %d err %v: vectors were not stored", idx.Len(), err)
	}
	// A failed embed of the replacement leaves the old document in place.
	bad := &failingEmbedder{wordEmbedder: emb, failAt: 1}
	err = s.Ingest(ctx, bad, []Chunk{note("a.md", "new text", Public, nil)}, &Filter{Source: "a.md"})
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
	// An embedder for another model is refused before anything is embedded.
	other := wordEmbedder{vocab: []string{"x"}}
	if err := s.Ingest(ctx, other, doc, nil); !errs.Is(err, errs.RAG) {
		t.Fatalf("mismatched embedder: %v", err)
	}
}

func TestReindexSwitchesModelAndIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	oldEmb := wordEmbedder{vocab: []string{"protein", "folding"}}
	s, err := Open(dir, oldEmb.Info())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var docs []Chunk
	for i := 0; i < 150; i++ { // more than one reindex batch
		docs = append(docs, note("p.md", "protein folding budget", Public, nil))
	}
	if err := s.Ingest(ctx, oldEmb, docs, nil); err != nil {
		t.Fatal(err)
	}
	oldIdx := NewDenseIndex()
	if err := oldIdx.Sync(ctx, s); err != nil {
		t.Fatal(err)
	}

	newEmb := wordEmbedder{vocab: []string{"protein", "folding", "budget"}}
	newEmb2 := newEmb
	// Opening with the new model is refused and names the fix.
	if _, err := Open(dir, newEmb.Info()); err == nil || errs.HintOf(err) == "" {
		t.Fatalf("open with another model: %v", err)
	}
	// A failure mid-way leaves the old store usable under the old model.
	bad := &failingEmbedder{wordEmbedder: newEmb, failAt: 2}
	if _, err := Reindex(ctx, dir, bad, nil); err == nil {
		t.Fatal("reindex with a failing model succeeded")
	}
	if _, err := Open(dir, oldEmb.Info()); err != nil {
		t.Fatalf("old model no longer opens after a failed reindex: %v", err)
	}

	var reports []int
	n, err := Reindex(ctx, dir, newEmb2, func(done, total int) {
		if total != 150 {
			t.Errorf("total = %d", total)
		}
		reports = append(reports, done)
	})
	if err != nil || n != 150 {
		t.Fatalf("reindex: %d %v", n, err)
	}
	if len(reports) != 3 || reports[2] != 150 {
		t.Fatalf("progress reports %v", reports)
	}
	s2, err := Open(dir, newEmb.Info())
	if err != nil {
		t.Fatalf("new model does not open after reindex: %v", err)
	}
	defer s2.Close()
	idx := NewDenseIndex()
	if err := idx.Sync(ctx, s2); err != nil || idx.Len() != 150 {
		t.Fatalf("new index %d %v", idx.Len(), err)
	}
	// A process still holding the old model is told to restart instead of
	// ranking new vectors with old queries.
	if err := oldIdx.Sync(ctx, s); err == nil || errs.HintOf(err) == "" {
		t.Fatalf("stale process: %v", err)
	}
	s.Close()
}

func TestReindexEmptyDir(t *testing.T) {
	if _, err := Reindex(context.Background(), t.TempDir(), wordEmbedder{vocab: []string{"a"}}, nil); !errs.Is(err, errs.NotFound) {
		t.Fatalf("err = %v", err)
	}
}
