package embedtest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// BERT describes a BERT encoder with RANDOM weights: the architecture of
// bge-small-en-v1.5 (BertModel, last_hidden_state) or, with CrossEncoder, of
// ms-marco-MiniLM-L6-v2 (BertForSequenceClassification: pooler and one
// logit). Small ones check that both inference backends compute the same
// transformer; real-size ones measure speed. They rank nothing: never a
// search model.
type BERT struct {
	Words        []string // vocabulary after the special tokens (see SyntheticWords)
	Hidden       int      // hidden size; a multiple of Heads
	Layers       int
	Heads        int
	FFN          int // intermediate size
	Positions    int // max_position_embeddings
	CrossEncoder bool
	Seed         uint64
	// Std is the weights' standard deviation; 0 means BERT's 0.02. Larger
	// values make a small model's outputs depend more on the whole text.
	Std float64
	// TorchGELU writes GELU as torch.onnx exports it (x·(1 + erf(x/√2))·½,
	// dividing by √2) instead of ½x·(1 + erf(x·(1/√2))): the int8 copy's
	// fusion has to find both.
	TorchGELU bool
}

// BGESmallShape and MiniLMRerankerShape are the sizes of Jarvis's default
// models (vocabulary 30,522, 512 positions, hidden 384, 12 heads, FFN 1536).
func BGESmallShape() BERT {
	return BERT{Words: SyntheticWords(30522 - len(specials)), Hidden: 384, Layers: 12, Heads: 12, FFN: 1536, Positions: 512, Seed: 1}
}

func MiniLMRerankerShape() BERT {
	b := BGESmallShape()
	b.Layers, b.CrossEncoder, b.Seed = 6, true, 2
	return b
}

// SyntheticWords returns n distinct lowercase words ("aa", "ab", ...), each
// a single token of the vocabulary it becomes.
func SyntheticWords(n int) []string {
	out := make([]string, n)
	for i := range out {
		w := []byte{}
		for k := i + 26; k > 0; k /= 26 {
			w = append([]byte{byte('a' + k%26)}, w...)
		}
		out[i] = string(w)
	}
	return out
}

const (
	layerNormEps = 1e-12
	initStd      = 0.02 // BERT's initializer range
)

// WriteBERT writes the model directory: onnx/model.onnx (opset 17, the node
// pattern a PyTorch export of Hugging Face BERT has: MatMul+Add, heads by
// Reshape/Transpose, additive attention mask, Softmax, erf GELU,
// LayerNormalization), tokenizer.json and config.json.
func WriteBERT(dir string, spec BERT) error {
	if spec.Heads <= 0 || spec.Hidden%spec.Heads != 0 {
		return fmt.Errorf("hidden size %d is not a multiple of %d heads", spec.Hidden, spec.Heads)
	}
	voc := vocab(spec.Words)
	b := &bertBuilder{spec: spec, rng: rand.New(rand.NewPCG(spec.Seed, 0x6a61727669730a)), g: &graph{inputs: textInputs, opset: 17}}
	name := "embedtest-bert"
	out := b.encoder(int64(len(voc)))
	cfg := map[string]any{
		"architectures": []string{"BertModel"}, "hidden_size": spec.Hidden, "num_hidden_layers": spec.Layers,
		"num_attention_heads": spec.Heads, "intermediate_size": spec.FFN, "max_position_embeddings": spec.Positions,
		"hidden_act": "gelu", "layer_norm_eps": layerNormEps, "type_vocab_size": 2,
	}
	if spec.CrossEncoder {
		name = "embedtest-bert-cross-encoder"
		out = b.classifier(out)
		cfg["architectures"] = []string{"BertForSequenceClassification"}
		cfg["id2label"] = map[string]string{"0": "LABEL_0"}
		b.g.outputs = [][]byte{valueInfo("logits", tensorFloat, dim{param: "batch"}, dim{size: 1})}
		b.g.nodes = append(b.g.nodes, node("Identity", []string{out}, []string{"logits"}))
	} else {
		b.g.outputs = [][]byte{valueInfo("last_hidden_state", tensorFloat, dim{param: "batch"}, dim{param: "sequence"}, dim{size: int64(spec.Hidden)})}
		b.g.nodes = append(b.g.nodes, node("Identity", []string{out}, []string{"last_hidden_state"}))
	}
	return writeDir(dir, name, b.g.model(name), voc, cfg)
}

// bertBuilder adds nodes and initializers with generated names.
type bertBuilder struct {
	spec BERT
	rng  *rand.Rand
	g    *graph
	n    int
}

func (b *bertBuilder) op(typ string, inputs []string, attrs ...attr) string {
	b.n++
	out := fmt.Sprintf("%s_%d", typ, b.n)
	b.g.nodes = append(b.g.nodes, node(typ, inputs, []string{out}, attrs...))
	return out
}

func (b *bertBuilder) floats(name string, dims []int64, v []float32) string {
	b.g.inits = append(b.g.inits, floatTensor(name, dims, v))
	return name
}

func (b *bertBuilder) ints(name string, v ...int64) string {
	b.g.inits = append(b.g.inits, int64Tensor(name, []int64{int64(len(v))}, v))
	return name
}

// random is a normal(0, Std) initializer.
func (b *bertBuilder) random(name string, dims ...int64) string {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	std := b.spec.Std
	if std == 0 {
		std = initStd
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(b.rng.NormFloat64() * std)
	}
	return b.floats(name, dims, v)
}

func (b *bertBuilder) filled(name string, n int, x float32) string {
	v := make([]float32, n)
	for i := range v {
		v[i] = x
	}
	return b.floats(name, []int64{int64(n)}, v)
}

// dense is x·W + bias.
func (b *bertBuilder) dense(x, name string, in, out int) string {
	w := b.random(name+".weight", int64(in), int64(out))
	bias := b.random(name+".bias", int64(out))
	return b.op("Add", []string{b.op("MatMul", []string{x, w}), bias})
}

func (b *bertBuilder) layerNorm(x, name string) string {
	h := b.spec.Hidden
	return b.op("LayerNormalization", []string{x, b.filled(name+".weight", h, 1), b.filled(name+".bias", h, 0)},
		intAttr("axis", -1), floatAttr("epsilon", layerNormEps))
}

// encoder builds embeddings and the transformer layers; it returns the
// last hidden state [batch, sequence, hidden].
func (b *bertBuilder) encoder(vocabSize int64) string {
	s := b.spec
	h := int64(s.Hidden)
	scalar := func(name string, x float32) string { return b.floats(name, nil, []float32{x}) }
	one, half := scalar("one", 1), scalar("half", 0.5)
	invSqrt2, sqrt2 := scalar("inv_sqrt2", float32(1/math.Sqrt2)), scalar("sqrt2", math.Sqrt2)
	scale := scalar("attention_scale", float32(1/math.Sqrt(float64(s.Hidden/s.Heads))))
	lowest := scalar("lowest", -math.MaxFloat32)
	headsShape := b.ints("heads_shape", 0, 0, int64(s.Heads), int64(s.Hidden/s.Heads))
	hiddenShape := b.ints("hidden_shape", 0, 0, h)

	// Embeddings: word + token type + the first `sequence` rows of the
	// position table.
	words := b.op("Gather", []string{b.random("embeddings.word_embeddings.weight", vocabSize, h), "input_ids"})
	types := b.op("Gather", []string{b.random("embeddings.token_type_embeddings.weight", 2, h), "token_type_ids"})
	seqLen := b.op("Slice", []string{b.op("Shape", []string{"input_ids"}), b.ints("at1", 1), b.ints("at2", 2)})
	positions := b.op("Slice", []string{b.random("embeddings.position_embeddings.weight", int64(s.Positions), h), b.ints("at0", 0), seqLen, b.ints("axis0", 0)})
	x := b.layerNorm(b.op("Add", []string{b.op("Add", []string{words, types}), positions}), "embeddings.LayerNorm")

	// Padding gets the lowest float added to its attention scores.
	mask := b.op("Cast", []string{b.op("Unsqueeze", []string{"attention_mask", b.ints("axes12", 1, 2)})}, intAttr("to", tensorFloat))
	maskBias := b.op("Mul", []string{b.op("Sub", []string{one, mask}), lowest})

	for l := range s.Layers {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		heads := func(name string, perm ...int64) string {
			return b.op("Transpose", []string{b.op("Reshape", []string{b.dense(x, p+name, s.Hidden, s.Hidden), headsShape})}, intsAttr("perm", perm...))
		}
		q := heads("attention.self.query", 0, 2, 1, 3)
		k := heads("attention.self.key", 0, 2, 3, 1)
		v := heads("attention.self.value", 0, 2, 1, 3)
		scores := b.op("Add", []string{b.op("Mul", []string{b.op("MatMul", []string{q, k}), scale}), maskBias})
		probs := b.op("Softmax", []string{scores}, intAttr("axis", -1))
		ctx := b.op("Reshape", []string{b.op("Transpose", []string{b.op("MatMul", []string{probs, v})}, intsAttr("perm", 0, 2, 1, 3)), hiddenShape})
		x = b.layerNorm(b.op("Add", []string{b.dense(ctx, p+"attention.output.dense", s.Hidden, s.Hidden), x}), p+"attention.output.LayerNorm")
		// GELU, exact: x/2 · (1 + erf(x/√2)).
		inner := b.dense(x, p+"intermediate.dense", s.Hidden, s.FFN)
		var gelu string
		if s.TorchGELU {
			gelu = b.op("Mul", []string{b.op("Mul", []string{inner, b.op("Add", []string{b.op("Erf", []string{b.op("Div", []string{inner, sqrt2})}), one})}), half})
		} else {
			gelu = b.op("Mul", []string{b.op("Mul", []string{inner, half}), b.op("Add", []string{b.op("Erf", []string{b.op("Mul", []string{inner, invSqrt2})}), one})})
		}
		x = b.layerNorm(b.op("Add", []string{b.dense(gelu, p+"output.dense", s.FFN, s.Hidden), x}), p+"output.LayerNorm")
	}
	return x
}

// classifier adds BERT's pooler (dense + tanh on [CLS]) and a one-logit
// head: [batch, 1].
func (b *bertBuilder) classifier(hidden string) string {
	b.g.inits = append(b.g.inits, int64Tensor("cls_position", nil, []int64{0}))
	cls := b.op("Gather", []string{hidden, "cls_position"}, intAttr("axis", 1))
	pooled := b.op("Tanh", []string{b.dense(cls, "pooler.dense", b.spec.Hidden, b.spec.Hidden)})
	return b.dense(pooled, "classifier", b.spec.Hidden, 1)
}

// SetExportLimits writes into dir's tokenizer.json the truncation and fixed
// padding an exporter may leave there (all-MiniLM-L6-v2's file carries
// max_length 128 and Fixed(128)), in the tokenizers library's format.
func SetExportLimits(dir string, truncateAt, padTo int) error {
	path := filepath.Join(dir, "tokenizer.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tok map[string]any
	if err := json.Unmarshal(b, &tok); err != nil {
		return err
	}
	tok["truncation"] = map[string]any{"direction": "Right", "max_length": truncateAt, "strategy": "LongestFirst", "stride": 0}
	tok["padding"] = map[string]any{
		"strategy": map[string]any{"Fixed": padTo}, "direction": "Right", "pad_to_multiple_of": nil,
		"pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]",
	}
	if b, err = json.MarshalIndent(tok, "", "  "); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
