package kb

import (
	"context"
	"fmt"
	"reflect"
	"testing"
)

// searchBoth runs one keyword query through Store.BM25 and through a
// keyword-only Searcher and checks that both return every hit exactly as a
// fresh read of the store holds it.
func searchBoth(t *testing.T, s *Store, query string) []Hit {
	t.Helper()
	ctx := context.Background()
	hits, err := s.BM25(ctx, query, Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewSearcher(s, SearchOptions{}, nil).Search(ctx, query, 10, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.Chunk.ID
	}
	fresh, err := s.Chunks(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i := range hits {
		if !reflect.DeepEqual(hits[i].Chunk, fresh[i]) {
			t.Fatalf("BM25 hit %d is not the stored chunk:\n hit %+v\nfresh %+v", i, hits[i].Chunk, fresh[i])
		}
	}
	if len(res.Hits) != len(hits) {
		t.Fatalf("Searcher found %d, BM25 %d", len(res.Hits), len(hits))
	}
	for i := range hits {
		if !reflect.DeepEqual(res.Hits[i], hits[i]) {
			t.Fatalf("Searcher hit %d differs:\n%+v\n%+v", i, res.Hits[i], hits[i])
		}
	}
	return hits
}

func byPath(hits []Hit) map[string]Chunk {
	out := map[string]Chunk{}
	for _, h := range hits {
		out[h.Chunk.Meta.FilePath] = h.Chunk
	}
	return out
}

// A search right after an update, a rewrite or a delete returns the chunks
// as they now are — in the process that wrote and in another one (a second
// handle on the same file) — though both served the same hits before.
func TestSearchHitsFollowUpdatesAndDeletes(t *testing.T) {
	dir := t.TempDir()
	writer, reader := open(t, dir), open(t, dir)
	ctx := context.Background()
	a := note("local", "alpha beta", Public, nil)
	a.Meta.FilePath, a.Meta.Extra = "a.md", map[string]string{"x_k": "v"}
	b := note("local", "alpha gamma", Public, nil)
	b.Meta.FilePath = "b.md"
	if err := writer.Commit([]Chunk{a, b}, ""); err != nil {
		t.Fatal(err)
	}
	handles := map[string]*Store{"writer": writer, "reader": reader}
	for name, s := range handles {
		if got := byPath(searchBoth(t, s, "alpha")); len(got) != 2 || got["a.md"].Meta.Status != "" {
			t.Fatalf("%s before: %+v", name, got)
		}
	}

	// Status is no search term: the ranking stays, the hit must not.
	if n, err := writer.UpdateFields(ctx, Filter{FilePath: "a.md"}, map[string]any{"status": "done", "title": "Renamed"}); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	for name, s := range handles {
		got := byPath(searchBoth(t, s, "alpha"))
		if got["a.md"].Meta.Status != "done" || got["a.md"].Meta.Title != "Renamed" {
			t.Fatalf("%s after the update: %+v", name, got["a.md"])
		}
	}

	a.Content, a.EmbedText = "alpha delta", "alpha delta"
	if err := writer.CommitReplacing([]Chunk{a}, &Filter{FilePath: "a.md"}); err != nil {
		t.Fatal(err)
	}
	for name, s := range handles {
		if got := byPath(searchBoth(t, s, "alpha")); got["a.md"].Content != "alpha delta" {
			t.Fatalf("%s after the rewrite: %+v", name, got["a.md"])
		}
	}

	if n, err := writer.DeleteWhere(ctx, Filter{FilePath: "b.md"}); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	for name, s := range handles {
		if got := byPath(searchBoth(t, s, "alpha")); len(got) != 1 || got["b.md"].ID != 0 {
			t.Fatalf("%s after the delete: %+v", name, got)
		}
	}
}

// A caller changing a hit in place (its extras, its score) changes
// nothing the next search returns.
func TestChangingAHitLeavesTheNextSearchAlone(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := context.Background()
	score := 3
	c := note("local", "alpha beta", Public, nil)
	c.Meta.Score, c.Meta.Extra = &score, map[string]string{"x_k": "v"}
	if err := s.Commit([]Chunk{c}, ""); err != nil {
		t.Fatal(err)
	}
	for range 3 { // the first read fills the cache, the others are served from it
		hits, err := s.BM25(ctx, "alpha", Filter{}, 5)
		if err != nil || len(hits) != 1 {
			t.Fatalf("%v %v", hits, err)
		}
		if m := hits[0].Chunk.Meta; *m.Score != 3 || m.Extra["x_k"] != "v" {
			t.Fatalf("the hit was changed by an earlier caller: %+v", m)
		}
		*hits[0].Chunk.Meta.Score = 9
		hits[0].Chunk.Meta.Extra["x_k"] = "changed"
	}
}

// A word no chunk held, or a language no chunk was written in, is looked
// up again once a commit (in this process or another) may have added it:
// searching for it before does not hide the new chunk.
func TestNewWordsAndLanguagesAreFoundOnceWritten(t *testing.T) {
	dir := t.TempDir()
	writer, reader := open(t, dir), open(t, dir)
	ctx := context.Background()
	if err := writer.Commit([]Chunk{note("en.md", "Extract the archive into the current directory and list the files.", Public, nil)}, ""); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Store{writer, reader} {
		for _, q := range []string{"zyzzyva", "Dateien"} {
			if hits, err := s.BM25(ctx, q, Filter{}, 5); err != nil || len(hits) != 0 {
				t.Fatalf("%q before: %v %v", q, hits, err)
			}
		}
	}
	// German: only the German stemmer takes "Dateien" to the note's stem,
	// so the query finds it only if the store's new language is seen.
	de := note("de.md", "Entpacke das Archiv in das aktuelle Verzeichnis und zeige die enthaltenen Dateien an.", Public, nil)
	if err := writer.Commit([]Chunk{note("z.md", "a zyzzyva", Public, nil), de}, ""); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Store{"writer": writer, "reader": reader} {
		for q, want := range map[string]string{"zyzzyva": "z.md", "Dateien": "de.md"} {
			hits, err := s.BM25(ctx, q, Filter{}, 5)
			if err != nil || len(hits) != 1 || hits[0].Chunk.Meta.FilePath != want {
				t.Fatalf("%s, %q after the commit: %+v %v", name, q, hits, err)
			}
		}
	}
}

// The hit cache holds at most its budget (and a chunk per half) however
// many chunks pass through it, and keeps the ones still asked for.
func TestHitCacheStaysBounded(t *testing.T) {
	var hc hitCache
	body := string(make([]byte, 64<<10))
	held := func() int {
		n := hc.curBytes
		for _, e := range hc.prev {
			n += chunkBytes(e.c)
		}
		return n
	}
	for id := range int64(4 * hitCacheBytes / len(body)) {
		hc.put(Chunk{ID: id, Content: body}, 1)
		if _, ok := hc.get(0, 1); !ok {
			t.Fatalf("after %d puts the chunk asked for every time is gone", id)
		}
		if n := held(); n > hitCacheBytes+2*chunkBytes(Chunk{Content: body}) {
			t.Fatalf("after %d puts the cache holds %d bytes", id, n)
		}
	}
	if _, ok := hc.get(1, 1); ok {
		t.Fatal("an old chunk nobody asked for again was kept")
	}
	if _, ok := hc.get(0, 2); ok {
		t.Fatal("a chunk was served at another revision")
	}
}

// rankPublic ranks query over the public pool the way Store.BM25 does and
// returns what hits needs, without reading the chunks yet.
func rankPublic(t *testing.T, s *Store, query string) ([]int64, ranking, []scored) {
	t.Helper()
	ctx := context.Background()
	ix := s.Index()
	if err := ix.Sync(ctx, s, ix.model()); err != nil {
		t.Fatal(err)
	}
	terms, err := s.queryTerms(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	ranked := ix.keyword(ix.poolOf(Filter{Visibility: []string{Public}}), terms, 10)
	return ix.ids(ranked), ranking{gen: ix.gen, revs: ix.revs(ranked)}, ranked
}

// A row written by another process between a public search's ranking and
// its reading of the chunks is not handed out as ranked: a note made
// private in that instant is not returned (read from the store or from the
// cache), nor a public copy deleted meanwhile.
func TestAChunkChangedAfterTheRankingIsNotReturned(t *testing.T) {
	dir := t.TempDir()
	writer, reader := open(t, dir), open(t, dir)
	ctx := context.Background()
	add := func(p string) {
		c := note("local", "alpha "+p, Public, nil)
		c.Meta.FilePath = p
		if err := writer.Commit([]Chunk{c}, ""); err != nil {
			t.Fatal(err)
		}
	}
	add("b.md")
	add("c.md")
	searchBoth(t, reader, "alpha") // b.md and c.md are in the reader's cache now
	add("a.md")

	// a.md made private while the search is between ranking and reading
	// (not cached: read from the store), b.md deleted (cached).
	ids, rk, ranked := rankPublic(t, reader, "alpha")
	if len(ids) != 3 {
		t.Fatalf("ranked %v", ids)
	}
	if _, err := writer.UpdateFields(ctx, Filter{FilePath: "a.md"}, map[string]any{"visibility": Private}); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.DeleteWhere(ctx, Filter{FilePath: "b.md"}); err != nil {
		t.Fatal(err)
	}
	hits, err := reader.hits(ctx, ids, rk, ranked)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.Chunk.Meta.Visibility != Public || h.Chunk.Meta.FilePath == "b.md" {
			t.Fatalf("handed out %s (%s) after it changed", h.Chunk.Meta.FilePath, h.Chunk.Meta.Visibility)
		}
	}
	// The next search ranks afresh: c.md only.
	if got := byPath(searchBoth(t, reader, "alpha")); len(got) != 2 || got["a.md"].Meta.Visibility != Private {
		t.Fatalf("next search: %+v", got)
	}
}

// The words remembered as absent from the dictionary stay bounded on a
// quiet store that is asked ever new words.
func TestAbsentTermsStayBounded(t *testing.T) {
	var c termCache
	for i := range 3 * maxAbsentTerms {
		c.noteAbsent([]any{fmt.Sprintf("w%d", i)}, nil, 7)
		if len(c.absent) > maxAbsentTerms {
			t.Fatalf("%d words remembered", len(c.absent))
		}
	}
	if !c.absentAt(fmt.Sprintf("w%d", 3*maxAbsentTerms-1), 7) {
		t.Fatal("the latest word is forgotten")
	}
}
