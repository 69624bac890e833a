package embed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretrained"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// tokens is one tokenised input, unpadded: token ids and segment (token
// type) ids of equal length, special tokens included.
type tokens struct {
	ids, types []int64
}

// textTokenizer turns text into model input for both inference backends, so
// the ONNX Runtime and the pure-Go path see identical ids.
//
// A tokenizer.json can carry the settings of whoever exported it — the
// all-MiniLM-L6-v2 file truncates at 128 tokens and pads every input to a
// fixed 128. Jarvis overrides both on purpose: inputs are truncated at the
// model's position limit (config.json max_position_embeddings), and padding
// is done per batch, to the batch's longest member (see batch.go).
type textTokenizer struct {
	tk        *tokenizer.Tokenizer
	maxTokens int   // special tokens included
	padID     int64 // what a batch pads with: BERT's [PAD] is 0, XLM-R's <pad> 1
}

// modelConfig is the part of a Hugging Face config.json the runtime needs.
type modelConfig struct {
	ModelType    string `json:"model_type"`
	MaxPositions int    `json:"max_position_embeddings"`
	PadTokenID   int64  `json:"pad_token_id"`
}

// defaultMaxTokens applies when a model ships no config.json: BERT's limit.
const defaultMaxTokens = 512

// loadTokenizer reads dir/tokenizer.json and dir/config.json.
func loadTokenizer(op, dir string) (*textTokenizer, error) {
	b, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "read tokenizer.json in %s", dir)
	}
	tk, err := pretrained.FromReader(bytes.NewReader(b))
	if err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "read tokenizer.json in %s", dir)
	}
	// The parts the library gets wrong, decoded once from the same bytes.
	var parts struct {
		Normalizer map[string]any `json:"normalizer"`
		Model      unigramJSON    `json:"model"`
	}
	if err := json.Unmarshal(b, &parts); err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "read tokenizer.json in %s", dir)
	}
	if err := fixNormalizer(tk, parts.Normalizer); err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "read tokenizer.json in %s", dir)
	}
	if err := useOwnUnigram(tk, parts.Model); err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "read tokenizer.json in %s", dir)
	}
	tk.WithTruncation(nil) // truncate is ours: see (*textTokenizer).encode
	tk.WithPadding(nil)    // pad per batch, never to a fixed length
	limit, padID, err := readModelConfig(dir)
	if err != nil {
		return nil, errs.Wrapf(errs.RAG, op, err, "read config.json in %s", dir)
	}
	return &textTokenizer{tk: tk, maxTokens: limit, padID: padID}, nil
}

// useOwnUnigram puts our Unigram model (unigram.go) in place of the
// library's when the tokenizer is a SentencePiece Unigram one.
func useOwnUnigram(tk *tokenizer.Tokenizer, m unigramJSON) error {
	if m.Type != "Unigram" {
		return nil
	}
	u, err := newUnigram(m)
	if err != nil {
		return err
	}
	tk.WithModel(u)
	return nil
}

// fixNormalizer rebuilds a SentencePiece tokenizer's normaliser (what
// XLM-RoBERTa and multilingual-e5 ship: Precompiled, then Replace " {2,}"
// → " "), where the library gets both wrong. It reads a Replace's regular
// expression as a literal string, so every blank line or double space
// became an extra "▁" the model never saw in training; and its Precompiled
// normaliser panics on any mapping that shortens the text (a "\r\n", a
// decomposed "é"), which real notes are full of.
func fixNormalizer(tk *tokenizer.Tokenizer, cfg map[string]any) error {
	if cfg == nil || !needsOwnNormalizer(cfg) {
		return nil
	}
	n, err := buildNormalizer(cfg)
	if err != nil {
		return err
	}
	tk.WithNormalizer(n)
	return nil
}

func needsOwnNormalizer(cfg map[string]any) bool {
	switch cfg["type"] {
	case "Precompiled":
		return true
	case "Replace":
		p, _ := cfg["pattern"].(map[string]any)
		_, ok := p["Regex"]
		return ok
	}
	subs, _ := cfg["normalizers"].([]any)
	for _, s := range subs {
		if m, ok := s.(map[string]any); ok && needsOwnNormalizer(m) {
			return true
		}
	}
	return false
}

// buildNormalizer is the library's normaliser for cfg, with Replace by
// regular expression built as one and Precompiled as ours.
func buildNormalizer(cfg map[string]any) (normalizer.Normalizer, error) {
	switch cfg["type"] {
	case "Sequence":
		subs, _ := cfg["normalizers"].([]any)
		var ns []normalizer.Normalizer
		for _, s := range subs {
			m, ok := s.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("a normaliser of the sequence is not an object")
			}
			n, err := buildNormalizer(m)
			if err != nil {
				return nil, err
			}
			ns = append(ns, n)
		}
		return normalizer.NewSequence(ns), nil
	case "Precompiled":
		data, _ := cfg["precompiled_charsmap"].(string)
		return newPrecompiled(data)
	case "Replace":
		p, _ := cfg["pattern"].(map[string]any)
		if re, ok := p["Regex"].(string); ok {
			if _, err := regexp.Compile(re); err != nil {
				return nil, fmt.Errorf("Replace pattern %q: %w", re, err)
			}
			content, _ := cfg["content"].(string)
			return normalizer.NewReplace(normalizer.Regex, re, content), nil
		}
	}
	return pretrained.CreateNormalizer(cfg)
}

// readModelConfig reads how many tokens the model's position table allows
// and its padding id. RoBERTa models offset their positions past the
// padding index, so two of their max_position_embeddings are never usable.
func readModelConfig(dir string) (maxTokens int, padID int64, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return defaultMaxTokens, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	var cfg modelConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		return 0, 0, err
	}
	n := cfg.MaxPositions
	if n <= 0 {
		return defaultMaxTokens, cfg.PadTokenID, nil
	}
	switch cfg.ModelType {
	case "roberta", "xlm-roberta", "camembert":
		n -= 2
	}
	return n, cfg.PadTokenID, nil
}

// single tokenises one text.
func (t *textTokenizer) single(text string) (tokens, error) {
	return t.encode(text, nil, 0)
}

// pair tokenises a (query, passage) pair as one cross-encoder input.
func (t *textTokenizer) pair(query, passage string) (tokens, error) {
	return t.encode(query, &passage, 0)
}

// pairWithin is pair with the pair capped at limit tokens (0 or more than
// the model takes: the model's limit).
func (t *textTokenizer) pairWithin(query, passage string, limit int) (tokens, error) {
	return t.encode(query, &passage, limit)
}

// encode tokenises each segment without special tokens, truncates them to
// the budget the special tokens leave (the longer segment loses a token
// first, as Hugging Face's "longest_first" does), then lets the
// tokenizer.json's post-processor add the special tokens and segment ids.
// The library's own truncation is bypassed: it can over-trim pairs and
// exits the process on inputs it cannot cut. A second segment that must be
// cut keeps the window holding most of the first segment's words (for a
// reranker: the part of the passage the query is about), not just its
// beginning. limit, when positive and below the model's, caps the total.
func (t *textTokenizer) encode(first string, second *string, limit int) (tokens, error) {
	a, err := t.tk.EncodeSingleSequence(tokenizer.NewInputSequence(first), 0, tokenizer.Byte)
	if err != nil {
		return tokens{}, err
	}
	var b *tokenizer.Encoding
	if second != nil {
		if b, err = t.tk.EncodeSingleSequence(tokenizer.NewInputSequence(*second), 1, tokenizer.Byte); err != nil {
			return tokens{}, err
		}
	}
	budget := t.maxTokens
	if limit > 0 {
		budget = min(budget, limit)
	}
	if p := t.tk.GetPostProcessor(); p != nil {
		budget -= p.AddedTokens(b != nil)
	}
	na, nb := len(a.Ids), 0
	if b != nil {
		nb = len(b.Ids)
	}
	for na+nb > budget && na+nb > 0 {
		if na > nb {
			na--
		} else {
			nb--
		}
	}
	cut(a, na)
	if b != nil {
		span(b, focus(a, b, nb), nb)
	}
	enc := t.tk.PostProcess(a, b, true)
	out := tokens{ids: make([]int64, len(enc.Ids)), types: make([]int64, len(enc.Ids))}
	for i, id := range enc.Ids {
		out.ids[i] = int64(id)
		if i < len(enc.TypeIds) {
			out.types[i] = int64(enc.TypeIds[i])
		}
	}
	return out, nil
}

// focus picks where an n-token window of b starts. The window is the one
// whose query words weigh most: each of a's words counts once per window,
// weighted by how rare it is in b (a word the passage repeats everywhere
// says nothing about where it is about the query). The matched stretch is
// then placed a third of the way into the window, since what follows a
// match is often the answer, and the window starts on a word.
func focus(a, b *tokenizer.Encoding, n int) int {
	if n <= 0 || n >= len(b.Ids) {
		return 0
	}
	want := map[int]bool{}
	for i, id := range a.Ids {
		if i < len(a.Tokens) && queryPiece(a.Tokens[i]) {
			want[id] = true
		}
	}
	freq := map[int]int{}
	for _, id := range b.Ids {
		if want[id] {
			freq[id]++
		}
	}
	if len(freq) == 0 {
		return 0
	}
	in := map[int]int{} // occurrences inside the window
	var score float64
	move := func(i, d int) {
		id := b.Ids[i]
		if !want[id] {
			return
		}
		was := in[id]
		in[id] += d
		switch {
		case was == 0 && in[id] > 0:
			score += 1 / float64(freq[id])
		case was > 0 && in[id] == 0:
			score -= 1 / float64(freq[id])
		}
	}
	for i := range n {
		move(i, 1)
	}
	best, at := score, 0
	for s := 1; s+n <= len(b.Ids); s++ {
		move(s-1, -1)
		move(s+n-1, 1)
		if score > best+1e-9 {
			best, at = score, s
		}
	}
	// The stretch from the first to the last of the window's rarest
	// matches (those weighing at least half the heaviest).
	heaviest := 0.0
	for i := at; i < at+n; i++ {
		if want[b.Ids[i]] {
			heaviest = max(heaviest, 1/float64(freq[b.Ids[i]]))
		}
	}
	first, last := -1, -1
	for i := at; i < at+n; i++ {
		if want[b.Ids[i]] && 1/float64(freq[b.Ids[i]]) >= heaviest/2 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	start := max(0, min(first-(n-(last-first+1))/3, len(b.Ids)-n))
	// On a word: back to its first piece while the last match stays in,
	// else on to the next word's.
	midWord := func(s int) bool { return s > 0 && s < len(b.Words) && b.Words[s] >= 0 && b.Words[s] == b.Words[s-1] }
	s := start
	for midWord(s) && s+n > last+1 {
		s--
	}
	if midWord(s) {
		for s = start; midWord(s) && s < first && s+n < len(b.Ids); s++ {
		}
	}
	return s
}

// queryPiece says whether a query token counts when looking for the query
// in a passage: a word piece of two letters or more (one in scripts
// written without spaces, where a character is a word), not an unknown
// or special token.
func queryPiece(tok string) bool {
	if strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]") || strings.HasPrefix(tok, "<") && strings.HasSuffix(tok, ">") {
		return false
	}
	w := strings.TrimPrefix(strings.TrimPrefix(tok, "##"), "\u2581")
	switch n := utf8.RuneCountInString(w); {
	case n >= 2:
		return true
	case n == 1:
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
	}
	return false
}

// span keeps n tokens of an encoding from the start'th on.
func span(e *tokenizer.Encoding, start, n int) {
	if start <= 0 {
		cut(e, n)
		return
	}
	from := func(xs []int) []int { return xs[min(start, len(xs)):] }
	e.Ids = from(e.Ids)
	e.TypeIds = from(e.TypeIds)
	e.Tokens = e.Tokens[min(start, len(e.Tokens)):]
	e.Offsets = e.Offsets[min(start, len(e.Offsets)):]
	e.SpecialTokenMask = from(e.SpecialTokenMask)
	e.AttentionMask = from(e.AttentionMask)
	e.Words = from(e.Words)
	cut(e, n)
}

// cut keeps the first n tokens of an encoding (Encoding.Truncate would also
// build overflow windows of the rest, which nothing here reads).
func cut(e *tokenizer.Encoding, n int) {
	if n >= len(e.Ids) {
		return
	}
	e.Ids = e.Ids[:n]
	e.TypeIds = e.TypeIds[:min(n, len(e.TypeIds))]
	e.Tokens = e.Tokens[:min(n, len(e.Tokens))]
	e.Offsets = e.Offsets[:min(n, len(e.Offsets))]
	e.SpecialTokenMask = e.SpecialTokenMask[:min(n, len(e.SpecialTokenMask))]
	e.AttentionMask = e.AttentionMask[:min(n, len(e.AttentionMask))]
	e.Words = e.Words[:min(n, len(e.Words))]
	e.Overflowing = nil
}
