package kb

import (
	"container/heap"
	"context"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Hit is one ranked chunk.
type Hit struct {
	Chunk Chunk
	Score float64
}

// ftsQuery turns free text into a safe FTS5 query: every word quoted (so
// punctuation and operators in user text cannot break the syntax), ORed so
// any word can match and bm25 ranks by how many do.
func ftsQuery(q string) string {
	words := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, `"`+w+`"`)
	}
	return strings.Join(quoted, " OR ")
}

// BM25 ranks the filtered pool by keyword relevance with FTS5's bm25().
func (s *Store) BM25(ctx context.Context, query string, f Filter, limit int) ([]Hit, error) {
	const op = "kb.BM25"
	match := ftsQuery(query)
	if match == "" {
		return nil, nil
	}
	where, args, err := f.where()
	if err != nil {
		return nil, err
	}
	// Rank ids first and fetch the full rows of the winners only: sorting
	// whole rows (content included) of every match is what made large pools
	// slow.
	q := `SELECT ` + prefixCols("c.") + `, r.rank FROM (
		SELECT chunks_fts.rowid AS id, bm25(chunks_fts) AS rank FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
		WHERE chunks_fts MATCH ? AND ` + where + ` ORDER BY rank LIMIT ?) AS r
		JOIN chunks c ON c.id = r.id ORDER BY r.rank`
	rows, err := s.db.QueryContext(ctx, q, append(append([]any{match}, args...), limit)...)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var rank float64
		c, err := scanChunk(rows, &rank)
		if err != nil {
			return nil, errs.Wrap(errs.RAG, op, err)
		}
		hits = append(hits, Hit{Chunk: c, Score: -rank}) // bm25() is lower-is-better
	}
	return hits, errs.Wrap(errs.RAG, op, rows.Err())
}

func prefixCols(p string) string {
	cols := strings.Split(selectCols, ",")
	for i, c := range cols {
		cols[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// PoolIDs returns the ids of every chunk inside the filter.
func (s *Store) PoolIDs(ctx context.Context, f Filter) (map[int64]bool, error) {
	where, args, err := f.where()
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id FROM chunks c WHERE `+where, args...)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, "kb.PoolIDs", err)
	}
	defer rows.Close()
	ids := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, errs.Wrap(errs.RAG, "kb.PoolIDs", err)
		}
		ids[id] = true
	}
	return ids, errs.Wrap(errs.RAG, "kb.PoolIDs", rows.Err())
}

// Chunks loads chunks by id, in the order given.
func (s *Store) Chunks(ctx context.Context, ids []int64) ([]Chunk, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+selectCols+` FROM chunks WHERE id IN (`+strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+`)`, args...)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, "kb.Chunks", err)
	}
	defer rows.Close()
	byID := map[int64]Chunk{}
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, errs.Wrap(errs.RAG, "kb.Chunks", err)
		}
		byID[c.ID] = c
	}
	out := make([]Chunk, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, errs.Wrap(errs.RAG, "kb.Chunks", rows.Err())
}

// RRF fuses rankings by reciprocal rank: score(d) = Σ 1/(c + rank). Ties keep
// the order of first appearance, so the result is deterministic.
func RRF(c float64, rankings ...[]int64) []int64 {
	score := map[int64]float64{}
	order := map[int64]int{}
	n := 0
	for _, ranking := range rankings {
		for rank, id := range ranking {
			score[id] += 1 / (c + float64(rank+1))
			if _, seen := order[id]; !seen {
				order[id] = n
				n++
			}
		}
	}
	ids := make([]int64, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if score[ids[i]] != score[ids[j]] {
			return score[ids[i]] > score[ids[j]]
		}
		return order[ids[i]] < order[ids[j]]
	})
	return ids
}

// DenseIndex is a process's in-memory copy of the stored vectors, keyed to
// the store's generation: before each search it catches up with whatever any
// process committed, adding new ids and dropping deleted ones.
type DenseIndex struct {
	mu    sync.Mutex
	gen   int64
	maxID int64
	vecs  map[int64][]float32 // normalised
}

// NewDenseIndex returns an empty index; the first Sync loads everything.
func NewDenseIndex() *DenseIndex { return &DenseIndex{gen: -1, vecs: map[int64][]float32{}} }

// Sync brings the index up to the store's current generation.
func (d *DenseIndex) Sync(ctx context.Context, s *Store) error {
	const op = "kb.DenseIndex.Sync"
	gen, err := s.Generation(ctx)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen == d.gen {
		return nil
	}
	// A reindex by another process may have switched the model under us;
	// mixing its vectors with this process's queries would rank garbage.
	var stored, dims string
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT value FROM meta WHERE key='embed_model'), (SELECT value FROM meta WHERE key='embed_dims')`).Scan(&stored, &dims); err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	if stored != s.model.ID || dims != strconv.Itoa(s.model.Dims) {
		return errs.WithHint(errs.New(errs.RAG, op, "the knowledge base was re-embedded with %s while this process uses %s", stored, s.model.ID),
			"restart Jarvis (and any jarvis-cli sync) to load the new model")
	}
	present := map[int64]bool{}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM chunks WHERE vector IS NOT NULL`)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return errs.Wrap(errs.RAG, op, err)
		}
		present[id] = true
	}
	rows.Close()
	for id := range d.vecs {
		if !present[id] {
			delete(d.vecs, id)
		}
	}
	rows, err = s.db.QueryContext(ctx, `SELECT id, vector FROM chunks WHERE id > ? AND vector IS NOT NULL ORDER BY id`, d.maxID)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
		d.vecs[id] = normalise(decodeVector(blob))
		d.maxID = max(d.maxID, id)
	}
	if err := rows.Err(); err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	d.gen = gen
	return nil
}

// Len is the number of vectors held.
func (d *DenseIndex) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.vecs)
}

// Search ranks the pool by cosine similarity to query (exact, brute force),
// keeping only the best k in a min-heap instead of sorting the whole pool.
func (d *DenseIndex) Search(query []float32, pool map[int64]bool, k int) []Hit {
	if k <= 0 {
		return nil
	}
	q := normalise(append([]float32(nil), query...))
	d.mu.Lock()
	defer d.mu.Unlock()
	h := make(hitHeap, 0, k)
	for id := range pool {
		v, ok := d.vecs[id]
		if !ok || len(v) != len(q) {
			continue
		}
		var dot float32
		for i, x := range v {
			dot += x * q[i]
		}
		hit := Hit{Chunk: Chunk{ID: id}, Score: float64(dot)}
		if len(h) < k {
			heap.Push(&h, hit)
		} else if worse(h[0], hit) {
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	sort.Slice(h, func(i, j int) bool { return worse(h[j], h[i]) })
	return h
}

// worse orders hits by score, then by id so equal scores rank stably.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Chunk.ID > b.Chunk.ID
}

// hitHeap is a min-heap: the root is the worst of the current top k.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func normalise(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}
