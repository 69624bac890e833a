package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/image/webp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// IsImage reports whether path names an image Jarvis reads by OCR.
func IsImage(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp":
		return true
	}
	return false
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
