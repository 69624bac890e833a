package kb

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
	"golang.org/x/text/unicode/norm"
)

// The analyser turns text into index terms, the same way for chunks and for
// queries: words are runs of letters and digits, lowercased with diacritics
// folded ("Café" = "cafe"), English stop words dropped, and words stemmed
// with Snowball's English (Porter2) stemmer so "landlords" finds
// "landlord". Tokens that contain a digit ("2024", "gpt4", "1200") and
// short all-letter tokens (acronyms such as "tlb") are kept verbatim:
// stemming them only merges unrelated things.

// stopWords are dropped at index and query time: they occur in nearly every
// chunk, carry no ranking signal and make the longest posting lists.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for from has have he her his i if in into is it its
		of on or our she so such than that the their them then there these they this those to was we were what when where which who
		will with you your not no can do does did been being had would should could`) {
		stopWords[w] = true
	}
}

// stemCache remembers stems: real text repeats a small vocabulary, and the
// stemmer costs far more than a map lookup.
var stemCache = struct {
	sync.RWMutex
	m map[string]string
}{m: map[string]string{}}

const stemCacheMax = 200_000

func stem(w string) string {
	stemCache.RLock()
	s, ok := stemCache.m[w]
	stemCache.RUnlock()
	if ok {
		return s
	}
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	s = env.Current()
	stemCache.Lock()
	if len(stemCache.m) >= stemCacheMax {
		clear(stemCache.m)
	}
	stemCache.m[w] = s
	stemCache.Unlock()
	return s
}

// Analyze returns the index terms of text in order (repeats kept).
func Analyze(text string) []string {
	var out []string
	forEachTerm(text, func(t string) { out = append(out, t) })
	return out
}

// forEachTerm calls fn with every index term of text.
func forEachTerm(text string, fn func(string)) {
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		if t := normaliseWord(text[start:end]); t != "" {
			fn(t)
		}
		start = -1
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
}

// normaliseWord lowercases, folds diacritics, drops stop words and stems.
func normaliseWord(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		w = strings.ToLower(w)
	} else {
		w = foldDiacritics(strings.ToLower(w))
	}
	if w == "" || stopWords[w] {
		return ""
	}
	hasDigit := strings.IndexFunc(w, unicode.IsDigit) >= 0
	if utf8.RuneCountInString(w) == 1 && !hasDigit {
		return "" // stray letters ("s" of a possessive, list markers)
	}
	if hasDigit || len(w) <= 3 {
		return w
	}
	return stem(w)
}

// foldDiacritics removes combining marks after canonical decomposition.
func foldDiacritics(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
