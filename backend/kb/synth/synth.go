// Package synth generates deterministic text and vectors shaped like a real
// knowledge base, for benchmarks: a Zipf-distributed vocabulary (English
// stop words at the top ranks, then tens of thousands of made-up words),
// chunks of about 150 words with a short title, and queries drawn from the
// chunks' own words. Nothing is read from disk; the same seed always gives
// the same corpus, chunk by chunk, so generation can run in parallel.
package synth

import (
	"math"
	"math/rand/v2"
	"strings"
)

// stopWords head the vocabulary, most frequent first: real text spends
// about half its tokens on them, and the analyser must drop them.
var stopWords = strings.Fields(`the of and to a in is that for it as was with be by on not he i this are
	or his from at which but have an they you were her she there their one all we can has been if more when will
	would who so no`)

// consonants and vowels make the made-up words: two-letter syllables, no
// "s", "e" or "y", so the English stemmer leaves nearly all of them alone
// and the vocabulary survives analysis at its full size.
const (
	consonants = "bdfgklmnprtvz"
	vowels     = "aiou"
)

// Corpus is a deterministic generator.
type Corpus struct {
	Vocab []string // by rank: Vocab[0] is the most frequent word
	seed  uint64
}

// Zipf parameters: P(rank k) ∝ 1/(zipfV+k)^zipfS, close to English.
const (
	zipfS = 1.07
	zipfV = 2.0
)

// New returns a corpus over vocabSize words (stop words included).
func New(vocabSize int, seed uint64) *Corpus {
	c := &Corpus{seed: seed}
	c.Vocab = append(c.Vocab, stopWords...)
	nsyl := len(consonants) * len(vowels)
	for i := 0; len(c.Vocab) < vocabSize; i++ {
		// i in base nsyl, at least two syllables: distinct i, distinct words.
		var b strings.Builder
		digits := []int{i % nsyl}
		for n := i / nsyl; n > 0 || len(digits) < 2; n /= nsyl {
			digits = append(digits, n%nsyl)
		}
		for _, d := range digits {
			b.WriteByte(consonants[d/len(vowels)])
			b.WriteByte(vowels[d%len(vowels)])
		}
		c.Vocab = append(c.Vocab, b.String())
	}
	return c
}

func (c *Corpus) rng(stream, i int) *rand.Rand {
	return rand.New(rand.NewPCG(c.seed+uint64(stream), uint64(i)))
}

func (c *Corpus) zipf(r *rand.Rand) *rand.Zipf {
	return rand.NewZipf(r, zipfS, zipfV, uint64(len(c.Vocab)-1))
}

// Doc is one generated chunk.
type Doc struct {
	Title   string
	Body    string
	Private bool // one in ten
	Topic   int  // the cluster its vector is drawn around
}

// Topics is how many clusters the vectors form.
const Topics = 256

// Doc returns chunk i (the same text for the same i, whatever else was
// generated): a title of 3–6 words and a body of 120–180.
func (c *Corpus) Doc(i int) Doc {
	r := c.rng(0, i)
	z := c.zipf(r)
	words := func(n int, content bool) string {
		var b strings.Builder
		for k := 0; k < n; k++ {
			w := int(z.Uint64())
			if content && w < len(stopWords) {
				k--
				continue
			}
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c.Vocab[w])
		}
		return b.String()
	}
	title := words(3+r.IntN(4), true)
	body := words(120+r.IntN(61), false)
	return Doc{Title: title, Body: body, Private: r.IntN(10) == 0, Topic: r.IntN(Topics)}
}

// Queries returns n queries over the first docs chunks: each takes 2–6
// distinct words of one chunk (a stop word now and then, as people type),
// the way a user or an agent asks for something they half remember.
func (c *Corpus) Queries(n, docs int) []string {
	r := c.rng(1, 0)
	out := make([]string, n)
	for q := range out {
		words := strings.Fields(c.Doc(r.IntN(docs)).Body)
		want := 2 + r.IntN(5)
		seen := map[string]bool{}
		var picked []string
		for tries := 0; len(picked) < want && tries < 1000; tries++ {
			w := words[r.IntN(len(words))]
			if seen[w] || isStop(w) && r.IntN(4) != 0 {
				continue
			}
			seen[w] = true
			picked = append(picked, w)
		}
		out[q] = strings.Join(picked, " ")
	}
	return out
}

func isStop(w string) bool {
	for _, s := range stopWords {
		if s == w {
			return true
		}
	}
	return false
}

// Vector returns chunk i's unit vector of dims: its topic's centre plus
// noise, so neighbours cluster the way embeddings of related text do.
func (c *Corpus) Vector(d Doc, i, dims int) []float32 {
	centre := c.Centre(d.Topic, dims)
	r := c.rng(2, i)
	v := make([]float32, dims)
	for k := range v {
		v[k] = centre[k] + 0.6*float32(r.NormFloat64())/float32(math.Sqrt(float64(dims)))
	}
	return unit(v)
}

// Centre is a topic's unit direction.
func (c *Corpus) Centre(topic, dims int) []float32 {
	r := c.rng(3, topic)
	v := make([]float32, dims)
	for k := range v {
		v[k] = float32(r.NormFloat64())
	}
	return unit(v)
}

// QueryVector is a unit vector near a topic, as a query about it would be.
func (c *Corpus) QueryVector(q, dims int) []float32 {
	r := c.rng(4, q)
	return c.Vector(Doc{Topic: r.IntN(Topics)}, -1-q, dims)
}

func unit(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	for k := range v {
		v[k] *= inv
	}
	return v
}
