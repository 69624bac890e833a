package kb

import (
	"github.com/jarvis-kb/jarvis/backend/analysis"
)

// The analyser lives in package analysis (CJK and Thai bigrams, Snowball
// stemming per language, NFKC); this file is kb's side of it. A chunk is
// analysed in the language detected for its Latin text; a query in every
// language the vault's chunks were analysed in (langTerm), with the terms
// merged.

// lexVersion names the analysis the stored lexical entries were made with.
// Stores written before version 2 (one English analyser: CJK runs kept
// whole) are re-analysed in the background (ReanalyseLex).
const lexVersion = 2

// langTerm is the dictionary entry that records that some chunk was
// analysed in language l. The NUL prefix keeps it apart from any term text
// can produce; it never appears in a chunk's entries.
func langTerm(l analysis.Lang) string { return "\x00lang:" + string(l) }

// Analyze returns the index terms of text in order (repeats kept), analysed
// in the language detected for it.
func Analyze(text string) []string {
	return analysis.Terms(text, analysis.Detect(text))
}
