package embed

import (
	"cmp"
	"slices"
)

// maxBatchTokens caps one batch's padded size (sequences x longest
// sequence): 2 sequences of 512 tokens, 8 of 128. On the bge-small-shaped
// graph through ONNX Runtime, chunks/s hardly changed between 1,024 and
// 4,096 tokens a batch, while the process's peak memory at 512-token chunks
// went from about 370 MB to 720 MB (260 MB of it the loaded model).
const maxBatchTokens = 1024

// paddedBatch is a batch of inputs right-padded to its longest member, in
// the flat row-major layout both backends take.
type paddedBatch struct {
	rows, seq        int
	ids, mask, types []int64 // rows*seq each
	lens             []int   // real tokens per row
	index            []int   // each row's position in the caller's input
}

// plan groups inputs into batches by length: sorted by token count, so a
// batch pads its members to similar lengths, then cut at maxRows and at
// maxBatchTokens. Each batch carries the original positions of its rows.
func plan(inputs []tokens, maxRows int, padID int64) []*paddedBatch {
	order := make([]int, len(inputs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(inputs[a].ids), len(inputs[b].ids)) })
	var out []*paddedBatch
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && end-start < maxRows && (end-start+1)*len(inputs[order[end]].ids) <= maxBatchTokens {
			end++
		}
		out = append(out, pad(inputs, order[start:end], padID))
		start = end
	}
	return out
}

// pad lays the chosen inputs out as one batch: the model's padding id,
// mask 0. (XLM-R derives position ids from where the padding id is.)
func pad(inputs []tokens, rows []int, padID int64) *paddedBatch {
	seq := 1
	for _, r := range rows {
		seq = max(seq, len(inputs[r].ids))
	}
	n := len(rows) * seq
	b := &paddedBatch{
		rows: len(rows), seq: seq,
		ids: make([]int64, n), mask: make([]int64, n), types: make([]int64, n),
		lens: make([]int, len(rows)), index: rows,
	}
	if padID != 0 {
		for i := range b.ids {
			b.ids[i] = padID
		}
	}
	for i, r := range rows {
		in := inputs[r]
		off := i * seq
		copy(b.ids[off:], in.ids)
		copy(b.types[off:], in.types)
		for j := range in.ids {
			b.mask[off+j] = 1
		}
		b.lens[i] = len(in.ids)
	}
	return b
}

// graphOutput is the first output of a graph call for one batch: token
// vectors [rows, seq, width] (tokenLevel) or one row [rows, width].
type graphOutput struct {
	data       []float32
	width      int
	tokenLevel bool
}

// row returns sequence i's output row (its [CLS] token when token-level).
func (o graphOutput) row(b *paddedBatch, i int) []float32 {
	off := i * o.width
	if o.tokenLevel {
		off = i * b.seq * o.width
	}
	return o.data[off : off+o.width]
}

// token returns the vector of token j of sequence i (token-level outputs).
func (o graphOutput) token(b *paddedBatch, i, j int) []float32 {
	off := (i*b.seq + j) * o.width
	return o.data[off : off+o.width]
}
