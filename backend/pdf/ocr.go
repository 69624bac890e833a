package pdf

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr"
)

// OCRDPI is the resolution pages are rendered at for recognition: what
// Tesseract is trained on. A page too large for ocr.Limits.MaxPixels at
// this resolution is rendered smaller, down to ocrMinDPI.
const (
	OCRDPI    = 300
	ocrMinDPI = 150
	// ocrNativeEnough is how many pixels of its own an image page needs to
	// be read as it is, not enlarged to OCRDPI.
	ocrNativeEnough = 4_000_000
)

// Replacement is U+FFFD, what MuPDF gives for a glyph its font cannot map
// to Unicode.
const Replacement = '\uFFFD'

// pageText counts what a page's text layer holds.
type pageText struct{ letters, unmapped, visible int }

func (p Page) text() pageText {
	var t pageText
	for _, c := range p.Chars {
		switch {
		case c.R == Replacement:
			t.unmapped++
			t.visible++
		case unicode.IsLetter(c.R):
			t.letters++
			t.visible++
		case !unicode.IsSpace(c.R):
			t.visible++
		}
	}
	return t
}

// Unmappable reports whether most of the page's text layer is glyphs
// without a Unicode meaning: garbage to an index, a scan to a reader.
func (p Page) Unmappable() bool {
	t := p.text()
	return t.unmapped >= 10 && t.unmapped*10 >= t.visible*3
}

// Readable reports whether the page's text layer is worth reading as it
// is: a few mapped letters on a page that is not one big image (a one-line
// note is readable; a scan with a stamped "Downloaded from ..." line is
// not), or plenty of letters anywhere.
func (p Page) Readable() bool {
	if p.Unmappable() {
		return false
	}
	t := p.text()
	if p.ImageCover >= 0.5 && t.letters < stampLetters && p.marginOnly() {
		// A scan a library stamped ("This content downloaded from ...
		// about.jstor.org/terms"): its only text is a line or two at the
		// edge, and the body is the image.
		return false
	}
	return t.letters >= 50 || t.letters >= 2 && p.ImageCover < 0.5
}

// stampLetters is more letters than a download stamp holds and fewer than
// a page of text.
const stampLetters = 400

// marginOnly reports whether every letter lies in the page's top or
// bottom band (stampBand of its height), where stamps and running heads go.
func (p Page) marginOnly() bool {
	if p.Height <= 0 {
		return false
	}
	band := p.Height * stampBand
	for _, c := range p.Chars {
		if !unicode.IsLetter(c.R) {
			continue
		}
		if c.Box.Y0 > band && c.Box.Y1 < p.Height-band {
			return false
		}
	}
	return true
}

const stampBand = 0.15

// recognise replaces the text layer of page p (0-based index i in r) by
// what Tesseract reads off its rendering, when that reads more letters.
func (r *rawDoc) recognise(ctx context.Context, clock *docClock, lim Limits, eng *ocr.Engine, i int, p *Page, op string) error {
	what := fmt.Sprintf("page %d of the scan", i+1)
	dpi, least := float64(OCRDPI), float64(ocrMinDPI)
	// A page that is one large image (a phone photo declared at 72 dpi, a
	// screenshot) is read at the image's own resolution: enlarging it
	// adds pixels, not detail, and a 12 Mpx photo at 300 dpi would be
	// refused for size.
	if p.ImageCover >= 0.9 && p.imageDPI > 0 && p.Width*p.Height*p.imageDPI*p.imageDPI/(72*72) >= ocrNativeEnough {
		dpi, least = min(dpi, math.Floor(p.imageDPI)), min(least, math.Floor(p.imageDPI))
	}
	if max := eng.Limits.MaxPixels; max > 0 {
		if px := p.Width * p.Height * dpi * dpi / (72 * 72); px > float64(max) {
			dpi = math.Floor(dpi * math.Sqrt(float64(max)/px))
		}
		if dpi < least {
			// Refused by its size before MuPDF draws a pixel of it: a 200-inch
			// poster page would need gigabytes just to be rendered.
			return errs.Wrap(errs.Conversion, op, &ocr.LimitError{Limit: ocr.PixelLimit,
				Msg: fmt.Sprintf("%s is %.0f×%.0f points, too large to recognise within %d Mpx", what, p.Width, p.Height, max/1_000_000)})
		}
	}
	var png []byte
	err := r.bounded(ctx, clock.ctx, lim, op, what, func() *mupdfError {
		var merr *mupdfError
		png, merr = r.render(i, dpi/72, true)
		return merr
	})
	if err != nil {
		return err
	}
	// Cleaning (linear in the capped pixel count) and recognition (bounded
	// per page by eng's limits) do not count against the document's clock,
	// which is there for MuPDF's work on hostile content.
	clock.pause()
	img, err := cleanScan(png)
	if err != nil {
		clock.resume()
		return errs.Wrapf(errs.Internal, op, err, "%s: the rendering is not a PNG", what)
	}
	res, err := eng.Recognize(ctx, img.data, img.w, img.h, int(dpi))
	clock.resume()
	if err != nil {
		return err
	}
	chars := wordChars(res, 72/dpi, img.gray)
	if (Page{Chars: chars}).text().letters <= p.text().letters && !p.Unmappable() {
		return nil // the text layer, thin as it is, is what the page says
	}
	p.Chars, p.OCR, p.OCRConfidence = chars, true, res.Confidence()
	return nil
}

// wordChars turns recognised words into page characters: each word's box
// shared out among its letters (letterEdges, on the page image g), a
// space between words, one block per paragraph and the line's height (in
// points) as the font size, so headings, paragraphs, highlights and
// Locate work as on a text layer.
func wordChars(res ocr.Result, scale float64, g *image.Gray) []Char {
	var out []Char
	prev := [3]int{-1, -1, -1}
	for _, w := range res.Words {
		key := [3]int{w.Block, w.Paragraph, w.Line}
		size := float64(res.LineHeights[key]) * scale
		if size == 0 {
			size = float64(w.Y1-w.Y0) * scale
		}
		box := Rect{float64(w.X0) * scale, float64(w.Y0) * scale, float64(w.X1) * scale, float64(w.Y1) * scale}
		block, line := w.Block*1000+w.Paragraph, w.Line
		if key == prev {
			last := out[len(out)-1].Box
			out = append(out, Char{Block: block, Line: line, R: ' ', Size: size, Upright: true, Box: Rect{last.X1, box.Y0, box.X0, box.Y1}})
		}
		prev = key
		rs := []rune(w.Text)
		edges := letterEdges(g, w, rs)
		for k, c := range rs {
			out = append(out, Char{Block: block, Line: line, R: c, Size: size, Upright: true,
				Box: Rect{edges[k] * scale, box.Y0, edges[k+1] * scale, box.Y1}})
		}
	}
	return out
}

// letterEdges places the letters of word w across its box (image pixels):
// len(rs)+1 edges from the box's left to its right. Tesseract boxes whole
// words, so where one letter ends is read off the page image: the blank
// columns between glyphs (inkGaps) cut the word into pieces, and the
// letters are dealt out to the pieces in order — one to a piece as a rule,
// several letters to a piece where glyphs touch (a ligature, serifs),
// several pieces to a letter where one glyph has a blank column inside —
// so that each piece is as wide as its letters' typical widths say, by
// the least squared log ratio. Inside a piece of several letters the edges
// go by those widths. The typical widths are a proportional font's
// (advance) or a typewriter's (all alike), whichever fits the pieces
// better: only a guide (Times' i and l are a quarter wider than
// Helvetica's), the gaps are where the glyphs are. A highlight over part
// of a word then takes the letters it covers, in any font.
func letterEdges(g *image.Gray, w ocr.Word, rs []rune) []float64 {
	x0, x1, gaps := float64(w.X0), float64(w.X1), inkGaps(g, w)
	prop, pc := dealLetters(x0, x1, gaps, rs, advance)
	if mono, mc := dealLetters(x0, x1, gaps, rs, func(rune) float64 { return 600 }); mc < pc {
		return mono
	}
	return prop
}

// dealLetters is letterEdges for a word from x0 to x1 with gaps, under one
// model of the letters' widths; it also returns the fit's cost (+Inf when
// there was nothing to fit: the edges are then the widths' estimate).
func dealLetters(x0, x1 float64, gaps []float64, rs []rune, width func(rune) float64) ([]float64, float64) {
	n := len(rs)
	cum := make([]float64, n+1) // typical widths up to each letter
	for k, c := range rs {
		cum[k+1] = cum[k] + width(c)
	}
	edges := make([]float64, n+1)
	for k := range edges {
		edges[k] = x0 + (x1-x0)*cum[k]/cum[n]
	}
	const most = 64 // a longer "word" (a URL) keeps the estimate: the search is cubic
	if n < 2 || len(gaps) == 0 || n > most || len(gaps) >= most {
		return edges, math.Inf(1)
	}
	bounds := append(append([]float64{x0}, gaps...), x1)
	pieces := len(bounds) - 1
	scale := (x1 - x0) / cum[n]
	// Glyphs mostly stand apart: a piece for each letter is the rule, and
	// each letter or piece more in a group costs what a piece 1.7 times
	// too wide or narrow does.
	const uneven = 0.3
	cost := func(i0, i1, j0, j1 int) float64 { // letters [i0,i1) on pieces [j0,j1)
		r := math.Log((bounds[j1] - bounds[j0]) / (scale * (cum[i1] - cum[i0])))
		return r*r + uneven*float64(i1-i0+j1-j0-2)
	}
	type step struct{ i, j int }
	best := make([][]float64, n+1)
	from := make([][]step, n+1)
	for i := range best {
		best[i] = make([]float64, pieces+1)
		from[i] = make([]step, pieces+1)
		for j := range best[i] {
			best[i][j] = math.Inf(1)
		}
	}
	best[0][0] = 0
	relax := func(i, j, i1, j1 int) {
		if c := best[i][j] + cost(i, i1, j, j1); c < best[i1][j1] {
			best[i1][j1], from[i1][j1] = c, step{i, j}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < pieces; j++ {
			if math.IsInf(best[i][j], 1) {
				continue
			}
			for i1 := i + 1; i1 <= n; i1++ { // letters i..i1-1 on one piece
				relax(i, j, i1, j+1)
			}
			for j1 := j + 2; j1 <= pieces; j1++ { // one letter on pieces j..j1-1
				relax(i, j, i+1, j1)
			}
		}
	}
	for i, j := n, pieces; i > 0; {
		f := from[i][j]
		for k := f.i; k < i; k++ {
			edges[k] = bounds[f.j] + (bounds[j]-bounds[f.j])*(cum[k]-cum[f.i])/(cum[i]-cum[f.i])
		}
		i, j = f.i, f.j
	}
	return edges, best[n][pieces]
}

// inkGaps are the middles of the runs of blank columns (no dark pixel)
// inside word w's box on the page image, left to right.
func inkGaps(g *image.Gray, w ocr.Word) []float64 {
	if g == nil {
		return nil
	}
	b := g.Bounds()
	left, right := max(w.X0, b.Min.X), min(w.X1, b.Max.X)
	top, bottom := max(w.Y0, b.Min.Y), min(w.Y1, b.Max.Y)
	if right-left < 3 || bottom <= top {
		return nil
	}
	blank := func(x int) bool {
		for y := top; y < bottom; y++ {
			if g.Pix[(y-b.Min.Y)*g.Stride+x-b.Min.X] < 128 {
				return false
			}
		}
		return true
	}
	// Only runs with ink on both sides: a loose box's blank margins part
	// no glyphs.
	var gaps []float64
	start, inked := -1, false
	for x := left; x < right; x++ {
		switch {
		case !blank(x):
			if start >= 0 {
				gaps = append(gaps, float64(start+x)/2)
			}
			start, inked = -1, true
		case inked && start < 0:
			start = x
		}
	}
	return gaps
}

// helvetica is Helvetica's advance width of each printable ASCII
// character (from ' ' to '~'), in thousandths of an em.
var helvetica = [95]uint16{
	278, 278, 355, 556, 556, 889, 667, 222, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 to ?
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ to O
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P to _
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` to o
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p to ~
}

// advance is how wide c typically is, in thousandths of an em: Tesseract
// boxes whole words, and sharing a word's box out by typical widths puts
// a highlight's edge inside "Williams" between the letters a reader
// marked, where equal shares would be a letter off (an m is nearly four
// times an i). Proportional fonts differ in detail, not in this.
func advance(c rune) float64 {
	switch {
	case c >= ' ' && c <= '~':
		return float64(helvetica[c-' '])
	case unicode.In(c, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
		return 1000
	case unicode.IsUpper(c):
		return 667
	}
	return 556
}

// despeckle clears salt-and-pepper noise from a grey page image before
// recognition: a 3×3 median, which removes dots up to 2×2 pixels (noise,
// dust, and dots that an upscaled low-resolution scan turned into blocks)
// and keeps strokes, which at OCR resolution are wider than that.
func despeckle(g *image.Gray) *image.Gray {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(b)
	copy(out.Pix, g.Pix)
	var win [9]uint8
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			k := 0
			for dy := -1; dy <= 1; dy++ {
				row := (y+dy)*g.Stride + x
				win[k], win[k+1], win[k+2] = g.Pix[row-1], g.Pix[row], g.Pix[row+1]
				k += 3
			}
			out.Pix[y*out.Stride+x] = median9(&win)
		}
	}
	return out
}

// dropSpecks whitens connected blobs (8-connected) of visible grey or
// darker and of fewer than max pixels: the dust a median leaves where
// noise dots touched, which Tesseract's binarisation of a pale page turns
// black. At 300 dpi the smallest mark worth keeping, the full stop of
// 8-point type, is about 16 pixels.
func dropSpecks(g *image.Gray, max int) *image.Gray {
	const dark = 200
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	seen := make([]bool, w*h)
	var blob, stack []int
	for start := range seen {
		if seen[start] || g.Pix[(start/w)*g.Stride+start%w] >= dark {
			continue
		}
		blob, stack = blob[:0], append(stack[:0], start)
		seen[start] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(blob) <= max {
				blob = append(blob, i)
			}
			x, y := i%w, i/w
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					j := ny*w + nx
					if !seen[j] && g.Pix[ny*g.Stride+nx] < dark {
						seen[j] = true
						stack = append(stack, j)
					}
				}
			}
		}
		if len(blob) < max {
			for _, i := range blob {
				g.Pix[(i/w)*g.Stride+i%w] = 0xff
			}
		}
	}
	return g
}

// speckled reports whether a page image is noisy enough to despeckle:
// among its dark pixels, more than one in twenty stands nearly alone (two
// dark neighbours or fewer), which clean print, antialiased or not, never
// shows, while the median would cost thin low-resolution strokes.
func speckled(g *image.Gray) bool {
	const dark = 128
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	darkN, alone := 0, 0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			if g.Pix[y*g.Stride+x] >= dark {
				continue
			}
			darkN++
			n := 0
			for dy := -1; dy <= 1; dy++ {
				row := (y+dy)*g.Stride + x
				for dx := -1; dx <= 1; dx++ {
					if (dx != 0 || dy != 0) && g.Pix[row+dx] < dark {
						n++
					}
				}
			}
			if n <= 2 {
				alone++
			}
		}
	}
	return darkN > 0 && alone*20 > darkN
}

// median9 is the median of nine values by a partial selection sort.
func median9(v *[9]uint8) uint8 {
	for i := 0; i <= 4; i++ {
		m := i
		for j := i + 1; j < 9; j++ {
			if v[j] < v[m] {
				m = j
			}
		}
		v[i], v[m] = v[m], v[i]
	}
	return v[4]
}

// cleaned is a page image ready for recognition.
type cleaned struct {
	data []byte
	w, h int
	gray *image.Gray // the same pixels, to place letters within words
}

// cleanScan decodes a grey rendering, despeckles it and encodes it again
// (uncompressed-fast: Tesseract decodes it at once).
func cleanScan(data []byte) (cleaned, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return cleaned{}, err
	}
	g, ok := img.(*image.Gray)
	if !ok {
		return cleaned{}, fmt.Errorf("rendering is %T, not grey", img)
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if speckled(g) {
		g = dropSpecks(despeckle(g), 12)
	}
	if err := enc.Encode(&buf, g); err != nil {
		return cleaned{}, err
	}
	return cleaned{buf.Bytes(), g.Rect.Dx(), g.Rect.Dy(), g}, nil
}
