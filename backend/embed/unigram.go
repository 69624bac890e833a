package embed

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
)

// unigram is a SentencePiece Unigram model (XLM-RoBERTa, multilingual-e5):
// the segmentation of each pre-tokenised word that maximises the sum of its
// pieces' log probabilities, found by Viterbi over character boundaries.
//
// It replaces the tokenizer library's own Unigram model, which caps pieces
// at 20 bytes (a Thai or CJK piece of seven characters is longer) and adds
// a length bonus no SentencePiece model was trained with, so it segments
// differently from SentencePiece and Hugging Face — and a model fed other
// pieces than it was trained on embeds worse without any error.
type unigram struct {
	pieces   []unigramPiece
	ids      map[string]int
	unk      int
	unkScore float64 // of an unknown character: the lowest score less 10, as SentencePiece
	maxRunes int     // longest piece, in characters
}

type unigramPiece struct {
	text  string
	score float64
}

// unigramJSON is the model section of a tokenizer.json of type Unigram.
type unigramJSON struct {
	Type         string          `json:"type"`
	UnkID        *int            `json:"unk_id"`
	Vocab        json.RawMessage `json:"vocab"` // [piece, score] pairs (other models: other shapes)
	ByteFallback bool            `json:"byte_fallback"`
}

// newUnigram builds the model from a tokenizer.json's model section.
func newUnigram(m unigramJSON) (*unigram, error) {
	if m.ByteFallback {
		return nil, fmt.Errorf("Unigram models with byte fallback are not supported")
	}
	var vocab []json.RawMessage
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("the Unigram vocabulary is not a list: %w", err)
	}
	u := &unigram{ids: make(map[string]int, len(vocab)), unk: -1}
	minScore := math.Inf(1)
	for i, raw := range vocab {
		var pair [2]any
		if err := json.Unmarshal(raw, &pair); err != nil {
			return nil, fmt.Errorf("vocab entry %d: %w", i, err)
		}
		text, ok1 := pair[0].(string)
		score, ok2 := pair[1].(float64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("vocab entry %d is not [piece, score]", i)
		}
		u.pieces = append(u.pieces, unigramPiece{text, score})
		if _, dup := u.ids[text]; !dup {
			u.ids[text] = i
		}
		u.maxRunes = max(u.maxRunes, utf8.RuneCountInString(text))
		minScore = min(minScore, score)
	}
	if len(u.pieces) == 0 {
		return nil, fmt.Errorf("the Unigram vocabulary is empty")
	}
	if m.UnkID != nil {
		if *m.UnkID < 0 || *m.UnkID >= len(u.pieces) {
			return nil, fmt.Errorf("unk_id %d is outside the vocabulary of %d", *m.UnkID, len(u.pieces))
		}
		u.unk = *m.UnkID
	}
	u.unkScore = minScore - 10
	return u, nil
}

// Tokenize implements tokenizer.Model: Viterbi over the word's character
// boundaries. Characters no piece covers become the unknown piece, runs of
// them one piece (as SentencePiece and Hugging Face fuse them).
func (u *unigram) Tokenize(word string) ([]tokenizer.Token, error) {
	if word == "" {
		return nil, nil
	}
	// best[i]: the best segmentation of word[:i], for i at a character boundary.
	type node struct {
		score float64
		from  int // start of the last piece; -1: not reached
		id    int
	}
	best := make([]node, len(word)+1)
	for i := range best {
		best[i] = node{score: math.Inf(-1), from: -1}
	}
	best[0] = node{from: 0}
	for i := 0; i < len(word); {
		_, first := utf8.DecodeRuneInString(word[i:])
		if best[i].from >= 0 {
			single := false
			j := i
			for n := 0; n < u.maxRunes && j < len(word); n++ {
				_, size := utf8.DecodeRuneInString(word[j:])
				j += size
				id, ok := u.ids[word[i:j]]
				if !ok {
					continue
				}
				if s := best[i].score + u.pieces[id].score; s > best[j].score {
					best[j] = node{score: s, from: i, id: id}
				}
				single = single || j == i+first
			}
			if !single {
				if s := best[i].score + u.unkScore; s > best[i+first].score {
					best[i+first] = node{score: s, from: i, id: u.unk}
				}
			}
		}
		i += first
	}
	if best[len(word)].from < 0 {
		return nil, fmt.Errorf("no segmentation of %q", word)
	}
	var rev []tokenizer.Token
	for end := len(word); end > 0; {
		n := best[end]
		if n.id < 0 {
			return nil, fmt.Errorf("%q has characters outside the vocabulary and the model has no unknown piece", word)
		}
		if k := len(rev) - 1; n.id == u.unk && k >= 0 && rev[k].Id == u.unk {
			rev[k].Value = word[n.from:rev[k].Offsets[1]]
			rev[k].Offsets[0] = n.from
		} else {
			rev = append(rev, tokenizer.Token{Id: n.id, Value: word[n.from:end], Offsets: []int{n.from, end}})
		}
		end = n.from
	}
	for a, b := 0, len(rev)-1; a < b; a, b = a+1, b-1 {
		rev[a], rev[b] = rev[b], rev[a]
	}
	return rev, nil
}

func (u *unigram) TokenToId(token string) (int, bool) {
	id, ok := u.ids[token]
	return id, ok
}

func (u *unigram) IdToToken(id int) (string, bool) {
	if id < 0 || id >= len(u.pieces) {
		return "", false
	}
	return u.pieces[id].text, true
}

func (u *unigram) GetVocab() map[string]int { return u.ids }

func (u *unigram) GetVocabSize() int { return len(u.pieces) }

// Save implements tokenizer.Model; Jarvis never writes tokenizers.
func (u *unigram) Save(string, ...string) error {
	return fmt.Errorf("saving a Unigram model is not supported")
}
