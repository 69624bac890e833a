package kb

import (
	"context"
	"database/sql"
	"math"
	"math/bits"
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

	gen  int64 // store generation reflected; -1 before the first load
	rows []irow
	byID map[int64]int32
	dead bitset
	live int

	post map[uint32][]posting

	vecModel ModelInfo
	vecs     []float32 // row r's vector at [r*dims, (r+1)*dims), L2-normalised
	hasVec   bitset
	nVec     int

	intern map[string]string
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
	ix.post = map[uint32][]posting{}
	ix.vecs = nil
	ix.hasVec = nil
	ix.nVec = 0
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
	var floor int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key='deletions_floor'), 0)`).Scan(&floor); err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	since := ix.gen
	if ix.gen < 0 || ix.gen < floor {
		ix.reset()
		since = -1
	} else if !sameOrZero(ix.vecModel, vm) {
		ix.vecs, ix.hasVec, ix.nVec = nil, nil, 0
	}
	vecsSince := since
	if !sameOrZero(ix.vecModel, vm) || ix.vecs == nil {
		vecsSince = -1
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
	if !vm.IsZero() {
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
	if ix.hasVec != nil && ix.hasVec.has(r) {
		ix.hasVec.clear(r)
		ix.nVec--
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
			if d := ix.vecModel.Dims; ix.hasVec != nil && ix.hasVec.has(old) {
				oldVec = append([]float32(nil), ix.vecs[int(old)*d:int(old+1)*d]...)
			}
			ix.drop(id)
		}
		r := int32(len(ix.rows))
		ix.rows = append(ix.rows, irow{id: id, m: m})
		ix.byID[id] = r
		ix.dead.grow(len(ix.rows))
		ix.live++
		bl, ml, err := decodeLexBlob(lex, func(e lexEntry) {
			ix.post[e.term] = append(ix.post[e.term], posting{row: r, body: sat16(e.body), meta: sat16(e.meta)})
		})
		if err != nil {
			return err
		}
		ix.rows[r].lenBody, ix.rows[r].lenMeta = bl, ml
		if d := ix.vecModel.Dims; d > 0 {
			ix.growVecs(len(ix.rows))
			if oldVec != nil {
				copy(ix.vecs[int(r)*d:], oldVec)
				ix.hasVec.set(r)
				ix.nVec++
			}
		}
	}
	return rows.Err()
}

func sat16(n uint32) uint16 { return uint16(min(n, math.MaxUint16)) }

func (ix *Index) growVecs(n int) {
	d := ix.vecModel.Dims
	if need := n * d; len(ix.vecs) < need {
		if cap(ix.vecs) >= need {
			ix.vecs = ix.vecs[:need]
		} else {
			grown := make([]float32, need, need+need/4)
			copy(grown, ix.vecs)
			ix.vecs = grown
		}
	}
	ix.hasVec.grow(n)
}

func (ix *Index) loadVectors(ctx context.Context, tx *sql.Tx, since int64) error {
	d := ix.vecModel.Dims
	ix.growVecs(len(ix.rows))
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
		r, ok := ix.byID[id]
		if !ok {
			continue
		}
		dst := ix.vecs[int(r)*d : int(r+1)*d]
		if !decodeVectorInto(dst, blob) {
			continue // a vector of other dims is not this model's
		}
		normalise(dst)
		if !ix.hasVec.has(r) {
			ix.hasVec.set(r)
			ix.nVec++
		}
	}
	return rows.Err()
}

// compact drops dead rows, renumbering the survivors.
func (ix *Index) compact() {
	remap := make([]int32, len(ix.rows))
	var rows []irow
	d := ix.vecModel.Dims
	var vecs []float32
	var hasVec bitset
	if d > 0 {
		vecs = make([]float32, 0, ix.live*d)
		hasVec.grow(ix.live)
	}
	for r, row := range ix.rows {
		if ix.dead.has(int32(r)) {
			remap[r] = -1
			continue
		}
		nr := int32(len(rows))
		remap[r] = nr
		rows = append(rows, row)
		ix.byID[row.id] = nr
		if d > 0 {
			vecs = append(vecs, ix.vecs[r*d:(r+1)*d]...)
			if ix.hasVec.has(int32(r)) {
				hasVec.set(nr)
			}
		}
	}
	for t, ps := range ix.post {
		out := ps[:0]
		for _, p := range ps {
			if nr := remap[p.row]; nr >= 0 {
				p.row = nr
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			delete(ix.post, t)
		} else {
			ix.post[t] = out
		}
	}
	ix.rows, ix.vecs, ix.hasVec = rows, vecs, hasVec
	ix.dead = make(bitset, (len(rows)+63)/64)
}

// Len is the number of live chunks and how many have a vector.
func (ix *Index) Len() (chunks, vectors int) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live, ix.nVec
}

// pool is a filter evaluated over the index: the rows inside it and their
// collection statistics.
type pool struct {
	rows    bitset
	n       int
	avgLen  float64
	vectors int // rows in the pool that have a vector
}

// poolOf evaluates f over every live row. Caller holds ix.mu.
func (ix *Index) poolOf(f Filter) pool {
	p := pool{rows: make(bitset, (len(ix.rows)+63)/64)}
	var total float64
	for r := range ix.rows {
		if ix.dead.has(int32(r)) || !f.matches(ix.rows[r].m) {
			continue
		}
		p.rows.set(int32(r))
		p.n++
		total += float64(ix.rows[r].lenBody + ix.rows[r].lenMeta)
		if ix.hasVec != nil && ix.hasVec.has(int32(r)) {
			p.vectors++
		}
	}
	if p.n > 0 {
		p.avgLen = total / float64(p.n)
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

type scored struct {
	row   int32
	score float32
}

// keyword ranks the pool by BM25 for the query terms and returns the best
// k rows.
func (ix *Index) keyword(p pool, terms map[uint32]int, k int) []scored {
	if p.n == 0 || len(terms) == 0 || k <= 0 {
		return nil
	}
	acc := make(map[int32]float32, 256)
	N := float64(p.n)
	for t, qtf := range terms {
		ps := ix.post[t]
		df := 0
		for _, q := range ps {
			if p.rows.has(q.row) {
				df++
			}
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (N-float64(df)+0.5)/(float64(df)+0.5))
		w := float32(idf * float64(qtf))
		for _, q := range ps {
			if !p.rows.has(q.row) {
				continue
			}
			row := &ix.rows[q.row]
			tf := float32(q.body) + metaBoost*float32(q.meta)
			norm := float32(bm25K1 * (1 - bm25B + bm25B*float64(row.lenBody+row.lenMeta)/p.avgLen))
			acc[q.row] += w * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	top := newTopK(k)
	for r, s := range acc {
		top.push(scored{row: r, score: s})
	}
	return top.sorted()
}

// dense ranks the pool's rows that have a vector by cosine similarity to q
// (already normalised) and returns the best k.
func (ix *Index) dense(p pool, q []float32, k int) []scored {
	d := ix.vecModel.Dims
	if p.vectors == 0 || len(q) != d || k <= 0 {
		return nil
	}
	top := newTopK(k)
	for wi := range min(len(p.rows), len(ix.hasVec)) {
		w := p.rows[wi] & ix.hasVec[wi]
		for w != 0 {
			r := int32(wi*64 + bits.TrailingZeros64(w))
			w &= w - 1
			top.push(scored{row: r, score: dot(ix.vecs[int(r)*d:int(r+1)*d], q)})
		}
	}
	return top.sorted()
}

// dot is the inner product, unrolled by four.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
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
	out := append([]scored(nil), t.h...)
	for i := 1; i < len(out); i++ { // k is small
		for j := i; j > 0 && lessScored(out[j-1], out[j]); j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}
