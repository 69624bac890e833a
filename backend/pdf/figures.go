package pdf

import (
	"crypto/sha256"
)

// Figure is an embedded raster image worth captioning.
type Figure struct {
	Page          int
	Width, Height int
	PNG           []byte
}

// Figures returns the extracted images (Read with Options.Images), the same
// image drawn twice counted once (by content), at most limit (0 = no limit).
func (d *Document) Figures(limit int) []Figure {
	seen := map[[32]byte]bool{}
	var out []Figure
	for _, p := range d.Pages {
		for _, im := range p.Images {
			sum := sha256.Sum256(im.PNG)
			if seen[sum] {
				continue
			}
			seen[sum] = true
			out = append(out, Figure{Page: p.Number, Width: im.Width, Height: im.Height, PNG: im.PNG})
			if limit > 0 && len(out) == limit {
				return out
			}
		}
	}
	return out
}
