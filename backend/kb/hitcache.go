package kb

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// hitCacheBytes bounds the text the hit cache holds: some thousands of
// chunks of a typical note, what a chat's or a session's repeated searches
// come back to. It lives in the window, whose memory the models already
// mostly fill: 16 MB served the 5,183-chunk benchmark from memory almost
// whole (0.7-1.6x an in-memory BM25), 8 MB at 1.9x, 4 MB at 2.8x.
const hitCacheBytes = 8 << 20

// hitCache keeps the chunks searches returned, decoded, each with the
// revision it was read at. A row's revision moves with every write of it
// and ids are never reused, so a cached chunk whose revision is the one the
// search ranked is that row as the index saw it; a row rewritten since has
// a new revision and a deleted row is not ranked. The index catches up on
// revisions before every search (writes of this process or another), so
// the cache needs no invalidation of its own: it is as fresh as the ranking.
//
// It is bounded in two halves: lookups hit either, inserts go to the
// newer, and when the newer fills the older is dropped.
type hitCache struct {
	mu        sync.Mutex
	cur, prev map[int64]cachedChunk
	curBytes  int
}

type cachedChunk struct {
	rev int64
	c   Chunk
}

// get returns the chunk id at revision rev, if held.
func (hc *hitCache) get(id, rev int64) (Chunk, bool) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	e, ok := hc.cur[id]
	if !ok {
		if e, ok = hc.prev[id]; ok && e.rev == rev {
			delete(hc.prev, id)
			hc.putLocked(id, e) // still in use: keep it past the next turn
		}
	}
	if !ok || e.rev != rev {
		return Chunk{}, false
	}
	return cloneChunk(e.c), true
}

// put holds c as read at revision rev.
func (hc *hitCache) put(c Chunk, rev int64) {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	hc.putLocked(c.ID, cachedChunk{rev: rev, c: cloneChunk(c)})
}

func (hc *hitCache) putLocked(id int64, e cachedChunk) {
	if hc.curBytes >= hitCacheBytes/2 {
		hc.prev, hc.cur, hc.curBytes = hc.cur, nil, 0
	}
	if hc.cur == nil {
		hc.cur = map[int64]cachedChunk{}
	}
	if old, ok := hc.cur[id]; ok {
		hc.curBytes -= chunkBytes(old.c)
	}
	hc.cur[id] = e
	hc.curBytes += chunkBytes(e.c)
}

// chunkBytes is roughly what a cached chunk holds: its text fields, the
// keys and values of its extras (frontmatter fields ride on every chunk of
// a note) and a fixed overhead.
func chunkBytes(c Chunk) int {
	m := c.Meta
	n := len(c.Content) + len(c.EmbedText) + 512
	for _, s := range []string{m.DocType, m.Visibility, m.Source, m.Title, m.Authors, m.DOI, m.Track, m.StorageMode, m.FilePath,
		m.ContentHash, m.Section, m.ModifiedAt, m.DateAdded, m.Category, m.Status, m.Entity, m.EventDate, m.Tags, m.AnnotationKind, m.NoteText} {
		n += len(s)
	}
	for k, v := range m.Extra {
		n += len(k) + len(v) + 16
	}
	return n
}

// cloneChunk copies what a caller could change in place (the score and
// extras are shared by reference), so a hit handed out never alters the
// cache.
func cloneChunk(c Chunk) Chunk {
	if c.Meta.Score != nil {
		n := *c.Meta.Score
		c.Meta.Score = &n
	}
	c.Meta.Extra = maps.Clone(c.Meta.Extra)
	c.Vector = slices.Clone(c.Vector) // none today (hits are read without vectors); cheap if so
	return c
}

// ranking is what the index ranked a search's chunks at: the store
// generation it reflected and each ranked id's revision.
type ranking struct {
	gen  int64
	revs map[int64]int64
}

// chunksAt loads chunks by id, in the order given, as the index ranked
// them. The ranking applied the search's filter (a cloud caller's public
// pool among them) to the rows as they were then; a row written since may
// no longer pass it (a note moved into a private folder, a public copy
// withdrawn), so a chunk is returned only as it was ranked: read at the
// revision ranked, or from the cache at that revision while the store has
// not changed since. Anything else is left out, as a row deleted meanwhile
// is; the next search ranks it afresh.
func (s *Store) chunksAt(ctx context.Context, ids []int64, rk ranking) ([]Chunk, error) {
	const op = "kb.Chunks"
	byID := make(map[int64]Chunk, len(ids))
	var missing, cached []any
	for _, id := range ids {
		if c, ok := s.cachedAt(id, rk.revs); ok {
			byID[id] = c
			cached = append(cached, id)
		} else {
			missing = append(missing, id)
		}
	}
	if len(cached) > 0 {
		gen, err := s.Generation(ctx)
		if err != nil {
			return nil, err
		}
		if gen != rk.gen { // written since the ranking: the cached rows may be gone or changed
			for _, id := range cached {
				delete(byID, id.(int64))
			}
			missing = append(missing, cached...)
		}
	}
	if len(missing) > 0 {
		read, err := s.load(ctx, missing, byID, s.hitCache.put)
		if err != nil {
			return nil, errs.Wrap(errs.RAG, op, err)
		}
		for id, rev := range read {
			if rev != rk.revs[id] {
				delete(byID, id)
			}
		}
	}
	return inOrder(ids, byID), nil
}

// cachedAt is the cached chunk id at its revision in revs (none when revs
// does not name it).
func (s *Store) cachedAt(id int64, revs map[int64]int64) (Chunk, bool) {
	rev, ok := revs[id]
	if !ok {
		return Chunk{}, false
	}
	return s.hitCache.get(id, rev)
}
