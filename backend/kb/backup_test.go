package kb

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb/kbtest"
)

func TestSnapshotIsAConsistentCheckableCopy(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "rag")
	s := open(t, dir)
	commitVecs(t, s, []Chunk{note("a.md", "alpha beta", Public, []float32{1, 0, 0}), note("b.md", "secret gamma", Private, []float32{0, 1, 0})}, nil)
	dest := filepath.Join(t.TempDir(), "copy.sqlite")
	info, err := Snapshot(ctx, dir, dest) // the store stays open: a live backup
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := s.Generation(ctx)
	if info.Chunks != 2 || info.EmbedModel != model.ID || info.EmbedDims != model.Dims || info.Generation != gen {
		t.Fatalf("snapshot info %+v (generation %d)", info, gen)
	}
	if st, _ := os.Stat(dest); st.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot mode %v", st.Mode().Perm())
	}
	if err := CheckIntegrity(ctx, dest, true); err != nil {
		t.Fatal(err)
	}
	if err := CheckIntegrity(ctx, StorePath(dir), false); err != nil {
		t.Fatal(err)
	}
	for _, extra := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(dest + extra); err == nil {
			t.Fatalf("checking a copy must not create %s", extra)
		}
	}

	// The copy opens as a store with the same rows and a working keyword index.
	restored := filepath.Join(t.TempDir(), "rag")
	os.MkdirAll(restored, 0o700)
	if err := os.Rename(dest, StorePath(restored)); err != nil {
		t.Fatal(err)
	}
	c := open(t, restored)
	if count(t, c) != 2 {
		t.Fatalf("restored count %d", count(t, c))
	}
	if hits, err := c.BM25(ctx, "gamma", Filter{}, 5); err != nil || len(hits) != 1 {
		t.Fatalf("keyword search on the copy: %+v %v", hits, err)
	}
}

func TestIntegrityCheckCatchesCorruption(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir)
	var chunks []Chunk
	for i := range 200 {
		chunks = append(chunks, note("a.md", "filler text number "+string(rune('a'+i%26)), Public, []float32{1, 0, 0}))
	}
	commitVecs(t, s, chunks, nil)
	dest := filepath.Join(t.TempDir(), "copy.sqlite")
	if _, err := Snapshot(ctx, dir, dest); err != nil {
		t.Fatal(err)
	}
	if err := kbtest.Damage(dest); err != nil {
		t.Fatal(err)
	}
	if err := CheckIntegrity(ctx, dest, true); !errs.Is(err, errs.RAG) {
		t.Fatalf("a corrupted copy must fail the check: %v", err)
	}
	if _, err := Snapshot(ctx, t.TempDir(), filepath.Join(t.TempDir(), "x")); !errs.Is(err, errs.NotFound) {
		t.Fatalf("no store to snapshot: %v", err)
	}
}
