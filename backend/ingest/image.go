package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/image/webp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// IsImage reports whether path names an image Jarvis reads by OCR.
func IsImage(path string) bool { return vault.IsImageName(filepath.Base(path)) }

// ImageText reads an image's words with eng, for the vault's images
// (vault.index_images): the recognised text as Markdown and Tesseract's
// mean confidence. A WebP is read through a PNG copy in imagesDir made for
// the reading and removed after it: the vault note is the WebP itself,
// and no viewer shows the copy, so keeping it would only leave a file
// behind for every image the vault ever held.
func ImageText(eng *ocr.Engine, imagesDir string) func(ctx context.Context, abs string) (string, float64, error) {
	return func(ctx context.Context, abs string) (string, float64, error) {
		view := abs
		if strings.EqualFold(filepath.Ext(abs), ".webp") {
			data, err := webpAsPNG(abs)
			if err != nil {
				return "", 0, err
			}
			if view, err = readingCopy(imagesDir, data); err != nil {
				return "", 0, err
			}
			defer os.Remove(view)
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

// readingPrefix starts the names of the copies ImageText reads and removes.
const readingPrefix = ".reading-"

// readingCopy writes a PNG into dir under a fresh name, for one reading.
func readingCopy(dir string, data []byte) (string, error) {
	const op = "ingest.ImageText"
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	f, err := os.CreateTemp(dir, readingPrefix+"*.png")
	if err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", errs.Wrap(errs.Internal, op, err)
	}
	return f.Name(), nil
}

// PNGCopy decodes the WebP image at path into a PNG under dir, kept for
// the viewer as long as a stored document shows it: MuPDF, which renders
// citations and feeds OCR, reads PNG but not WebP. The copy is named by
// the source file's path and contents, so re-adding the file reuses it
// and two files with the same picture stay two documents (the store keys
// a document by its file); ForgetImageCopies removes it with the last
// document naming it.
func PNGCopy(path, dir string) (string, error) {
	const op = "ingest.PNGCopy"
	data, err := os.ReadFile(path)
	if err != nil {
		return "", errs.Wrap(errs.NotFound, op, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, op, err)
	}
	h := sha256.New()
	h.Write([]byte(abs))
	h.Write([]byte{0})
	h.Write(data)
	out := filepath.Join(dir, hex.EncodeToString(h.Sum(nil)[:16])+".png")
	if _, err := os.Stat(out); err == nil {
		// Touched, so a sweep of unused copies (PruneImageCopies) does not
		// take it while the document that reuses it is being stored.
		now := time.Now()
		_ = os.Chtimes(out, now, now)
		return out, nil
	}
	encoded, err := webpAsPNG(path)
	if err != nil {
		return "", err
	}
	if err := fsutil.EnsurePrivateDir(dir); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	if err := fsutil.WriteFileAtomic(out, encoded, 0o600); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	return out, nil
}

// webpAsPNG decodes the WebP image at path and encodes it as PNG.
func webpAsPNG(path string) ([]byte, error) {
	const op = "ingest.PNGCopy"
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Wrap(errs.NotFound, op, err)
	}
	defer f.Close()
	img, err := webp.Decode(f)
	if err != nil {
		return nil, errs.WithHint(errs.Wrapf(errs.Conversion, op, err, "%s is not a readable WebP image", filepath.Base(path)), "export it again, or as PNG")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	return buf.Bytes(), nil
}

// copyName is the name PNGCopy gives a copy.
var copyName = regexp.MustCompile(`^[0-9a-f]{32}\.png$`)

// isCopy reports whether path is a PNG copy PNGCopy made in dir.
func isCopy(dir, path string) bool {
	if dir == "" || !copyName.MatchString(filepath.Base(path)) {
		return false
	}
	d, err1 := filepath.Abs(dir)
	p, err2 := filepath.Abs(path)
	return err1 == nil && err2 == nil && filepath.Dir(p) == d
}

// ForgetImageCopies removes the viewer's PNG copies among paths — the
// FilePath of documents just removed from s — that PNGCopy made in dir
// and that no chunk left in s names: the copy is Jarvis's own file, made
// to show a WebP, and goes with the last document showing it. Any other
// path (the user's own image, a PDF) is never touched. It returns how
// many copies it removed.
func ForgetImageCopies(ctx context.Context, s *kb.Store, dir string, paths ...string) (int, error) {
	n := 0
	for _, p := range paths {
		if !isCopy(dir, p) {
			continue
		}
		removed, err := forgetCopy(ctx, s, p)
		if err != nil {
			return n, err
		}
		if removed {
			n++
		}
	}
	return n, nil
}

// PruneImageCopies removes the PNG copies in dir that no chunk in s
// names, and readings ImageText left behind (a crash mid-read), when they
// are older than minAge: a younger copy may be the one an image being
// added right now will name once its chunks are stored. It clears what
// removals before ForgetImageCopies left, and returns how many it removed.
func PruneImageCopies(ctx context.Context, s *kb.Store, dir string, minAge time.Duration) (int, error) {
	const op = "ingest.PruneImageCopies"
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, errs.Wrap(errs.Internal, op, err)
	}
	n := 0
	var copies []string
	for _, e := range entries {
		name := e.Name()
		reading := strings.HasPrefix(name, readingPrefix) && strings.HasSuffix(name, ".png")
		if !e.Type().IsRegular() || !reading && !copyName.MatchString(name) {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < minAge {
			continue
		}
		p := filepath.Join(dir, name)
		if !reading {
			copies = append(copies, p)
		} else if os.Remove(p) == nil {
			n++
		}
	}
	forgotten, err := ForgetImageCopies(ctx, s, dir, copies...)
	return n + forgotten, err
}

// forgetCopy removes the copy at p unless a chunk in s names it.
func forgetCopy(ctx context.Context, s *kb.Store, p string) (bool, error) {
	docs, err := s.List(ctx, kb.Filter{FilePath: p}, 1)
	if err != nil || len(docs) > 0 {
		return false, err
	}
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, errs.Wrap(errs.Internal, "ingest.ForgetImageCopies", err)
	}
	return true, nil
}
