package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/image/webp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// IsImage reports whether path names an image Jarvis reads by OCR.
func IsImage(path string) bool { return vault.IsImageName(filepath.Base(path)) }

// ImageText reads an image's words with eng, for the vault's images
// (vault.index_images): the recognised text as Markdown and Tesseract's
// mean confidence. A WebP is read through its PNG copy in imagesDir.
func ImageText(eng *ocr.Engine, imagesDir string) func(ctx context.Context, abs string) (string, float64, error) {
	return func(ctx context.Context, abs string) (string, float64, error) {
		view := abs
		if strings.EqualFold(filepath.Ext(abs), ".webp") {
			var err error
			if view, err = PNGCopy(abs, imagesDir); err != nil {
				return "", 0, err
			}
		}
		doc, err := pdf.Read(ctx, view, pdf.Options{OCR: eng})
		if err != nil {
			return "", 0, err
		}
		md, err := doc.Markdown()
		if err != nil {
			return "", 0, err
		}
		conf := 0.0
		if len(doc.Pages) > 0 {
			conf = doc.Pages[0].OCRConfidence
		}
		return stripMarkers(md), conf, nil
	}
}

// PNGCopy decodes the WebP image at path into a PNG under dir, named by
// the source file's hash, so re-adding it reuses the copy. MuPDF, which
// renders citations and feeds OCR, reads PNG but not WebP.
func PNGCopy(path, dir string) (string, error) {
	const op = "ingest.PNGCopy"
	data, err := os.ReadFile(path)
	if err != nil {
		return "", errs.Wrap(errs.NotFound, op, err)
	}
	sum := sha256.Sum256(data)
	out := filepath.Join(dir, hex.EncodeToString(sum[:16])+".png")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", errs.Wrap(errs.NotFound, op, err)
	}
	defer f.Close()
	img, err := webp.Decode(f)
	if err != nil {
		return "", errs.WithHint(errs.Wrapf(errs.Conversion, op, err, "%s is not a readable WebP image", filepath.Base(path)), "export it again, or as PNG")
	}
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	if err := fsutil.WriteFileAtomic(out, buf.Bytes(), 0o600); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	return out, nil
}
