package kb

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// lowSnapshotThreshold makes every sync of a test-sized store write a
// snapshot.
func lowSnapshotThreshold(t *testing.T) {
	old := snapshotMinRows
	snapshotMinRows = 10
	t.Cleanup(func() { snapshotMinRows = old })
}

func syncKeyword(t *testing.T, s *Store) *Index {
	t.Helper()
	ix := s.Index()
	if err := ix.Sync(context.Background(), s, ModelInfo{}); err != nil {
		t.Fatal(err)
	}
	return ix
}

// rankings is what a handle answers for a few queries and filters.
func rankings(t *testing.T, s *Store) [][]Hit {
	t.Helper()
	var out [][]Hit
	for _, q := range benchCorpus.Queries(20, 80) {
		for _, f := range []Filter{{}, {Visibility: []string{Public}}, {Visibility: []string{Private}}} {
			hits, err := s.BM25(context.Background(), q, f, 10)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, hits)
		}
	}
	return out
}

func sameRankings(t *testing.T, a, b [][]Hit) {
	t.Helper()
	for i := range a {
		if !slices.EqualFunc(a[i], b[i], func(x, y Hit) bool { return x.Chunk.ID == y.Chunk.ID && x.Score == y.Score }) {
			t.Fatalf("ranking %d differs:\n%v\n%v", i, a[i], b[i])
		}
	}
}

// A process that loaded many rows leaves a snapshot; a new process starts
// from it, catches up with what was written since (new chunks, a deleted
// note, a note made private) and ranks exactly as a process that read
// everything from the store.
func TestColdProcessStartsFromSnapshotAndCatchesUp(t *testing.T) {
	lowSnapshotThreshold(t)
	dir := t.TempDir()
	writer := open(t, dir)
	if err := writer.Commit(synthChunks(0, 60, 0), ""); err != nil {
		t.Fatal(err)
	}
	syncKeyword(t, writer)
	st, err := os.Stat(filepath.Join(dir, SnapshotName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot: %v %v", st, err)
	}
	ctx := context.Background()
	if err := writer.Commit(synthChunks(60, 80, 0), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.DeleteWhere(ctx, Filter{FilePath: "notes/n1.md"}); err != nil {
		t.Fatal(err)
	}
	if n, err := writer.UpdateFields(ctx, Filter{FilePath: "notes/n2.md"}, map[string]any{"visibility": Private}); err != nil || n != 3 {
		t.Fatalf("made private: %d %v", n, err)
	}

	cold := open(t, dir)
	if ix := syncKeyword(t, cold); !ix.fromSnapshot {
		t.Fatal("the cold handle did not start from the snapshot")
	}
	got := rankings(t, cold)
	if err := os.Remove(filepath.Join(dir, SnapshotName)); err != nil {
		t.Fatal(err)
	}
	fresh := open(t, dir)
	if ix := syncKeyword(t, fresh); ix.fromSnapshot {
		t.Fatal("no snapshot to start from")
	}
	sameRankings(t, got, rankings(t, fresh))
	for _, hits := range got {
		for _, h := range hits {
			if h.Chunk.Meta.FilePath == "notes/n1.md" {
				t.Fatal("a deleted note was served")
			}
		}
	}
	hits, _ := cold.BM25(ctx, benchCorpus.Doc(6).Title, Filter{Visibility: []string{Public}}, 100)
	for _, h := range hits {
		if h.Chunk.Meta.FilePath == "notes/n2.md" {
			t.Fatal("a note made private after the snapshot is in the public pool")
		}
	}
}

// A snapshot that does not describe the store is not used: torn, newer
// than the store, or written in another history (a backup restored, then
// written again with the same chunk ids and generations).
func TestSnapshotOfAnotherStoreIsNotUsed(t *testing.T) {
	lowSnapshotThreshold(t)
	dir := t.TempDir()
	db := filepath.Join(dir, DBName)
	s := open(t, dir)
	if err := s.Commit(synthChunks(0, 60, 0), ""); err != nil {
		t.Fatal(err)
	}
	s.Close() // the last connection checkpoints the WAL into the file
	backup, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	restore := func() {
		t.Helper()
		for _, suffix := range []string{"-wal", "-shm"} {
			os.Remove(db + suffix)
		}
		if err := os.WriteFile(db, backup, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// commitTwenty commits the same twenty ids to s, all with visibility vis.
	commitTwenty := func(s *Store, vis string) []Chunk {
		t.Helper()
		cs := synthChunks(60, 80, 0)
		for i := range cs {
			cs[i].Meta.Visibility = vis
		}
		if err := s.Commit(cs, ""); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// History A: twenty public chunks, indexed (snapshot written).
	a := open(t, dir)
	commitTwenty(a, Public)
	syncKeyword(t, a)
	a.Close()
	snap, err := os.ReadFile(filepath.Join(dir, SnapshotName))
	if err != nil {
		t.Fatal(err)
	}

	// The store goes back to the backup: the snapshot is ahead of it.
	restore()
	if ix := syncKeyword(t, open(t, dir)); ix.fromSnapshot {
		t.Fatal("a snapshot newer than the store was used")
	}

	// History B from the backup: the same twenty ids in the same
	// generation, private this time.
	restore()
	if err := os.WriteFile(filepath.Join(dir, SnapshotName), snap, 0o600); err != nil {
		t.Fatal(err)
	}
	b := open(t, dir)
	private := commitTwenty(b, Private)
	cold := open(t, dir)
	if ix := syncKeyword(t, cold); ix.fromSnapshot {
		t.Fatal("a snapshot of another history was used")
	}
	for _, c := range private {
		hits, _ := cold.BM25(context.Background(), c.Meta.Title, Filter{Visibility: []string{Public}}, 100)
		for _, h := range hits {
			if h.Chunk.Meta.Visibility != Public {
				t.Fatalf("private chunk %d in the public pool", h.Chunk.ID)
			}
		}
	}

	// A torn snapshot (one byte changed) is ignored too.
	snap, _ = os.ReadFile(filepath.Join(dir, SnapshotName)) // the one the last sync rewrote
	snap[len(snap)/2] ^= 0xff
	if err := os.WriteFile(filepath.Join(dir, SnapshotName), snap, 0o600); err != nil {
		t.Fatal(err)
	}
	if ix := syncKeyword(t, open(t, dir)); ix.fromSnapshot {
		t.Fatal("a torn snapshot was used")
	}
}

// Postings read in place and postings decoded (a misaligned buffer, or a
// big-endian machine) are the same postings.
func TestPostingsInPlaceAndDecodedAgree(t *testing.T) {
	want := []posting{{row: 7, body: 3, meta: 0}, {row: 1 << 20, body: 65535, meta: 2}}
	raw := make([]byte, 1+8*len(want))
	for i, p := range want {
		b := raw[1+8*i:]
		binary.LittleEndian.PutUint32(b, uint32(p.row))
		binary.LittleEndian.PutUint16(b[4:], p.body)
		binary.LittleEndian.PutUint16(b[6:], p.meta)
	}
	aligned := append(make([]byte, 0, 8*len(want)), raw[1:]...)
	for name, b := range map[string][]byte{"aligned": aligned, "misaligned": raw[1:]} {
		got := postingsAt(b, len(want))
		if !slices.Equal(got, want) || cap(got) != len(want) {
			t.Errorf("%s: %+v (cap %d), want %+v", name, got, cap(got), want)
		}
	}
}

// The store's database holds private notes: it is 0600, and so are the
// -wal and -shm files SQLite makes beside it, also for a store an older
// version created with the umask's wider mode.
func TestStoreFilesArePrivate(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{DBName, DBName + "-wal"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, dir)
	if err := s.Commit([]Chunk{note("a.md", "private words", Private, nil)}, ""); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{DBName, DBName + "-wal", DBName + "-shm"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %o, want 600", name, st.Mode().Perm())
		}
	}
}

// The postings of a snapshot are used in the mapped file: compaction
// rewrites them there (copy-on-write, the file unchanged), a snapshot
// written over by another process leaves this one's mapping as it was, and
// a reload lets the old mapping go and maps the new file; the rankings
// stay those of a handle that read everything from the store.
func TestMappedSnapshotSurvivesCompactionAndReplacement(t *testing.T) {
	lowSnapshotThreshold(t)
	dir := t.TempDir()
	writer := open(t, dir)
	if err := writer.Commit(synthChunks(0, 90, 0), ""); err != nil {
		t.Fatal(err)
	}
	syncKeyword(t, writer)
	path := filepath.Join(dir, SnapshotName)
	cold := open(t, dir)
	ix := syncKeyword(t, cold)
	if !ix.fromSnapshot || ix.mapped == nil {
		t.Fatal("the cold handle did not map the snapshot")
	}
	mappedFile := filepath.Join(t.TempDir(), "mapped") // the file mapped, whatever comes to lie at path
	if err := os.Link(path, mappedFile); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(mappedFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for n := 0; n < 15; n++ {
		if _, err := writer.DeleteWhere(ctx, Filter{FilePath: fmt.Sprintf("notes/n%d.md", n)}); err != nil {
			t.Fatal(err)
		}
	}
	syncKeyword(t, cold) // catches up (and, past the lowered threshold, writes a snapshot of its own)
	ix.mu.Lock()
	ix.compact()
	ix.mu.Unlock()
	if after, _ := os.ReadFile(mappedFile); !bytes.Equal(after, before) {
		t.Fatal("compaction wrote into the snapshot file")
	}
	if ix.mapped != nil {
		// Rewritten where they lay, the lists would turn the mapping's
		// pages into private memory; copied out, the mapping goes.
		t.Fatal("compaction kept the snapshot mapped")
	}
	want := func() [][]Hit {
		fresh := open(t, dir)
		fresh.Index().mu.Lock()
		fresh.Index().gen = -1
		fresh.Index().mu.Unlock()
		return rankings(t, fresh)
	}
	sameRankings(t, rankings(t, cold), want())

	// Another process replaces the snapshot (by rename, as writeSnapshot
	// does); this handle's mapping keeps the file it mapped.
	if err := writer.Commit(synthChunks(90, 100, 0), ""); err != nil {
		t.Fatal(err)
	}
	writer.Index().mu.Lock()
	err = writer.Index().writeSnapshot(dir)
	writer.Index().mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	sameRankings(t, rankings(t, cold), want())

	// A reload maps the new one.
	ix.mu.Lock()
	ix.gen = -1
	ix.mu.Unlock()
	syncKeyword(t, cold)
	if !ix.fromSnapshot || ix.mapped == nil {
		t.Fatal("the reload did not map the new snapshot")
	}
	sameRankings(t, rankings(t, cold), want())

	// Closing the store lets the file go (a restore replaces the folder).
	if err := cold.Close(); err != nil {
		t.Fatal(err)
	}
	if ix.mapped != nil {
		t.Fatal("the closed store still maps its snapshot")
	}
}
