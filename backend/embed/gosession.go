package embed

import (
	"errors"
	"fmt"
	"sync"

	"github.com/knights-analytics/hugot/backends"
)

// encoder runs one padded batch through a model graph. Two implementations:
// ortEncoder (ONNX Runtime) and goEncoder (hugot's pure-Go session).
type encoder interface {
	run(b *paddedBatch) (graphOutput, error)
}

// goEncoder drives a hugot pipeline with batches Jarvis tokenised and
// padded itself, so both backends run on identical inputs.
type goEncoder struct {
	mu     sync.Mutex // one batch at a time, as hugot's pipelines run
	pipe   *backends.BasePipeline
	output int // index of the graph output to read
}

func (g *goEncoder) run(b *paddedBatch) (out graphOutput, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	batch := backends.NewBatch(b.rows)
	defer func() { err = errors.Join(err, batch.Destroy()) }()
	batch.Input = make([]backends.TokenizedInput, b.rows)
	for i := range b.rows {
		off, n := i*b.seq, b.lens[i]
		batch.Input[i] = backends.TokenizedInput{
			TokenIDs:      toUint32(b.ids[off : off+n]),
			TypeIDs:       toUint32(b.types[off : off+n]),
			AttentionMask: toUint32(b.mask[off : off+n]),
		}
	}
	batch.MaxSequenceLength = b.seq
	if err := backends.CreateInputTensors(batch, g.pipe.Model, g.pipe.Runtime); err != nil {
		return out, err
	}
	if err := backends.RunSessionOnBatch(batch, g.pipe); err != nil {
		return out, err
	}
	switch v := batch.OutputValues[g.output].(type) {
	case [][]float32: // pooled inside the graph, or a classifier's logits
		out.width = len(v[0])
		out.data = make([]float32, 0, b.rows*out.width)
		for _, r := range v {
			out.data = append(out.data, r...)
		}
	case [][][]float32:
		// hugot hands back only the unpadded tokens of each row; lay them
		// out again at their positions, as the ONNX Runtime output is.
		out.tokenLevel = true
		out.width = len(v[0][0])
		out.data = make([]float32, b.rows*b.seq*out.width)
		for i, toks := range v {
			for j, t := range toks {
				copy(out.data[(i*b.seq+j)*out.width:], t)
			}
		}
	default:
		return out, fmt.Errorf("model output has unsupported type %T", v)
	}
	return out, nil
}

func toUint32(xs []int64) []uint32 {
	out := make([]uint32, len(xs))
	for i, x := range xs {
		out[i] = uint32(x)
	}
	return out
}
