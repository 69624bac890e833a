package ingest_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// webpBoard is what the tests of PNG copies start from: an Adder with
// real OCR over an empty store, keeping the copies of the images it shows
// in a fresh images folder, and a WebP screenshot of a whiteboard not
// added yet (board.webp).
func webpBoard(t *testing.T) (a *ingest.Adder, images, board string) {
	t.Helper()
	eng := ocrtest.Engine(t, "eng")
	s, e := ingest.BowStore(t, "whiteboard", "roadmap", "quarterly")
	images = filepath.Join(t.TempDir(), "images")
	a = &ingest.Adder{Store: s, Embed: e, Opts: ingest.Options{ChunkSize: 1024, OCR: eng, ImagesDir: images}}
	board = filepath.Join(t.TempDir(), "board.webp")
	webpOf(t, board, "Whiteboard: quarterly roadmap review")
	return a, images, board
}

// webpOf writes lines as a screenshot in WebP (libwebp's cwebp: Go has no
// WebP encoder) at path.
func webpOf(t *testing.T, path string, lines ...string) {
	t.Helper()
	if _, err := exec.LookPath("cwebp"); err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatal("cwebp (Debian webp) is required here")
		}
		t.Skip("cwebp not installed")
	}
	data, _, err := pdf.PagePNG(pdftest.Text(t, lines...), 1, 150)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, pdftest.Gray(t, data)); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(src, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cwebp", "-quiet", "-q", "90", src, "-o", path).CombinedOutput(); err != nil {
		t.Fatalf("cwebp: %v %s", err, out)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// A WebP document is shown through a PNG copy in Jarvis's images folder.
// Two files with the same picture are two documents, each with its own
// copy; removing one (the window's, the CLI's and the chat's removal, then
// ForgetImageCopies) takes its copy and leaves the other document's, and
// the user's WebP files are never touched.
func TestRemovingAWebPDocumentForgetsItsPNGCopy(t *testing.T) {
	a, images, first := webpBoard(t)
	s, ctx := a.Store, context.Background()
	second := filepath.Join(t.TempDir(), "board-copy.webp")
	b, _ := os.ReadFile(first)
	if err := os.WriteFile(second, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{first, second} {
		if _, err := a.Add(ctx, ingest.AddRequest{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := s.List(ctx, kb.Filter{}, 10)
	if err != nil || len(docs) != 2 || docs[0].FilePath == docs[1].FilePath {
		t.Fatalf("the same picture in two files: %+v %v", docs, err)
	}
	k := &kbtools.KB{Store: s, ImagesDir: images}
	r, err := k.PrepareRemove(ctx, kbtools.Caller{Who: "cli", Person: true}, docs[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Remove(ctx, r); err != nil {
		t.Fatal(err)
	}
	gone, kept := r.Doc.FilePath, docs[1].FilePath
	if filepath.Dir(gone) != images || filepath.Dir(kept) != images {
		t.Fatalf("copies %s, %s are not in %s", gone, kept, images)
	}
	if exists(gone) || !exists(kept) || !exists(first) || !exists(second) {
		t.Fatalf("removed copy there %v, other copy there %v, originals there %v %v", exists(gone), exists(kept), exists(first), exists(second))
	}
	// The other document still opens in the viewer.
	if _, _, err := pdf.PagePNG(kept, 1, 50); err != nil {
		t.Fatal(err)
	}
}

// The sweep takes copies no document names once they are old enough (a
// younger one may belong to an image being added), and readings a crash
// left; a copy in use and files that are not Jarvis's copies stay.
func TestPruneImageCopiesTakesOnlyUnusedOldCopies(t *testing.T) {
	a, images, shot := webpBoard(t)
	s, ctx := a.Store, context.Background()
	if _, err := a.Add(ctx, ingest.AddRequest{Path: shot}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(images)
	if len(entries) != 1 {
		t.Fatalf("images: %v", entries)
	}
	used := filepath.Join(images, entries[0].Name())
	old := time.Now().Add(-2 * time.Hour)
	file := func(name string, age time.Time) string {
		p := filepath.Join(images, name)
		if err := os.WriteFile(p, []byte("png"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, age, age); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orphan := file(strings.Repeat("ab", 16)+".png", old)
	young := file(strings.Repeat("cd", 16)+".png", time.Now())
	reading := file(".reading-123.png", old)
	other := file("notes.png", old)
	os.Chtimes(used, old, old)
	n, err := ingest.PruneImageCopies(ctx, s, images, time.Hour)
	if err != nil || n != 2 {
		t.Fatalf("removed %d (%v)", n, err)
	}
	if exists(orphan) || exists(reading) || !exists(young) || !exists(used) || !exists(other) {
		t.Fatalf("orphan %v, reading %v, young %v, used %v, other %v", exists(orphan), exists(reading), exists(young), exists(used), exists(other))
	}
}
