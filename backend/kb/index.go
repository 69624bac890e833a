package kb

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Index is a process's in-memory view of the store for ranking: every
// chunk's filterable metadata, an inverted index of its terms and the
// vectors of one model in one contiguous slab. It is keyed to the store's
// generation and catches up incrementally before each search (rows written
// since, deletions logged since, vectors added since), so a second process
// sees new writes without a restart and never serves a deleted chunk.
//
// Ranking never leaves the filter: a search first turns the Filter into a
// bitmap of rows, and both halves score only rows inside it. Collection
// statistics (document count, average length, document frequencies) are
// computed over that pool too, so nothing outside it moves a score.
type Index struct {
	mu sync.RWMutex

	gen     int64  // store generation reflected; -1 before the first load
	version uint64 // moves whenever rows or vectors change: pools cached under it are stale
	rows    []irow
	byID    map[int64]int32
	dead    bitset
	live    int

	post [][]posting // by term id, rows ascending

	vecModel ModelInfo
	vec      *vecSlab // nil without a model

	intern map[string]string
	pools  poolCache
}

type irow struct {
	id               int64
	lenBody, lenMeta uint32
	m                *rowMeta
}

// rowMeta is what a Filter can test, for one chunk.
type rowMeta struct {
	visibility, docType, annotationKind string
	category, status, entity            string
	source, filePath, tags              string
	extra                               map[string]string
}

type posting struct {
	row        int32
	body, meta uint16
}

type bitset []uint64

func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int32)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitset) count() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}
func (b *bitset) grow(n int) {
	for len(*b)*64 < n {
		*b = append(*b, 0)
	}
}

func newIndex() *Index { return &Index{gen: -1} }

// Index returns the store's in-memory index (one per open store).
func (s *Store) Index() *Index {
	s.indexOnce.Do(func() { s.index = newIndex() })
	return s.index
}

func (ix *Index) reset() {
	ix.gen = -1
	ix.rows = nil
	ix.byID = map[int64]int32{}
	ix.dead = nil
	ix.live = 0
	ix.post = nil
	ix.vec = nil
	ix.intern = map[string]string{}
}

// Sync brings the index up to the store's generation, with the vectors of
// vm (zero: no vectors). It reads one consistent snapshot.
func (ix *Index) Sync(ctx context.Context, s *Store, vm ModelInfo) error {
	const op = "kb.Index.Sync"
	gen, err := s.Generation(ctx)
	if err != nil {
		return err
	}
	ix.mu.RLock()
	current := ix.gen == gen && sameOrZero(ix.vecModel, vm)
	ix.mu.RUnlock()
	if current {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	defer tx.Rollback()
	if gen, err = readGeneration(ctx, tx); err != nil {
		return err
	}
	if ix.gen == gen && sameOrZero(ix.vecModel, vm) {
		return nil
	}
	ix.version++ // whatever happens below, cached pools are stale
	var floor int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key='deletions_floor'), 0)`).Scan(&floor); err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	since := ix.gen
	if ix.gen < 0 || ix.gen < floor {
		ix.reset()
		since = -1
	}
	vecsSince := since
	if !sameOrZero(ix.vecModel, vm) || ix.vec == nil {
		ix.vec = nil
		vecsSince = -1
		if vm.Dims > 0 {
			ix.vec = newVecSlab(vm.Dims)
			ix.vec.grow(len(ix.rows))
		}
	}
	ix.vecModel = vm
	if since >= 0 {
		if err := ix.applyDeletions(ctx, tx, since); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
	}
	if err := ix.loadRows(ctx, tx, since); err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	if ix.vec != nil {
		if err := ix.loadVectors(ctx, tx, vecsSince); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
	}
	if len(ix.rows)-ix.live > 4096 && len(ix.rows)-ix.live > len(ix.rows)/4 {
		ix.compact()
	}
	ix.gen = gen
	return nil
}

func sameOrZero(a, b ModelInfo) bool { return a.ID == b.ID && a.Dims == b.Dims }

func (ix *Index) applyDeletions(ctx context.Context, tx *sql.Tx, since int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT chunk_id FROM deletions WHERE gen > ?`, since)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ix.drop(id)
	}
	return rows.Err()
}

// drop marks id's row dead (its postings are skipped, then compacted).
func (ix *Index) drop(id int64) {
	r, ok := ix.byID[id]
	if !ok {
		return
	}
	delete(ix.byID, id)
	ix.dead.set(r)
	ix.live--
	if ix.vec != nil {
		ix.vec.drop(r)
	}
}

func (ix *Index) str(s string) string {
	if v, ok := ix.intern[s]; ok {
		return v
	}
	ix.intern[s] = s
	return s
}

// loadRows adds rows written after since (all rows when since < 0). A row
// written again (its metadata changed) replaces its old self; its vector
// moves with it.
func (ix *Index) loadRows(ctx context.Context, tx *sql.Tx, since int64) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, doc_type, visibility, source, file_path, annotation_kind, category, status,
		entity, tags, extra, lex FROM chunks WHERE rev > ? ORDER BY id`, since)
	if err != nil {
		return err
	}
	defer rows.Close()
	var extra string
	var lex []byte
	var r int32
	addPosting := func(e lexEntry) {
		if int(e.term) >= len(ix.post) {
			ix.post = growTo(ix.post, int(e.term)+1)
		}
		ix.post[e.term] = append(ix.post[e.term], posting{row: r, body: sat16(e.body), meta: sat16(e.meta)})
	}
	for rows.Next() {
		var id int64
		m := &rowMeta{}
		if err := rows.Scan(&id, &m.docType, &m.visibility, &m.source, &m.filePath, &m.annotationKind, &m.category,
			&m.status, &m.entity, &m.tags, &extra, &lex); err != nil {
			return err
		}
		m.docType, m.visibility, m.source, m.filePath = ix.str(m.docType), ix.str(m.visibility), ix.str(m.source), ix.str(m.filePath)
		m.annotationKind, m.category, m.status, m.entity, m.tags = ix.str(m.annotationKind), ix.str(m.category), ix.str(m.status), ix.str(m.entity), ix.str(m.tags)
		m.extra = decodeExtra(extra)
		var oldVec []float32
		if old, ok := ix.byID[id]; ok {
			if ix.vec != nil && ix.vec.has.has(old) {
				oldVec = append([]float32(nil), ix.vec.row(old)...)
			}
			ix.drop(id)
		}
		r = int32(len(ix.rows))
		ix.rows = append(ix.rows, irow{id: id, m: m})
		ix.byID[id] = r
		ix.dead.grow(len(ix.rows))
		ix.live++
		bl, ml, err := decodeLexBlob(lex, addPosting)
		if err != nil {
			return err
		}
		ix.rows[r].lenBody, ix.rows[r].lenMeta = bl, ml
		if ix.vec != nil {
			ix.vec.grow(len(ix.rows))
			if oldVec != nil {
				ix.vec.copyRow(r, oldVec)
			}
		}
	}
	return rows.Err()
}

func sat16(n uint32) uint16 { return uint16(min(n, math.MaxUint16)) }

func (ix *Index) loadVectors(ctx context.Context, tx *sql.Tx, since int64) error {
	ix.vec.grow(len(ix.rows))
	rows, err := tx.QueryContext(ctx, `SELECT chunk_id, vector FROM vectors WHERE model = ? AND gen > ?`, ix.vecModel.ID, since)
	if err != nil {
		return err
	}
	defer rows.Close()
	var blob []byte
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		if r, ok := ix.byID[id]; ok {
			ix.vec.setBlob(r, blob) // a vector of other dims is not this model's: skipped
		}
	}
	return rows.Err()
}

// compact drops dead rows, renumbering the survivors.
func (ix *Index) compact() {
	remap := make([]int32, len(ix.rows))
	rows := make([]irow, 0, ix.live)
	for r, row := range ix.rows {
		if ix.dead.has(int32(r)) {
			remap[r] = -1
			continue
		}
		nr := int32(len(rows))
		remap[r] = nr
		rows = append(rows, row)
		ix.byID[row.id] = nr
	}
	for t, ps := range ix.post {
		out := ps[:0]
		for _, p := range ps {
			if nr := remap[p.row]; nr >= 0 {
				p.row = nr
				out = append(out, p)
			}
		}
		ix.post[t] = slices.Clip(out)
		if len(out) == 0 {
			ix.post[t] = nil
		}
	}
	if ix.vec != nil {
		ix.vec = ix.vec.compact(remap, len(rows))
	}
	ix.rows = rows
	ix.dead = make(bitset, (len(rows)+63)/64)
}

// Len is the number of live chunks and how many have a vector.
func (ix *Index) Len() (chunks, vectors int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.vec != nil {
		vectors = ix.vec.n
	}
	return ix.live, vectors
}

// pool is a filter evaluated over the index: the rows inside it and their
// collection statistics. Pools are cached per filter until the index
// changes; they are read-only once made.
type pool struct {
	rows    bitset
	n       int
	avgLen  float64
	vectors int       // rows in the pool that have a vector
	norm    []float32 // BM25 length normalisation per row (pool rows only)
}

// poolCache keeps the pools of the last few filters of one index version.
type poolCache struct {
	mu      sync.Mutex
	version uint64
	byKey   map[string]*pool
}

const poolCacheSize = 16

// key identifies a filter for the pool cache (maps marshal sorted).
func (f Filter) key() string {
	b, _ := json.Marshal(f) // strings, slices and a string map always marshal
	return string(b)
}

// poolOf evaluates f over every live row, or returns the pool made for the
// same filter since the index last changed. Caller holds ix.mu.
func (ix *Index) poolOf(f Filter) *pool {
	key := f.key()
	c := &ix.pools
	c.mu.Lock()
	if c.version != ix.version || c.byKey == nil {
		c.version, c.byKey = ix.version, map[string]*pool{}
	}
	p := c.byKey[key]
	c.mu.Unlock()
	if p != nil {
		return p
	}
	p = ix.evalPool(f)
	c.mu.Lock()
	if c.version == ix.version {
		if len(c.byKey) >= poolCacheSize {
			clear(c.byKey)
		}
		c.byKey[key] = p
	}
	c.mu.Unlock()
	return p
}

func (ix *Index) evalPool(f Filter) *pool {
	p := &pool{rows: make(bitset, (len(ix.rows)+63)/64), norm: make([]float32, len(ix.rows))}
	var total float64
	for r := range ix.rows {
		if ix.dead.has(int32(r)) || !f.matches(ix.rows[r].m) {
			continue
		}
		p.rows.set(int32(r))
		p.n++
		total += float64(ix.rows[r].lenBody + ix.rows[r].lenMeta)
		if ix.vec != nil && ix.vec.has.has(int32(r)) {
			p.vectors++
		}
	}
	if p.n == 0 {
		return p
	}
	p.avgLen = total / float64(p.n)
	for r := range ix.rows {
		if p.rows.has(int32(r)) {
			p.norm[r] = float32(bm25K1 * (1 - bm25B + bm25B*float64(ix.rows[r].lenBody+ix.rows[r].lenMeta)/p.avgLen))
		}
	}
	return p
}

// BM25 parameters (Robertson/Sparck Jones with a lightly weighted
// metadata field). k1 and b are the usual defaults for short passages.
const (
	bm25K1    = 1.2
	bm25B     = 0.75
	metaBoost = 2.0
)

// bm25IDF is the idf of a term found in df of n chunks (never negative).
func bm25IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

type scored struct {
	row   int32
	score float32
}

// qterm is one analysed query term: its dictionary id and how often the
// query repeats it. Queries carry them sorted by id, so scores are summed
// in one order and rankings are reproducible to the last bit.
type qterm struct {
	id  uint32
	qtf int
}

// accumulators are per-search score arrays, one slot per index row,
// handed back zeroed.
var accumulators sync.Pool

// keyword ranks the pool by BM25 for the query terms and returns the best
// k rows: term at a time into a dense accumulator, then a k-heap over the
// rows touched.
func (ix *Index) keyword(p *pool, terms []qterm, k int) []scored {
	if p.n == 0 || len(terms) == 0 || k <= 0 {
		return nil
	}
	acc, _ := accumulators.Get().(*[]float32)
	if acc == nil {
		acc = new([]float32)
	}
	*acc = growTo(*acc, len(ix.rows))
	a := (*acc)[:len(ix.rows)]
	var touched []int32
	for _, t := range terms {
		if int(t.id) >= len(ix.post) {
			continue
		}
		ps := ix.post[t.id]
		df := 0
		for _, q := range ps {
			if p.rows.has(q.row) {
				df++
			}
		}
		if df == 0 {
			continue
		}
		w := float32(bm25IDF(p.n, df) * float64(t.qtf) * (bm25K1 + 1))
		for _, q := range ps {
			if !p.rows.has(q.row) {
				continue
			}
			tf := float32(q.body) + metaBoost*float32(q.meta)
			if a[q.row] == 0 {
				touched = append(touched, q.row)
			}
			a[q.row] += w * tf / (tf + p.norm[q.row])
		}
	}
	top := newTopK(k)
	for _, r := range touched {
		top.push(scored{row: r, score: a[r]})
		a[r] = 0
	}
	accumulators.Put(acc)
	return top.sorted()
}

// dense ranks the pool's rows that have a vector by cosine similarity to q
// (already normalised) and returns the best k.
func (ix *Index) dense(p *pool, q []float32, k int) []scored {
	if ix.vec == nil || p.vectors == 0 || len(q) != ix.vec.dims || k <= 0 {
		return nil
	}
	return ix.vec.search(p.rows, q, k)
}

// topK keeps the k best scored rows in a min-heap.
type topK struct {
	k int
	h []scored
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]scored, 0, k)} }

// less orders by score, then prefers the lower row (older chunk) on ties,
// so rankings are deterministic.
func lessScored(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.row > b.row
}

func (t *topK) push(s scored) {
	if len(t.h) < t.k {
		t.h = append(t.h, s)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !lessScored(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if !lessScored(t.h[0], s) {
		return
	}
	t.h[0] = s
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.h) && lessScored(t.h[l], t.h[m]) {
			m = l
		}
		if r < len(t.h) && lessScored(t.h[r], t.h[m]) {
			m = r
		}
		if m == i {
			break
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// sorted returns the kept rows best first.
func (t *topK) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b scored) int {
		switch {
		case lessScored(b, a):
			return -1
		case lessScored(a, b):
			return 1
		}
		return 0
	})
	return out
}
