package kb

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/logs"

	"golang.org/x/sys/unix"
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

	fromSnapshot bool   // the last full load came from a verified snapshot
	mapped       []byte // the snapshot file the postings of that load lie in (snapshot.go)
}

type irow struct {
	id, rev          int64
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
	ix.fromSnapshot = false
	ix.unmap()
}

// unmap releases the snapshot mapping once nothing points into it. Only
// the index points into the mapping, and readers hold ix.mu while they use
// a posting list; the caller holds it for writing.
func (ix *Index) unmap() {
	if ix.mapped != nil {
		_ = unix.Munmap(ix.mapped) // a failure leaves address space, not memory
		ix.mapped = nil
	}
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
	since, fromSnapshot := ix.gen, int64(-1)
	if ix.gen < 0 || ix.gen < floor {
		ix.reset()
		since = -1
		if g, err := ix.readSnapshot(s.dir, floor, gen); err == nil {
			since, fromSnapshot = g, g
		} else {
			ix.reset()
			if !errors.Is(err, fs.ErrNotExist) {
				logs.L().Info("index snapshot not used", "dir", s.dir, "err", err)
			}
		}
	}
	vecsSince := since
	if !sameOrZero(ix.vecModel, vm) || ix.vec == nil {
		ix.freshVectors(vm)
		vecsSince = -1
	}
	ix.vecModel = vm
	deleted := 0
	if since >= 0 {
		if deleted, err = ix.applyDeletions(ctx, tx, since); err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
	}
	loaded, err := ix.loadRows(ctx, tx, since)
	if err != nil {
		return errs.Wrap(errs.RAG, op, err)
	}
	if fromSnapshot >= 0 {
		ok, err := ix.verifySnapshot(ctx, tx, fromSnapshot)
		if err != nil {
			return errs.Wrap(errs.RAG, op, err)
		}
		if !ok {
			logs.L().Warn("index snapshot does not match the store; loading from the store", "dir", s.dir, "generation", fromSnapshot)
			ix.reset()
			ix.freshVectors(vm)
			if loaded, err = ix.loadRows(ctx, tx, -1); err != nil {
				return errs.Wrap(errs.RAG, op, err)
			}
		} else {
			ix.fromSnapshot = true
		}
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
	if loaded+deleted >= snapshotMinRows {
		if err := ix.writeSnapshot(s.dir); err != nil { // a cache: the search goes on without it
			logs.L().Warn("cannot write the index snapshot", "dir", s.dir, "err", err)
		}
	}
	return nil
}

// freshVectors starts an empty slab for vm (none for the zero model).
func (ix *Index) freshVectors(vm ModelInfo) {
	ix.vec = nil
	if vm.Dims > 0 {
		ix.vec = newVecSlab(vm.Dims)
		ix.vec.grow(len(ix.rows))
	}
}

func sameOrZero(a, b ModelInfo) bool { return a.ID == b.ID && a.Dims == b.Dims }

func (ix *Index) applyDeletions(ctx context.Context, tx *sql.Tx, since int64) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT chunk_id FROM deletions WHERE gen > ?`, since)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return n, err
		}
		ix.drop(id)
		n++
	}
	return n, rows.Err()
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

// str interns a field value: a few distinct values repeat over every row.
func (ix *Index) str(b []byte) string {
	if v, ok := ix.intern[string(b)]; ok {
		return v
	}
	s := string(b)
	ix.intern[s] = s
	return s
}

// rowMetaSQL reads a row's filterable fields as one string (separated by
// metaSep, extra last): one column instead of ten is half the cost of a
// full load through the driver.
const (
	metaSep    = "\x1f"
	rowMetaSQL = `doc_type||char(31)||visibility||char(31)||source||char(31)||file_path||char(31)||annotation_kind||char(31)||
		category||char(31)||status||char(31)||entity||char(31)||tags||char(31)||extra`
	rowMetaFields = 10
)

// parseRowMeta splits rowMetaSQL's string; false when a field itself held
// the separator (the row is then read column by column).
func (ix *Index) parseRowMeta(b []byte) (*rowMeta, bool) {
	var f [rowMetaFields][]byte
	for i := range rowMetaFields - 1 {
		j := bytes.IndexByte(b, metaSep[0])
		if j < 0 {
			return nil, false
		}
		f[i], b = b[:j], b[j+1:]
	}
	if bytes.IndexByte(b, metaSep[0]) >= 0 {
		return nil, false
	}
	f[rowMetaFields-1] = b
	m := &rowMeta{docType: ix.str(f[0]), visibility: ix.str(f[1]), source: ix.str(f[2]), filePath: ix.str(f[3]),
		annotationKind: ix.str(f[4]), category: ix.str(f[5]), status: ix.str(f[6]), entity: ix.str(f[7]), tags: ix.str(f[8])}
	m.extra = decodeExtra(string(f[9]))
	return m, true
}

// rowMetaByColumns reads one row's filterable fields column by column.
func (ix *Index) rowMetaByColumns(ctx context.Context, tx *sql.Tx, id int64) (*rowMeta, error) {
	var c [rowMetaFields]string
	err := tx.QueryRowContext(ctx, `SELECT doc_type, visibility, source, file_path, annotation_kind, category, status, entity, tags, extra
		FROM chunks WHERE id = ?`, id).Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &c[9])
	if err != nil {
		return nil, err
	}
	return &rowMeta{docType: ix.str([]byte(c[0])), visibility: ix.str([]byte(c[1])), source: ix.str([]byte(c[2])),
		filePath: ix.str([]byte(c[3])), annotationKind: ix.str([]byte(c[4])), category: ix.str([]byte(c[5])),
		status: ix.str([]byte(c[6])), entity: ix.str([]byte(c[7])), tags: ix.str([]byte(c[8])), extra: decodeExtra(c[9])}, nil
}

// loadRows adds rows written after since (all rows when since < 0). A row
// written again (its metadata changed) replaces its old self; its vector
// moves with it. Postings are added in two passes over the batch's terms
// (count, then fill), so every list grows once per sync and a full load
// puts them all in one exactly sized allocation.
func (ix *Index) loadRows(ctx context.Context, tx *sql.Tx, since int64) (int, error) {
	// A catch-up reads through the rev index (a handful of rows out of
	// many); a full load scans the table in id order.
	q, args := `SELECT id, rev, `+rowMetaSQL+`, lex FROM chunks WHERE rev > ? ORDER BY rev, id`, []any{since}
	if since < 0 {
		q, args = `SELECT id, rev, `+rowMetaSQL+`, lex FROM chunks ORDER BY id`, nil
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var (
		meta, lex sql.RawBytes
		arena     []byte // the batch's lex blobs, back to back
		ends      []int  // where each row's blob ends in arena
		first     = int32(len(ix.rows))
		odd       []int64    // rows whose fields held the separator
		moved     [][2]int32 // rewritten rows' vectors: from old row to new
	)
	for rows.Next() {
		var id, rev int64
		if err := rows.Scan(&id, &rev, &meta, &lex); err != nil {
			return 0, err
		}
		m, ok := ix.parseRowMeta(meta)
		if !ok {
			m = &rowMeta{}
			odd = append(odd, id)
		}
		r := int32(len(ix.rows))
		if old, ok := ix.byID[id]; ok {
			if ix.vec != nil && ix.vec.has.has(old) {
				moved = append(moved, [2]int32{old, r})
			}
			ix.drop(id)
		}
		ix.rows = append(ix.rows, irow{id: id, rev: rev, m: m})
		ix.byID[id] = r
		ix.live++
		arena = append(arena, lex...)
		ends = append(ends, len(arena))
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	rows.Close()
	ix.dead.grow(len(ix.rows))
	if ix.vec != nil { // grown once per sync: a full load allocates the slab once
		ix.vec.grow(len(ix.rows))
		for _, m := range moved {
			ix.vec.copyRow(m[1], ix.vec, m[0])
		}
	}
	for _, id := range odd {
		m, err := ix.rowMetaByColumns(ctx, tx, id)
		if err != nil {
			return 0, err
		}
		ix.rows[ix.byID[id]].m = m
	}
	return len(ends), ix.addPostings(first, arena, ends, since < 0)
}

// addPostings indexes the blobs of rows first, first+1, ... (ends[i] is
// where row first+i's blob ends in arena).
func (ix *Index) addPostings(first int32, arena []byte, ends []int, fresh bool) error {
	blob := func(i int) []byte {
		start := 0
		if i > 0 {
			start = ends[i-1]
		}
		return arena[start:ends[i]]
	}
	var counts []int32
	total := 0
	for i := range ends {
		bl, ml, err := decodeLexBlob(blob(i), func(e lexEntry) {
			if int(e.term) >= len(counts) {
				counts = growTo(counts, int(e.term)+1)
			}
			counts[e.term]++
			total++
		})
		if err != nil {
			return err
		}
		ix.rows[first+int32(i)].lenBody, ix.rows[first+int32(i)].lenMeta = bl, ml
	}
	ix.post = growTo(ix.post, len(counts))
	if fresh {
		backing := make([]posting, total)
		off := 0
		for t, n := range counts {
			if n > 0 {
				ix.post[t] = backing[off : off : off+int(n)]
				off += int(n)
			}
		}
	} else {
		for t, n := range counts {
			if n > 0 {
				ix.post[t] = slices.Grow(ix.post[t], int(n))
			}
		}
	}
	for i := range ends {
		r := first + int32(i)
		decodeLexBlob(blob(i), func(e lexEntry) { // decoded once already
			ix.post[e.term] = append(ix.post[e.term], posting{row: r, body: sat16(e.body), meta: sat16(e.meta)})
		})
	}
	return nil
}

func sat16(n uint32) uint16 { return uint16(min(n, math.MaxUint16)) }

func (ix *Index) loadVectors(ctx context.Context, tx *sql.Tx, since int64) error {
	ix.vec.grow(len(ix.rows))
	rows, err := tx.QueryContext(ctx, `SELECT chunk_id, vector FROM vectors WHERE model = ? AND gen > ?`, ix.vecModel.ID, since)
	if err != nil {
		return err
	}
	defer rows.Close()
	var blob sql.RawBytes // decoded in place, not copied
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
	// Lists that lie in a mapped snapshot are copied out, not rewritten
	// where they lie: written, the mapping's pages would become private
	// memory the size of the file. Copied, the mapping is no longer used.
	mapped := ix.mapped != nil
	for t, ps := range ix.post {
		out := ps[:0]
		if mapped {
			n := 0
			for _, p := range ps {
				if remap[p.row] >= 0 {
					n++
				}
			}
			out = make([]posting, 0, n)
		}
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
	if mapped {
		ix.unmap()
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
// (already normalised) and returns the best k, or, when exact is false,
// the candidates for them, to rescore on the store's float vectors.
func (ix *Index) dense(p *pool, q []float32, k int) (_ []scored, exact bool) {
	if ix.vec == nil || p.vectors == 0 || len(q) != ix.vec.dims || k <= 0 {
		return nil, true
	}
	return ix.vec.search(p.rows, q, k), !ix.vec.quantised()
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
