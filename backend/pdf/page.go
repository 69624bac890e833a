package pdf

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Viewable reports whether MuPDF can show the file at path as pages: a PDF,
// or an image it reads as a one-page document (PNG, JPEG, TIFF).
func Viewable(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff":
		return true
	}
	return false
}

// PagePNG renders one page (1-based) as PNG at dpi, for showing a cited
// page; it also reports how many pages the document has. It runs under
// DefaultLimits like Read, so a hostile page cannot hang the viewer.
func PagePNG(path string, page int, dpi float64) ([]byte, int, error) {
	const op = "pdf.PagePNG"
	ctx := context.Background()
	lim := DefaultLimits
	r, n, err := openCounted(path, "", lim, op)
	if err != nil {
		return nil, 0, err
	}
	defer r.close()
	if page < 1 || page > n {
		return nil, n, errs.New(errs.Invalid, op, "page %d is outside 1..%d", page, n)
	}
	docCtx, cancel := documentDeadline(ctx, lim)
	defer cancel()
	var png []byte
	err = r.bounded(ctx, docCtx, lim, op, fmt.Sprintf("page %d of %s", page, path), func() *mupdfError {
		var merr *mupdfError
		png, merr = r.render(page-1, dpi/72, false)
		return merr
	})
	return png, n, err
}
