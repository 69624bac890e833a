package kb

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The int8 kernel (assembly where the CPU has AVX2) computes exactly what
// the Go loop does, for every row count a bitmap run can have and for
// strides past the 384 of the benchmarks.
func TestInt8KernelMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, stride := range []int{32, 64, 384, 416, 1024} {
		q := make([]int16, stride)
		vecs := make([]int8, 65*stride)
		for i := range q {
			q[i] = int16(r.IntN(255) - 127)
		}
		for i := range vecs {
			vecs[i] = int8(r.IntN(255) - 127)
		}
		for i := range stride { // the extremes, where a wrong widening shows
			q[i], vecs[i] = -127, 127
		}
		for _, n := range []int{0, 1, 2, 7, 63, 64, 65} {
			got, want := make([]int32, n), make([]int32, n)
			dotsInt8(q, vecs, stride, got)
			dotsInt8Go(q, vecs, stride, want)
			if !slices.Equal(got, want) {
				t.Fatalf("stride %d, %d rows: kernel %v, Go %v", stride, n, got, want)
			}
		}
	}
}

// The int8 first pass with float rescoring returns the float ranking: the
// same rows, the same (float) scores, on clustered vectors (neighbours at
// nearly equal distances, the hard case for quantisation) and on pools
// with holes (runs of every length).
func TestDenseInt8RanksLikeFloat(t *testing.T) {
	const n, dims = 9000, 384 // more than two slab blocks
	// The int8 path runs through the Go loop where there is no kernel.
	slab, exact := newVecSlabOf(dims, true), newVecSlabOf(dims, false)
	slab.grow(n)
	exact.grow(n)
	for i := range n {
		v := normalise(benchCorpus.Vector(benchCorpus.Doc(i), i, dims))
		slab.set(int32(i), v)
		exact.set(int32(i), v)
	}
	if got, want := slab.bytesPerRow(), 384+4; got != want {
		t.Fatalf("a quantised row takes %d bytes, want %d (no float copy)", got, want)
	}
	r := rand.New(rand.NewPCG(2, 2))
	all := make(bitset, (n+63)/64)
	holes := make(bitset, (n+63)/64)
	for i := range n {
		all.set(int32(i))
		if r.IntN(3) != 0 {
			holes.set(int32(i))
		}
	}
	floatRow := func(r int32) ([]float32, bool) { return exact.row(r), true }
	for qi := range 15 {
		q := benchCorpus.QueryVector(qi, dims)
		for _, pool := range []bitset{all, holes} {
			for _, k := range []int{1, 25, 100} {
				got, want := rescoreRows(slab.search(pool, q, k), q, k, floatRow), exact.search(pool, q, k)
				if !slices.Equal(got, want) {
					t.Fatalf("query %d, k %d: int8+rescore %v, float %v", qi, k, got, want)
				}
			}
		}
	}
}

// The index's BM25 is the exhaustive BM25 of the benchmark's reference:
// every returned chunk carries its exhaustive score, and the scores run
// down the same sequence (equal scores may trade places).
func TestKeywordMatchesExhaustiveBM25(t *testing.T) {
	const n = 1500
	s := open(t, t.TempDir())
	chunks := synthChunks(0, n, 0)
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ix := s.Index()
	if err := ix.Sync(ctx, s, ModelInfo{}); err != nil {
		t.Fatal(err)
	}
	for _, pf := range []struct {
		f  Filter
		in func(Chunk) bool
	}{
		{Filter{}, func(Chunk) bool { return true }},
		{Filter{Visibility: []string{Public}}, func(c Chunk) bool { return c.Meta.Visibility == Public }},
	} {
		ref := newRefBM25(chunks, pf.in)
		for _, query := range benchCorpus.Queries(100, n) {
			terms, err := s.queryTerms(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			ix.mu.RLock()
			got := ix.keyword(ix.poolOf(pf.f), terms, 25)
			ix.mu.RUnlock()
			wantRows, wantScores := ref.search(query, 25)
			if len(got) != len(wantRows) {
				t.Fatalf("%q: %d hits, reference %d", query, len(got), len(wantRows))
			}
			all, allScores := ref.search(query, n)
			refScore := map[int32]float32{}
			for i, row := range all {
				refScore[row] = allScores[i]
			}
			for i, g := range got {
				row := int32(ix.rows[g.row].id - 1) // ids follow the generator's order
				if !close32(g.score, wantScores[i]) || !close32(g.score, refScore[row]) {
					t.Fatalf("%q rank %d: row %d scored %v, reference %v (its own %v)", query, i, row, g.score, wantScores[i], refScore[row])
				}
			}
		}
	}
}

func close32(a, b float32) bool {
	return math.Abs(float64(a-b)) <= 1e-4*math.Max(1, math.Abs(float64(b)))
}
