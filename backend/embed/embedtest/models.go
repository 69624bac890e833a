package embedtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Special tokens, in BERT's order and ids.
var specials = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}

const clsID = 2

// MaxPositions is written to config.json; inputs longer than this are
// truncated by the tokenizer, as with a real 512-position BERT.
const MaxPositions = 512

// vocab returns the token list: specials, then the given words lowercased
// and deduplicated in first-seen order.
func vocab(words []string) []string {
	out := slices.Clone(specials)
	seen := map[string]bool{}
	for _, s := range specials {
		seen[s] = true
	}
	for _, w := range words {
		w = strings.ToLower(strings.TrimSpace(w))
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// Words splits text into the lowercase words a vocabulary needs, using the
// same rule as BERT's pre-tokenizer (letters and digits; punctuation apart).
func Words(texts ...string) []string {
	var out []string
	for _, t := range texts {
		out = append(out, strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
		})...)
	}
	return out
}

// identity returns the V x V embedding table: one-hot rows for words and
// zero rows for special tokens, so specials never count as overlap.
func identity(v int) []float32 {
	e := make([]float32, v*v)
	for i := len(specials); i < v; i++ {
		e[i*v+i] = 1
	}
	return e
}

// maskedWords starts both graphs: X = one-hot rows of the input ids and
// m3 = the attention mask as a [batch, seq, 1] float.
func maskedWords(v int64) *graph {
	g := &graph{inputs: textInputs}
	g.inits = [][]byte{
		floatTensor("E", []int64{v, v}, identity(int(v))),
		int64Tensor("axis2", []int64{1}, []int64{2}),
	}
	g.nodes = [][]byte{
		node("Gather", []string{"E", "input_ids"}, []string{"X"}),
		node("Cast", []string{"attention_mask"}, []string{"m"}, intAttr("to", tensorFloat)),
		node("Unsqueeze", []string{"m", "axis2"}, []string{"m3"}),
	}
	return g
}

var textInputs = [][]byte{
	valueInfo("input_ids", tensorInt64, dim{param: "batch"}, dim{param: "sequence"}),
	valueInfo("attention_mask", tensorInt64, dim{param: "batch"}, dim{param: "sequence"}),
	valueInfo("token_type_ids", tensorInt64, dim{param: "batch"}, dim{param: "sequence"}),
}

// WriteEmbedder writes a feature-extraction model over the given words.
// last_hidden_state is the one-hot word table; the [CLS] position carries
// the masked mean of the sequence, so CLS and mean pooling both yield a
// normalised bag of words.
func WriteEmbedder(dir string, words []string) error {
	voc := vocab(words)
	v := int64(len(voc))
	g := maskedWords(v)
	g.inits = append(g.inits, int64Tensor("cls", nil, []int64{clsID}))
	g.nodes = append(g.nodes,
		node("Mul", []string{"X", "m3"}, []string{"Xm"}),
		node("ReduceMean", []string{"Xm"}, []string{"mean"}, intsAttr("axes", 1), intAttr("keepdims", 1)),
		node("Equal", []string{"input_ids", "cls"}, []string{"isCLSb"}),
		node("Cast", []string{"isCLSb"}, []string{"isCLS"}, intAttr("to", tensorFloat)),
		node("Unsqueeze", []string{"isCLS", "axis2"}, []string{"isCLS3"}),
		node("Mul", []string{"isCLS3", "mean"}, []string{"clsPart"}),
		node("Add", []string{"X", "clsPart"}, []string{"last_hidden_state"}),
	)
	g.outputs = [][]byte{valueInfo("last_hidden_state", tensorFloat, dim{param: "batch"}, dim{param: "sequence"}, dim{size: v})}
	return writeDir(dir, "embedtest-bow", g.model("embedtest-bow"), voc, nil)
}

// overlapScale lifts the tiny mean-of-products into a logit range where the
// sigmoid does not saturate for passages of a few to a few hundred words.
const overlapScale = 1e5

// WriteReranker writes a cross-encoder over the given words: its logit is
// the scaled dot product of the query segment's and the passage segment's
// word counts (segments told apart by token_type_ids, as in BERT).
func WriteReranker(dir string, words []string) error {
	voc := vocab(words)
	v := int64(len(voc))
	g := maskedWords(v)
	g.inits = append(g.inits,
		floatTensor("one", []int64{1}, []float32{1}),
		floatTensor("scale", []int64{1}, []float32{overlapScale}))
	g.nodes = append(g.nodes,
		node("Cast", []string{"token_type_ids"}, []string{"t"}, intAttr("to", tensorFloat)),
		node("Unsqueeze", []string{"t", "axis2"}, []string{"t3"}),
		node("Sub", []string{"one", "t3"}, []string{"a3"}),
		node("Mul", []string{"X", "m3"}, []string{"Xm"}),
		node("Mul", []string{"Xm", "a3"}, []string{"Xq"}),
		node("Mul", []string{"Xm", "t3"}, []string{"Xd"}),
		node("ReduceMean", []string{"Xq"}, []string{"q"}, intsAttr("axes", 1), intAttr("keepdims", 0)),
		node("ReduceMean", []string{"Xd"}, []string{"d"}, intsAttr("axes", 1), intAttr("keepdims", 0)),
		node("Mul", []string{"q", "d"}, []string{"qd"}),
		node("ReduceMean", []string{"qd"}, []string{"overlap"}, intsAttr("axes", 1), intAttr("keepdims", 1)),
		node("Mul", []string{"overlap", "scale"}, []string{"logits"}),
	)
	g.outputs = [][]byte{valueInfo("logits", tensorFloat, dim{param: "batch"}, dim{size: 1})}
	return writeDir(dir, "embedtest-overlap", g.model("embedtest-overlap"), voc, map[string]any{
		"id2label": map[string]string{"0": "LABEL_0"},
	})
}

// writeDir lays the files out as a Hugging Face ONNX export does.
func writeDir(dir, name string, onnx []byte, voc []string, extraConfig map[string]any) error {
	if err := os.MkdirAll(filepath.Join(dir, "onnx"), 0o755); err != nil {
		return err
	}
	cfg := map[string]any{
		"model_type":              "bert",
		"_name_or_path":           name,
		"max_position_embeddings": MaxPositions,
		"pad_token_id":            0,
		"vocab_size":              len(voc),
	}
	for k, v := range extraConfig {
		cfg[k] = v
	}
	files := map[string]any{
		"config.json":             cfg,
		"tokenizer.json":          tokenizerJSON(voc),
		"special_tokens_map.json": map[string]string{"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"},
	}
	for file, v := range files {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "onnx", "model.onnx"), onnx, 0o644)
}

// tokenizerJSON builds a BERT WordPiece tokenizer.json in the format the
// Hugging Face tokenizers library saves.
func tokenizerJSON(voc []string) map[string]any {
	ids := map[string]int{}
	for i, t := range voc {
		ids[t] = i
	}
	var added []map[string]any
	for i, s := range specials {
		added = append(added, map[string]any{"id": i, "content": s, "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})
	}
	special := func(tok string) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": tok, "type_id": 0}}
	}
	seq := func(id string, typ int) map[string]any {
		return map[string]any{"Sequence": map[string]any{"id": id, "type_id": typ}}
	}
	sepPair := map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 1}}
	specialEntry := func(tok string) map[string]any {
		return map[string]any{"id": tok, "ids": []int{ids[tok]}, "tokens": []string{tok}}
	}
	return map[string]any{
		"version":       "1.0",
		"truncation":    nil,
		"padding":       nil,
		"added_tokens":  added,
		"normalizer":    map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{special("[CLS]"), seq("A", 0), special("[SEP]")},
			"pair":   []any{special("[CLS]"), seq("A", 0), special("[SEP]"), seq("B", 1), sepPair},
			"special_tokens": map[string]any{
				"[CLS]": specialEntry("[CLS]"),
				"[SEP]": specialEntry("[SEP]"),
			},
		},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": ids,
		},
	}
}
