package embed

import (
	"fmt"
	"strings"

	"github.com/rivo/uniseg"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/spm"
)

// precompiled is SentencePiece's normaliser (the charsmap spm compiles for
// nmt_nfkc: NFKC plus its whitespace and control-character rules), applied
// as Hugging Face's tokenizers apply it: each grapheme cluster shorter than
// six bytes is looked up whole, else each of its characters. The library's
// own version panics on mappings that shorten the text.
//
// Only token ids are read from an encoding, never offsets into the
// original, so the normalised text starts a fresh alignment.
type precompiled struct {
	pc *spm.Precompiled
}

func newPrecompiled(b64 string) (*precompiled, error) {
	data, err := spm.FromBase64(b64)
	if err != nil || len(data) < 4 {
		return nil, fmt.Errorf("the Precompiled normaliser's charsmap does not decode: %v", err)
	}
	pc, err := spm.NewPrecompiledFrom(data)
	if err != nil {
		return nil, err
	}
	return &precompiled{pc: pc}, nil
}

// transform is the charsmap's replacement for the first prefix of chunk it
// holds, as Hugging Face's lookup takes it.
func (p *precompiled) transform(chunk string) (string, bool) {
	hits := p.pc.Trie.CommonPrefixSearch([]byte(chunk))
	if len(hits) == 0 {
		return "", false
	}
	at := hits[0]
	if at < 0 || at > len(p.pc.Normalized) {
		return "", false
	}
	end := strings.IndexByte(p.pc.Normalized[at:], 0)
	if end < 0 {
		end = len(p.pc.Normalized) - at
	}
	return p.pc.Normalized[at : at+end], true
}

func (p *precompiled) apply(s string) string {
	var b strings.Builder
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		cluster := g.Str()
		if len(cluster) < 6 {
			if n, ok := p.transform(cluster); ok {
				b.WriteString(n)
				continue
			}
		}
		for _, r := range cluster {
			if n, ok := p.transform(string(r)); ok {
				b.WriteString(n)
			} else {
				b.WriteRune(r)
			}
		}
	}
	// SentencePiece drops leading and trailing whitespace
	// (remove_extra_whitespaces); the Replace that follows collapses the rest.
	return strings.Trim(b.String(), " ")
}

// Normalize implements normalizer.Normalizer.
func (p *precompiled) Normalize(n *normalizer.NormalizedString) (*normalizer.NormalizedString, error) {
	return normalizer.NewNormalizedFrom(p.apply(n.GetNormalized())), nil
}
