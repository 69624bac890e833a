package pdf

import (
	fitz "github.com/gen2brain/go-fitz"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// PagePNG renders one page (1-based) as PNG at dpi, for showing a cited
// page; it also reports how many pages the document has.
func PagePNG(path string, page int, dpi float64) ([]byte, int, error) {
	const op = "pdf.PagePNG"
	doc, err := fitz.New(path)
	if err != nil {
		return nil, 0, errs.Wrapf(errs.Conversion, op, err, "cannot open %s", path)
	}
	defer doc.Close()
	n := doc.NumPage()
	if page < 1 || page > n {
		return nil, n, errs.New(errs.Invalid, op, "page %d is outside 1..%d", page, n)
	}
	png, err := doc.ImagePNG(page-1, dpi)
	if err != nil {
		return nil, n, errs.Wrap(errs.Conversion, op, err)
	}
	return png, n, nil
}
