package analysis

import (
	"strings"
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// The detector is whatlanggo: pure Go, no data files, trigram profiles
// compiled in (a few hundred kB), microseconds per chunk, and a confidence
// we can refuse. Lingua is more accurate on very short text but carries
// hundreds of MB of models; we only need to pick among the Latin-script
// stemmers for chunk-sized text, and a query is analysed for every
// language of the vault anyway (QueryLangs), so a miss costs little.

var latin = map[whatlanggo.Lang]Lang{
	whatlanggo.Eng: "en", whatlanggo.Deu: "de", whatlanggo.Fra: "fr", whatlanggo.Spa: "es",
	whatlanggo.Ita: "it", whatlanggo.Por: "pt", whatlanggo.Nld: "nl", whatlanggo.Swe: "sv",
	whatlanggo.Nob: "no", whatlanggo.Dan: "da", whatlanggo.Fin: "fi", whatlanggo.Tur: "tr",
	whatlanggo.Hun: "hu", whatlanggo.Ron: "ro",
}

var latinOpts = func() whatlanggo.Options {
	o := whatlanggo.Options{Whitelist: map[whatlanggo.Lang]bool{}}
	for l := range latin {
		o.Whitelist[l] = true
	}
	return o
}()

// minLetters is the Latin text below which detection is not tried: a title
// or a two-word note says too little, and English analysis is the default.
const minLetters = 40

// Detect names the language whose stemmer fits the Latin-script words of
// text: English unless enough Latin text reliably reads as another one.
// (Cyrillic words always use the Russian stemmer, and scripts without
// stemmers need no choice.)
func Detect(text string) Lang {
	var b strings.Builder
	letters := 0
	inWord := false
	for _, r := range text {
		if unicode.Is(unicode.Latin, r) {
			if !inWord && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			letters++
			inWord = true
		} else {
			inWord = false
		}
		if b.Len() > 4000 {
			break
		}
	}
	if letters < minLetters || mostlyEnglish(b.String()) {
		return English
	}
	info := whatlanggo.DetectWithOptions(b.String(), latinOpts)
	if l, ok := latin[info.Lang]; ok && (l == English || info.IsReliable()) {
		return l
	}
	return English
}

// QueryLangs are the languages a query is analysed in: English, every
// language the vault's chunks were analysed in, and the query's own if
// detection is sure of it. Terms of all of them are merged, so a short or
// mixed query finds a note whichever stemmer indexed it.
func QueryLangs(query string, vault []Lang) []Lang {
	out := []Lang{English}
	add := func(l Lang) {
		for _, o := range out {
			if o == l {
				return
			}
		}
		if Known(l) && l != "ru" {
			out = append(out, l)
		}
	}
	for _, l := range vault {
		add(l)
	}
	add(Detect(query))
	return out
}

// EachQuery calls fn once per distinct term of query over langs, with the
// largest count any one language gives it (a word two stemmers agree on is
// not counted twice).
func EachQuery(query string, langs []Lang, fn func(term string, n int)) {
	best := map[string]int{}
	var order []string
	for _, l := range langs {
		counts := map[string]int{}
		Each(query, l, func(t string) { counts[t]++ })
		for t, n := range counts {
			if m, ok := best[t]; !ok {
				order = append(order, t)
				best[t] = n
			} else if n > m {
				best[t] = n
			}
		}
	}
	for _, t := range order {
		fn(t, best[t])
	}
}

// mostlyEnglish is the shortcut that spares most chunks the trigram
// detector (two thirds of indexing time otherwise): English prose is about
// a third stop words, other Latin languages share few of them.
func mostlyEnglish(latin string) bool {
	words, stops := 0, 0
	for _, w := range strings.Fields(latin) {
		words++
		if stopWords[strings.ToLower(w)] {
			stops++
		}
	}
	return stops >= 5 && stops*4 >= words
}

// Language names the main language of text for a person and for choosing
// a model: by script first (the most letters: "zh" for Han without kana,
// "ja" with kana, "ko", "th", "ru" for Cyrillic…), and for Latin text the
// language Detect finds. Text without letters is English.
func Language(text string) string {
	counts := map[string]int{}
	kana := 0
	n := 0
	for _, r := range text {
		if n++; n > 4000 {
			break
		}
		switch {
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			kana++
			counts["cjk"]++
		case unicode.Is(unicode.Han, r):
			counts["cjk"]++
		case unicode.Is(unicode.Hangul, r):
			counts["ko"]++
		case unicode.Is(unicode.Thai, r):
			counts["th"]++
		case unicode.Is(unicode.Lao, r):
			counts["lo"]++
		case unicode.Is(unicode.Khmer, r):
			counts["km"]++
		case unicode.Is(unicode.Myanmar, r):
			counts["my"]++
		case unicode.Is(unicode.Cyrillic, r):
			counts["ru"]++
		case unicode.Is(unicode.Greek, r):
			counts["el"]++
		case unicode.Is(unicode.Arabic, r):
			counts["ar"]++
		case unicode.Is(unicode.Hebrew, r):
			counts["he"]++
		case unicode.Is(unicode.Devanagari, r):
			counts["hi"]++
		case unicode.Is(unicode.Latin, r):
			counts["latin"]++
		}
	}
	// A CJK character carries about as much as a Latin word, so one counts
	// for three letters: an English paper with Chinese highlights is the
	// language of its body, Chinese notes with English terms are Chinese.
	counts["cjk"] *= 3
	counts["ko"] *= 2
	best, most := "latin", 0
	for script, c := range counts {
		if c == 0 {
			continue
		}
		if c > most || c == most && script < best {
			best, most = script, c
		}
	}
	switch best {
	case "latin":
		return string(Detect(text))
	case "cjk":
		if kana*3 > counts["cjk"]/10 {
			return "ja"
		}
		return "zh"
	}
	return best
}
