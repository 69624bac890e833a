package kb

import (
	"math"
	"math/bits"
)

// vecSlab holds one model's vectors by index row, L2-normalised, in blocks
// of slabBlock rows (growing never copies what is there, and nothing is
// allocated beyond the last block). Where the int8 kernel runs
// (dot_amd64.s) a row is kept only as int8 with a scale per row: the scan
// reads a quarter of the bytes (memory traffic is what bounds an exact
// scan) and the process holds a quarter of the memory; its best candidates
// are then rescored on the store's float vectors (Store.rescore), so the
// ranking is the float ranking unless two scores sit closer than the
// quantisation error at the edge of the candidate list (tested against the
// float scan). Elsewhere rows are float32 and the scan is exact.
type vecSlab struct {
	dims int
	has  bitset
	n    int // rows with a vector

	f32 [][]float32 // without the kernel: block b holds rows [b*slabBlock, (b+1)*slabBlock)

	stride int         // int8 row length: dims rounded up to 32, zero padded
	i8     [][]int8    // with the kernel
	scale  [][]float32 // row r ≈ its int8 row × its scale
	tmp    []float32   // decoding buffer (writes hold the index's lock)
}

// slabBlock is a multiple of 64, so one bitmap word never spans two blocks.
const slabBlock = 4096

func newVecSlab(dims int) *vecSlab { return newVecSlabOf(dims, haveInt8Kernel) }

// newVecSlabOf makes a slab of int8 rows (quantised) or float32 rows.
func newVecSlabOf(dims int, quantised bool) *vecSlab {
	v := &vecSlab{dims: dims}
	if quantised && dims > 0 {
		v.stride = (dims + 31) / 32 * 32
		v.i8 = [][]int8{}
		v.tmp = make([]float32, dims)
	}
	return v
}

// quantised says the slab's scores are approximate: its candidates need
// rescoring on the float vectors.
func (v *vecSlab) quantised() bool { return v.i8 != nil }

// bytesPerRow is the memory a row's vector takes.
func (v *vecSlab) bytesPerRow() int {
	if v.quantised() {
		return v.stride + 4
	}
	return 4 * v.dims
}

// grow makes room for rows [0, n).
func (v *vecSlab) grow(n int) {
	for v.blocks()*slabBlock < n {
		if v.quantised() {
			v.i8 = append(v.i8, make([]int8, slabBlock*v.stride))
			v.scale = append(v.scale, make([]float32, slabBlock))
		} else {
			v.f32 = append(v.f32, make([]float32, slabBlock*v.dims))
		}
	}
	v.has.grow(n)
}

func (v *vecSlab) blocks() int { return max(len(v.f32), len(v.i8)) }

func growTo[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	if cap(s) >= n {
		return s[:n]
	}
	grown := make([]T, n, n+n/4)
	copy(grown, s)
	return grown
}

func (v *vecSlab) row(r int32) []float32 {
	o := int(r%slabBlock) * v.dims
	return v.f32[r/slabBlock][o : o+v.dims]
}

func (v *vecSlab) row8(r int32) []int8 {
	o := int(r%slabBlock) * v.stride
	return v.i8[r/slabBlock][o : o+v.stride]
}

// setBlob stores a stored vector (little-endian float32s) at row r; false
// when its length is not this model's.
func (v *vecSlab) setBlob(r int32, blob []byte) bool {
	dst := v.tmp
	if !v.quantised() {
		dst = v.row(r)
	}
	if !decodeVectorInto(dst, blob) {
		return false
	}
	normalise(dst)
	if v.quantised() {
		v.quantise(r, dst)
	}
	v.mark(r)
	return true
}

// set stores a normalised vector at row r.
func (v *vecSlab) set(r int32, vec []float32) {
	if v.quantised() {
		v.quantise(r, vec)
	} else {
		copy(v.row(r), vec)
	}
	v.mark(r)
}

// copyRow stores row from of src at row r (a vector moving with its
// rewritten chunk, or kept by a compaction); src may be v.
func (v *vecSlab) copyRow(r int32, src *vecSlab, from int32) {
	if v.quantised() {
		copy(v.row8(r), src.row8(from))
		v.scale[r/slabBlock][r%slabBlock] = src.scale[from/slabBlock][from%slabBlock]
	} else {
		copy(v.row(r), src.row(from))
	}
	v.mark(r)
}

func (v *vecSlab) mark(r int32) {
	if !v.has.has(r) {
		v.has.set(r)
		v.n++
	}
}

func (v *vecSlab) drop(r int32) {
	if int(r) < len(v.has)*64 && v.has.has(r) {
		v.has.clear(r)
		v.n--
	}
}

// quantise stores f as row r's int8 copy: symmetric, scaled to the row's
// largest component.
func (v *vecSlab) quantise(r int32, f []float32) {
	var m float32
	for _, x := range f {
		m = max(m, abs32(x))
	}
	dst := v.row8(r)
	clear(dst)
	scale := &v.scale[r/slabBlock][r%slabBlock]
	if m == 0 {
		*scale = 0
		return
	}
	inv := 127 / m
	for i, x := range f {
		dst[i] = int8(math.Round(float64(x * inv)))
	}
	*scale = m / 127
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// compact keeps the rows whose remap is >= 0, renumbered.
func (v *vecSlab) compact(remap []int32, live int) *vecSlab {
	out := newVecSlabOf(v.dims, v.quantised())
	out.grow(live)
	for r, nr := range remap {
		if nr >= 0 && v.has.has(int32(r)) {
			out.copyRow(nr, v, int32(r))
		}
	}
	return out
}

// rescoreFactor: the int8 pass keeps this many candidates per result asked
// for (and at least rescoreMin) for the float rescoring.
const (
	rescoreFactor = 4
	rescoreMin    = 64
)

// search ranks the rows of pool that have a vector by cosine similarity to
// q (normalised, len dims). A float slab returns the best k, exactly. A
// quantised one returns the candidates for them, unordered and scored
// approximately, for rescoreRows.
func (v *vecSlab) search(pool bitset, q []float32, k int) []scored {
	if !v.quantised() {
		return v.scanFloat(pool, q, k)
	}
	return v.scanInt8(pool, q, max(k*rescoreFactor, rescoreMin))
}

// rescoreRows ranks candidates on their float vectors (vec gives a row's,
// normalised; false when it is gone) and returns the best k, ordered as
// the float scan orders them.
func rescoreRows(cands []scored, q []float32, k int, vec func(row int32) ([]float32, bool)) []scored {
	top := newTopK(k)
	for _, c := range cands {
		if f, ok := vec(c.row); ok {
			top.push(scored{row: c.row, score: dot(f, q)})
		}
	}
	return top.sorted()
}

// scanFloat is the exact scan of a float slab.
func (v *vecSlab) scanFloat(pool bitset, q []float32, k int) []scored {
	top := newTopK(k)
	for wi := range min(len(pool), len(v.has)) {
		w := pool[wi] & v.has[wi]
		for w != 0 {
			r := int32(wi*64 + bits.TrailingZeros64(w))
			w &= w - 1
			top.push(scored{row: r, score: dot(v.row(r), q)})
		}
	}
	return top.sorted()
}

// scanInt8 scores the pool's rows on the int8 copy, 64 rows (one bitmap
// word) at a time, the kernel running over each run of consecutive rows.
func (v *vecSlab) scanInt8(pool bitset, q []float32, k int) []scored {
	var qm float32
	for _, x := range q {
		qm = max(qm, abs32(x))
	}
	q16 := make([]int16, v.stride)
	if qm > 0 {
		for i, x := range q {
			q16[i] = int16(math.Round(float64(x * 127 / qm)))
		}
	}
	var out [64]int32
	top := newTopK(k)
	for wi := range min(len(pool), len(v.has)) {
		w := pool[wi] & v.has[wi]
		if w == 0 {
			continue
		}
		blk, first := wi*64/slabBlock, wi*64%slabBlock
		vecs, scale := v.i8[blk], v.scale[blk]
		for w != 0 {
			lo := bits.TrailingZeros64(w)
			run := bits.TrailingZeros64(^(w >> lo)) // consecutive set bits from lo
			at := first + lo
			dotsInt8(q16, vecs[at*v.stride:], v.stride, out[:run])
			for j, d := range out[:run] {
				top.push(scored{row: int32(wi*64 + lo + j), score: float32(d) * scale[at+j]})
			}
			if lo+run == 64 {
				break
			}
			w &^= (1<<run - 1) << lo
		}
	}
	return top.h
}

// dot is the float32 inner product, unrolled by four.
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

// dotsInt8Go is the kernel in Go (reference for the assembly's test).
func dotsInt8Go(q []int16, vecs []int8, stride int, out []int32) {
	for i := range out {
		row := vecs[i*stride : (i+1)*stride]
		var s int32
		for j, x := range row {
			s += int32(x) * int32(q[j])
		}
		out[i] = s
	}
}
