// Package analysis turns text in any language into search terms, the same
// way for the text that is indexed and for the questions asked of it.
//
// Text is first NFKC-normalised (full-width letters, compatibility forms and
// ligatures become their plain forms), then cut into runs of one script:
//
//   - Han, Hiragana, Katakana and Hangul runs become overlapping character
//     bigrams ("快捷键" = 快捷, 捷键), a lone character stays a unigram — the
//     approach of Lucene's CJK analyser. It needs no dictionary, and because
//     a Korean word's particle only changes its last bigram, "파일을" still
//     holds "파일".
//   - Thai, Lao, Khmer and Myanmar runs (written without spaces) become
//     bigrams of grapheme clusters, so a vowel or tone mark never stands
//     alone.
//   - Every other run is a word: lowercased, stemmed with the Snowball
//     stemmer of its language. Cyrillic words use the Russian stemmer; Latin
//     words use the stemmer of the language the caller names (detected per
//     chunk with Detect), English by default. English keeps the analyser
//     Jarvis always had: stop words dropped, diacritics folded
//     ("Café" = "cafe"), short and digit-bearing tokens verbatim.
//
// Other Latin languages fold diacritics only after stemming, so the German
// stemmer sees "Mütter" as written (its own last step drops the umlaut, so
// "Mutter" and "Mütter" meet by its rules, not by a blind strip), and
// Russian folds only ё to е (й stays й: it is a different letter).
package analysis

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"
	"golang.org/x/text/unicode/norm"
)

// Lang is an ISO 639-1 code of a language with a stemmer ("en", "de").
type Lang string

const English Lang = "en"

// stemmers are Snowball's, by language.
var stemmers = map[Lang]func(*snowballstem.Env) bool{
	"en": english.Stem, "de": german.Stem, "fr": french.Stem, "es": spanish.Stem,
	"it": italian.Stem, "pt": portuguese.Stem, "nl": dutch.Stem, "sv": swedish.Stem,
	"no": norwegian.Stem, "da": danish.Stem, "fi": finnish.Stem, "tr": turkish.Stem,
	"hu": hungarian.Stem, "ro": romanian.Stem, "ru": russian.Stem,
}

// Known reports whether l has a stemmer.
func Known(l Lang) bool { _, ok := stemmers[l]; return ok }

// stopWords are English's, dropped from English text only: they occur in
// nearly every chunk, carry no ranking signal and make the longest posting
// lists ("die" or "was" are content in German).
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for from has have he her his i if in into is it its
		of on or our she so such than that the their them then there these they this those to was we were what when where which who
		will with you your not no can do does did been being had would should could`) {
		stopWords[w] = true
	}
}

// stemCache remembers stems per language: real text repeats a small
// vocabulary, and a stemmer costs far more than a map lookup.
var stemCache = struct {
	sync.RWMutex
	m map[[2]string]string
}{m: map[[2]string]string{}}

const stemCacheMax = 200_000

func stem(l Lang, w string) string {
	k := [2]string{string(l), w}
	stemCache.RLock()
	s, ok := stemCache.m[k]
	stemCache.RUnlock()
	if ok {
		return s
	}
	fn := stemmers[l]
	if fn == nil {
		return w
	}
	env := snowballstem.NewEnv(w)
	fn(env)
	s = env.Current()
	stemCache.Lock()
	if len(stemCache.m) >= stemCacheMax {
		clear(stemCache.m)
	}
	stemCache.m[k] = s
	stemCache.Unlock()
	return s
}

// class is how a run of characters is cut into terms.
type class uint8

const (
	none class = iota // separator
	word              // space-delimited scripts: one word = one term
	cjk               // Han, kana, Hangul: character bigrams
	sea               // Thai, Lao, Khmer, Myanmar: grapheme bigrams
)

func classOf(r rune) class {
	switch {
	case r < utf8.RuneSelf:
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return word
		}
		return none
	case unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || r == 'ー' || r == '々' || r == '〆':
		return cjk
	case unicode.Is(unicode.Thai, r) || unicode.Is(unicode.Lao, r) || unicode.Is(unicode.Khmer, r) || unicode.Is(unicode.Myanmar, r):
		return sea
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
		return word
	}
	return none
}

// Each calls fn with every term of text, stemming Latin words as language
// l (English if l has no stemmer).
func Each(text string, l Lang, fn func(string)) {
	if !Known(l) || l == "ru" {
		l = English
	}
	if !isASCII(text) {
		text = norm.NFKC.String(text)
	}
	eachRun(text, func(c class, run string, _ int) {
		switch c {
		case word:
			if t := normaliseWord(run, l); t != "" {
				fn(t)
			}
		case cjk:
			runeBigrams(run, fn)
		case sea:
			graphemeBigrams(run, fn)
		}
	})
}

// eachRun cuts text into runs of one class (words of spaced scripts, CJK
// runs, Thai-like runs) and calls fn with each and its byte offset;
// separators are skipped. Indexing, queries and excerpts cut the same way.
func eachRun(text string, fn func(c class, run string, at int)) {
	start, cur := -1, none
	flush := func(end int) {
		if start >= 0 {
			fn(cur, text[start:end], start)
			start = -1
		}
	}
	for i, r := range text {
		c := classOf(r)
		// A combining mark continues the run it follows (Thai vowels, Devanagari).
		if c == word && start >= 0 && cur != word && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
			continue
		}
		if c != cur {
			flush(i)
			cur = c
		}
		if c != none && start < 0 {
			start = i
		}
	}
	flush(len(text))
}

// Terms returns the terms of text in order (repeats kept).
func Terms(text string, l Lang) []string {
	var out []string
	Each(text, l, func(t string) { out = append(out, t) })
	return out
}

func runeBigrams(run string, fn func(string)) {
	first, n1 := utf8.DecodeRuneInString(run)
	if n1 == len(run) {
		fn(run)
		return
	}
	_ = first
	prev := 0
	for i := n1; i < len(run); {
		_, n := utf8.DecodeRuneInString(run[i:])
		fn(run[prev : i+n])
		prev = i
		i += n
	}
}

func graphemeBigrams(run string, fn func(string)) {
	bounds := clusterStarts(run)
	if len(bounds) == 1 {
		fn(run)
		return
	}
	bounds = append(bounds, len(run))
	for k := 0; k+2 < len(bounds); k++ {
		fn(run[bounds[k]:bounds[k+2]])
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// normaliseWord lowercases, folds, drops stop words and stems one word.
func normaliseWord(w string, l Lang) string {
	ascii := isASCII(w)
	cyrillic := false
	if ascii {
		w = strings.ToLower(w)
	} else {
		w = strings.ToLower(w)
		if r, _ := utf8.DecodeRuneInString(w); unicode.Is(unicode.Cyrillic, r) {
			cyrillic = true
			w = strings.ReplaceAll(w, "ё", "е")
		} else if l == English {
			w = foldDiacritics(w)
		}
	}
	if w == "" || l == English && !cyrillic && stopWords[w] {
		return ""
	}
	hasDigit := strings.IndexFunc(w, unicode.IsDigit) >= 0
	if utf8.RuneCountInString(w) == 1 && !hasDigit {
		return "" // stray letters ("s" of a possessive, list markers)
	}
	switch {
	case hasDigit:
		return w
	case cyrillic:
		if utf8.RuneCountInString(w) <= 2 {
			return w
		}
		return stem("ru", w)
	case l == English:
		if len(w) <= 3 {
			return w
		}
		return stem(English, w)
	default:
		if utf8.RuneCountInString(w) <= 3 {
			return foldDiacritics(w)
		}
		return foldDiacritics(stem(l, w))
	}
}

// foldDiacritics removes combining marks after canonical decomposition.
func foldDiacritics(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// Langs are the languages a Latin-script chunk can be analysed in, sorted.
func Langs() []Lang {
	out := make([]Lang, 0, len(stemmers))
	for l := range stemmers {
		if l != "ru" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}
