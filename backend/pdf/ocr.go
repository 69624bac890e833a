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
			return errs.New(errs.Conversion, op, "%s is %.0f×%.0f points, too large to recognise within %d Mpx", what, p.Width, p.Height, max/1_000_000)
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
	chars := wordChars(res, 72/dpi)
	if (Page{Chars: chars}).text().letters <= p.text().letters && !p.Unmappable() {
		return nil // the text layer, thin as it is, is what the page says
	}
	p.Chars, p.OCR, p.OCRConfidence = chars, true, res.Confidence()
	return nil
}

// wordChars turns recognised words into page characters: each word's box
// shared out among its letters, a space between words, one block per
// paragraph and the line's height (in points) as the font size, so
// headings, paragraphs, highlights and Locate work as on a text layer.
func wordChars(res ocr.Result, scale float64) []Char {
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
		step := (box.X1 - box.X0) / float64(len(rs))
		for k, c := range rs {
			out = append(out, Char{Block: block, Line: line, R: c, Size: size, Upright: true,
				Box: Rect{box.X0 + step*float64(k), box.Y0, box.X0 + step*float64(k+1), box.Y1}})
		}
	}
	return out
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
	return cleaned{buf.Bytes(), g.Rect.Dx(), g.Rect.Dy()}, nil
}
