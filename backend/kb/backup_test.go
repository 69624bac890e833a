package kb

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestSnapshotIsAConsistentCheckableCopy(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "rag")
	s := open(t, dir)
	if err := s.Commit([]Chunk{note("a.md", "alpha beta", Public, []float32{1, 0, 0}), note("b.md", "secret gamma", Private, []float32{0, 1, 0})}, ""); err != nil {
		t.Fatal(err)
	}
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

	// The copy opens as a store with the same rows and a working FTS index.
	restored := filepath.Join(t.TempDir(), "rag")
	os.MkdirAll(restored, 0o700)
	if err := os.Rename(dest, StorePath(restored)); err != nil {
		t.Fatal(err)
	}
	c := open(t, restored)
	if count(t, c) != 2 {
		t.Fatalf("restored count %d", count(t, c))
	}
	var n int
	if err := c.db.QueryRow(`SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'gamma'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("fts on the copy: %d %v", n, err)
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
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy.sqlite")
	if _, err := Snapshot(ctx, dir, dest); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	// Scribble over the middle of the file: b-tree pages, not the header.
	for i := len(b) / 2; i < len(b)/2+2048 && i < len(b); i++ {
		b[i] ^= 0x5a
	}
	if err := os.WriteFile(dest, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckIntegrity(ctx, dest, true); !errs.Is(err, errs.RAG) {
		t.Fatalf("a corrupted copy must fail the check: %v", err)
	}
	if _, err := Snapshot(ctx, t.TempDir(), filepath.Join(t.TempDir(), "x")); !errs.Is(err, errs.NotFound) {
		t.Fatalf("no store to snapshot: %v", err)
	}
}
