package embed

import (
	"math/rand/v2"
	"testing"
)

func TestPlanGroupsByLengthAndKeepsPositions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := make([]tokens, 100)
	for i := range inputs {
		n := 1 + r.IntN(512)
		in := tokens{ids: make([]int64, n), types: make([]int64, n)}
		for j := range in.ids {
			in.ids[j] = int64(i + 1) // every token names its input
		}
		inputs[i] = in
	}
	seen := map[int]bool{}
	prevLongest := 0
	const padID = 1 // XLM-R's <pad> (input 0's own tokens are 1 too: the mask tells them apart)
	for _, b := range plan(inputs, 16, padID) {
		if b.rows > 16 || b.rows > 1 && b.rows*b.seq > maxBatchTokens {
			t.Fatalf("batch of %d x %d exceeds %d rows or %d tokens", b.rows, b.seq, 16, maxBatchTokens)
		}
		if b.lens[0] < prevLongest {
			t.Fatalf("batches are not in length order: %d after %d", b.lens[0], prevLongest)
		}
		for i, at := range b.index {
			if seen[at] {
				t.Fatalf("input %d planned twice", at)
			}
			seen[at] = true
			n := len(inputs[at].ids)
			if b.lens[i] != n || i > 0 && b.lens[i] < b.lens[i-1] {
				t.Fatalf("row %d: length %d, input has %d (lengths %v)", i, b.lens[i], n, b.lens)
			}
			row := b.ids[i*b.seq : (i+1)*b.seq]
			mask := b.mask[i*b.seq : (i+1)*b.seq]
			for j := range row {
				want, wantMask := int64(at+1), int64(1)
				if j >= n {
					want, wantMask = padID, 0
				}
				if row[j] != want || mask[j] != wantMask {
					t.Fatalf("row %d position %d: id %d mask %d, want %d %d", i, j, row[j], mask[j], want, wantMask)
				}
			}
		}
		prevLongest = b.seq
	}
	if len(seen) != len(inputs) {
		t.Fatalf("planned %d of %d inputs", len(seen), len(inputs))
	}
}
