package ingest

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/tiff"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
	"github.com/jarvis-kb/jarvis/backend/vault"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// screenshot renders lines of text the way a screen grab shows them: a
// one-page PDF drawn by MuPDF at 150 dpi into a grey image.
func screenshot(t *testing.T, lines ...string) *image.Gray {
	t.Helper()
	data, _, err := pdf.PagePNG(pdftest.Text(t, lines...), 1, 150)
	if err != nil {
		t.Fatal(err)
	}
	return pdftest.Gray(t, data)
}

// writeImage saves img in the format its name ends with (WebP through
// libwebp's cwebp, the stock encoder: Go has no WebP encoder).
func writeImage(t *testing.T, path string, img *image.Gray) {
	t.Helper()
	var buf bytes.Buffer
	var err error
	switch filepath.Ext(path) {
	case ".png":
		err = png.Encode(&buf, img)
	case ".jpg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
	case ".tiff":
		err = tiff.Encode(&buf, img, nil)
	case ".webp":
		if _, lerr := exec.LookPath("cwebp"); lerr != nil {
			if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
				t.Fatal("cwebp (Debian webp) is required here")
			}
			t.Skip("cwebp not installed")
		}
		src := path + ".png"
		writeImage(t, src, img)
		if out, err := exec.Command("cwebp", "-quiet", "-q", "90", src, "-o", path).CombinedOutput(); err != nil {
			t.Fatalf("cwebp: %v %s", err, out)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func ocrAdder(t *testing.T, eng *ocr.Engine) *Adder {
	t.Helper()
	idx := kbIndexer(t, "whiteboard roadmap quarterly sparse attention")
	return &Adder{Store: idx.Store, Embed: idx.Embed, Opts: Options{ChunkSize: 1024, OCR: eng, NoOCR: errs.New(errs.NotFound, "test", "Tesseract is not installed"), ImagesDir: filepath.Join(t.TempDir(), "images")}}
}

// An image is found by the words on it, with the OCR mark on its chunks,
// and opens in the viewer (a WebP through its PNG copy).
func TestImagesAreAddedByTheirText(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	ctx := context.Background()
	shot := screenshot(t, "Whiteboard: quarterly roadmap review", "Owner: Ada Example, due Friday")
	for _, ext := range []string{".png", ".jpg", ".tiff", ".webp"} {
		t.Run(ext, func(t *testing.T) {
			a := ocrAdder(t, eng)
			path := filepath.Join(t.TempDir(), "board"+ext)
			writeImage(t, path, shot)
			res, err := a.Add(ctx, AddRequest{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Message, `image "board"`) || res.Chunks == 0 {
				t.Fatalf("result %+v", res)
			}
			hits, err := a.Store.BM25(ctx, "quarterly roadmap", kb.Filter{}, 5)
			if err != nil || len(hits) == 0 {
				t.Fatalf("hits %v, err %v", hits, err)
			}
			m := hits[0].Chunk.Meta
			if m.Extra[kb.OCRField] != "tesseract" || m.Extra[kb.OCRConfidenceField] == "" || !strings.HasPrefix(kb.OCRNote(m.Extra), "recognised by OCR") {
				t.Errorf("meta %+v", m)
			}
			if m.Source != "file://"+filepath.ToSlash(path) || m.StorageMode != FullText || m.Visibility != kb.Public {
				t.Errorf("source %q mode %q visibility %q", m.Source, m.StorageMode, m.Visibility)
			}
			if !pdf.Viewable(m.FilePath) {
				t.Fatalf("the viewer cannot open %s", m.FilePath)
			}
			found, err := pdf.LocateContext(ctx, m.FilePath, 1, hits[0].Chunk.Content, eng)
			if err != nil || len(found.Boxes) == 0 {
				t.Fatalf("the passage is not boxed on the image: %+v, %v", found, err)
			}
			if ext == ".webp" {
				if fi, err := os.Stat(m.FilePath); err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(m.FilePath) != a.Opts.ImagesDir {
					t.Errorf("png copy %s: %v %v", m.FilePath, fi, err)
				}
			}
		})
	}
}

func TestWithoutOCRImagesAreRefusedWithTheFix(t *testing.T) {
	a := ocrAdder(t, nil)
	path := filepath.Join(t.TempDir(), "board.png")
	writeImage(t, path, screenshot(t, "Whiteboard: quarterly roadmap review"))
	_, err := a.Add(context.Background(), AddRequest{Path: path})
	if !errs.Is(err, errs.Invalid) || !strings.Contains(errs.HintOf(err), "apt install tesseract-ocr") {
		t.Fatalf("err = %v (hint %q)", err, errs.HintOf(err))
	}
	if c, err := a.Store.Count(context.Background()); err != nil || c.Chunks != 0 {
		t.Fatalf("%d chunks stored (%v)", c.Chunks, err)
	}
}

// A scanned paper is stored with its recognised body, the OCR mark on the
// body's chunks, and a highlight made on the scan reads the words under it.
func TestScannedPaperIsSearchable(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	ctx := context.Background()
	scan := scannedPaper(t)
	a := ocrAdder(t, eng)
	var pages []pdf.Progress
	a.Opts.Progress = func(p pdf.Progress) { pages = append(pages, p) }
	res, err := a.Add(ctx, AddRequest{Path: scan, Paper: Paper{Mode: FullText, Title: "Sparse Attention"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Message, "2 scanned page(s) read by OCR") || len(pages) != 2 {
		t.Fatalf("%+v, progress %v", res, pages)
	}
	hits, err := a.Store.BM25(ctx, "validation sweep", kb.Filter{}, 5)
	if err != nil || len(hits) == 0 {
		t.Fatalf("hits %v %v", hits, err)
	}
	var highlight, body bool
	for _, h := range hits {
		m := h.Chunk.Meta
		if m.Extra[kb.OCRField] == "" {
			t.Errorf("chunk %q lacks the OCR mark", h.Chunk.Content)
		}
		highlight = highlight || strings.EqualFold(m.AnnotationKind, "highlight") && strings.Contains(strings.ToLower(h.Chunk.Content), "validation sweep")
		body = body || m.AnnotationKind == "" && strings.Contains(h.Chunk.Content, "per layer")
	}
	if !highlight || !body {
		t.Fatalf("highlight %v body %v: %v", highlight, body, hits)
	}
	// Without Tesseract nothing on the scan can be read (the highlight has
	// no text either): refused, saying what to install.
	b := ocrAdder(t, nil)
	_, err = b.Add(ctx, AddRequest{Path: scan, Paper: Paper{Mode: FullText, Title: "Sparse Attention"}})
	if !errs.Is(err, errs.Conversion) || !strings.Contains(errs.HintOf(err), "tesseract-ocr") {
		t.Fatalf("err = %v", err)
	}
}

// scannedPaper is the pdf fixture paper scanned at 300 dpi with a
// highlight over "validation sweep" on page 2 (where make_fixtures.py drew it).
func scannedPaper(t *testing.T) string {
	t.Helper()
	src := "../pdf/testdata/paper.pdf"
	var pages []pdftest.ScanPage
	for n := 1; n <= 2; n++ {
		data, _, err := pdf.PagePNG(src, n, 300)
		if err != nil {
			t.Fatal(err)
		}
		g := pdftest.Gray(t, data)
		p := pdftest.ScanPage{Image: g, Width: 595.2756, Height: 841.8898}
		if n == 2 {
			p.Marks = [][4]float64{{285.961, 734.14, 367.273, 746.79}}
		}
		pages = append(pages, p)
	}
	return pdftest.Scan(t, pages...)
}

func TestEncryptedPaperTakesItsPassword(t *testing.T) {
	a := ocrAdder(t, nil)
	ctx := context.Background()
	path := "../pdf/testdata/encrypted.pdf"
	if _, err := a.Add(ctx, AddRequest{Path: path, Paper: Paper{Mode: FullText, Title: "Sparse"}}); !errs.Is(err, errs.Locked) {
		t.Fatalf("err = %v", err)
	}
	res, err := a.Add(ctx, AddRequest{Path: path, Paper: Paper{Mode: FullText, Title: "Sparse", Password: "s3cret-Pw"}})
	if err != nil || res.Chunks == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	// Used for the read, kept nowhere: not a byte of it in the store.
	a.Store.Close()
	err = filepath.WalkDir(a.Store.Dir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if bytes.Contains(b, []byte("s3cret-Pw")) {
			t.Errorf("the password is in %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A scan dropped in the inbox before Tesseract was installed is remembered
// as waiting for OCR, and read on the first scan after it appears; a
// readable file that failed for its own reasons stays skipped.
func TestInboxRetriesScansOnceOCRIsThere(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	idx := kbIndexer(t, "sparse attention validation sweep")
	dir := t.TempDir()
	copyFile(t, scannedPaper(t), filepath.Join(dir, "scan.pdf"))
	copyFile(t, pdftest.Truncated(t, "../pdf/testdata/paper.pdf", 1000), filepath.Join(dir, "truncated.pdf"))
	record := filepath.Join(t.TempDir(), "state", "inbox-failures.json")
	inbox := func(eng *ocr.Engine) *Inbox {
		return &Inbox{Dir: dir, Store: idx.Store, Embed: idx.Embed, FailuresFile: record,
			Opts:  Options{ChunkSize: 1024, OCR: eng},
			Sleep: func(context.Context, time.Duration) error { return nil }}
	}
	ctx := context.Background()
	if res, err := inbox(nil).Scan(ctx); err != nil || res.Failed != 2 {
		t.Fatalf("without OCR: %s %v", res, err)
	}
	if res, err := inbox(nil).Scan(ctx); err != nil || res.Skipped != 2 {
		t.Fatalf("unchanged, still without OCR: %s %v", res, err)
	}
	res, err := inbox(eng).Scan(ctx)
	if err != nil || res.Added != 1 || res.Skipped != 1 {
		t.Fatalf("with OCR: %s %q %v", res, res.Errors, err)
	}
	if hits, err := idx.Store.BM25(ctx, "validation sweep", kb.Filter{}, 3); err != nil || len(hits) == 0 {
		t.Fatalf("the scan is not searchable: %v %v", hits, err)
	}
}

// With vault.index_images the vault's images are notes by their text,
// private in a private folder; a photo without words is kept by its name
// and not read again; with the setting off, images stay out.
func TestVaultImagesAreNotesByTheirText(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	ctx := context.Background()
	idx := kbIndexer(t, "roadmap salary")
	root := t.TempDir()
	for _, d := range []string{"boards", "private"} {
		os.MkdirAll(filepath.Join(root, d), 0o700)
	}
	writeImage(t, filepath.Join(root, "boards", "roadmap.png"), screenshot(t, "Quarterly roadmap review with the lab"))
	writeImage(t, filepath.Join(root, "private", "offer.png"), screenshot(t, "Salary offer letter, confidential"))
	blank := image.NewGray(image.Rect(0, 0, 300, 200))
	for i := range blank.Pix {
		blank.Pix[i] = 0xff
	}
	writeImage(t, filepath.Join(root, "boards", "sky.jpg"), blank)
	os.WriteFile(filepath.Join(root, "boards", "note.md"), []byte("# Note\n\nA plain note.\n"), 0o600)

	r := &vault.Refresher{Root: root, PrivateDirs: []string{"private"}, Store: idx.Store, ChunkSize: 1024}
	if res, err := r.Refresh(ctx); err != nil || res.Added != 1 {
		t.Fatalf("setting off: %+v %v", res, err)
	}
	reads := 0
	read := ImageText(eng, t.TempDir())
	r.ReadImage = func(ctx context.Context, abs string) (string, float64, error) { reads++; return read(ctx, abs) }
	if res, err := r.Refresh(ctx); err != nil || res.Added != 3 || reads != 3 {
		t.Fatalf("setting on: %+v %v, %d reads", res, err, reads)
	}
	hits, err := idx.Store.BM25(ctx, "quarterly roadmap", kb.Filter{}, 3)
	if err != nil || len(hits) == 0 || hits[0].Chunk.Meta.FilePath != "boards/roadmap.png" || hits[0].Chunk.Meta.Extra[kb.OCRField] == "" {
		t.Fatalf("roadmap: %+v %v", hits, err)
	}
	hits, err = idx.Store.BM25(ctx, "salary offer", kb.Filter{}, 3)
	if err != nil || len(hits) == 0 || hits[0].Chunk.Meta.Visibility != kb.Private {
		t.Fatalf("private image: %+v %v", hits, err)
	}
	if hits, _ := idx.Store.BM25(ctx, "sky", kb.Filter{}, 3); len(hits) != 1 || hits[0].Chunk.Meta.Extra[kb.OCRField] != "" {
		t.Fatalf("a photo is kept by its name, unmarked: %+v", hits)
	}
	if res, err := r.Refresh(ctx); err != nil || res.Added+res.Updated != 0 || reads != 3 {
		t.Fatalf("unchanged images were read again: %+v %v, %d reads", res, err, reads)
	}
}

// withPHYs returns a PNG declaring dpi dots per inch (a pHYs chunk after
// IHDR), as phone cameras and many screenshot tools write 72.
func withPHYs(t *testing.T, data []byte, dpi float64) []byte {
	t.Helper()
	ppm := uint32(dpi/0.0254 + 0.5)
	body := append([]byte("pHYs"), byte(ppm>>24), byte(ppm>>16), byte(ppm>>8), byte(ppm), byte(ppm>>24), byte(ppm>>16), byte(ppm>>8), byte(ppm), 1)
	sum := crc32.ChecksumIEEE(body)
	chunk := append([]byte{0, 0, 0, 9}, body...)
	chunk = append(chunk, byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum))
	const ihdrEnd = 8 + 4 + 4 + 13 + 4 // signature, then IHDR's length, type, data and CRC
	if len(data) < ihdrEnd || string(data[12:16]) != "IHDR" {
		t.Fatal("not a PNG")
	}
	return append(append(append([]byte{}, data[:ihdrEnd]...), chunk...), data[ihdrEnd:]...)
}

// A photo-sized image that declares 72 dpi (11 Mpx: far beyond the pixel
// cap if it were enlarged to 300 dpi) is read at its own resolution.
func TestALargeImageDeclaring72DPIIsReadAtItsOwnResolution(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	data, _, err := pdf.PagePNG(pdftest.Text(t, "Whiteboard: quarterly roadmap review", "Owner: Ada Example, due Friday"), 1, 340)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, pdftest.Gray(t, data)); err != nil {
		t.Fatal(err)
	}
	cfg, _ := png.DecodeConfig(bytes.NewReader(buf.Bytes()))
	if px := cfg.Width * cfg.Height; px < 10_000_000 {
		t.Fatalf("the photo is only %d px", px)
	}
	path := filepath.Join(t.TempDir(), "photo.png")
	if err := os.WriteFile(path, withPHYs(t, buf.Bytes(), 72), 0o600); err != nil {
		t.Fatal(err)
	}
	a := ocrAdder(t, eng)
	if _, err := a.Add(context.Background(), AddRequest{Path: path}); err != nil {
		t.Fatalf("the photo was refused: %v", err)
	}
	if hits, err := a.Store.BM25(context.Background(), "quarterly roadmap", kb.Filter{}, 5); err != nil || len(hits) == 0 {
		t.Fatalf("its words are not found: %v %+v", err, hits)
	}
}

// A scanned PDF in Zotero: synced without Tesseract its pages are left
// unread (and a later sync with nothing changed leaves it be); once
// Tesseract is there the next sync reads them, and the chunks say their
// text was recognised.
func TestZoteroScanIsReadOnceOCRAppearsAndMarkedAsRecognised(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	t.Cleanup(db.Close)
	db.AddItem(zotero.Item{Key: "SCAN2345", Type: "journalArticle", Title: "A scanned paper", Fields: map[string]string{"title": "A scanned paper"},
		Attachments: []zotero.Attachment{{Key: "SCANATT2", Title: "Scan", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: scannedPaper(t)}}})
	s := zoteroStore(t)
	ctx := context.Background()
	without := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}}
	if _, err := without.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if hits := find(t, s, "sparse attention accuracy"); len(hits) != 0 {
		t.Fatalf("without OCR the scan has no words: %+v", hits)
	}
	if res, err := without.Sync(ctx); err != nil || res.Unchanged != 1 {
		t.Fatalf("still without OCR nothing is read again: %+v %v", res, err)
	}
	with := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100, OCR: eng}}
	res, err := with.Sync(ctx)
	if err != nil || res.Updated != 1 {
		t.Fatalf("with OCR the scan is read: %+v %v", res, err)
	}
	hits := find(t, s, "sparse attention accuracy")
	if len(hits) == 0 {
		t.Fatal("the recognised words are not found")
	}
	for _, h := range hits {
		if h.Chunk.Meta.AnnotationKind == "" && kb.OCRNote(h.Chunk.Meta.Extra) == "" {
			t.Fatalf("recognised text is not marked as such: %+v", h.Chunk.Meta)
		}
	}
	if res, err := with.Sync(ctx); err != nil || res.Unchanged != 1 {
		t.Fatalf("once read, it is not read again: %+v %v", res, err)
	}
}

// scannedLines is a page showing lines as a 300 dpi scan does: drawn by
// MuPDF into a grey image, no text layer left.
func scannedLines(t *testing.T, lines ...string) pdftest.ScanPage {
	t.Helper()
	data, _, err := pdf.PagePNG(pdftest.Text(t, lines...), 1, 300)
	if err != nil {
		t.Fatal(err)
	}
	return pdftest.ScanPage{Image: pdftest.Gray(t, data), Width: 612, Height: 792}
}

// A paper of typed pages with one scanned page: Tesseract reads that page
// alone, its words are searchable, and the OCR mark goes on every chunk
// holding recognised words — one that starts on a typed page and runs
// into the scan too — and on no chunk of typed pages only; nothing is
// counted unread.
func TestAMixedPaperMarksOnlyTheRecognisedText(t *testing.T) {
	fake := ocrtest.Counting(t)
	typed := func(topic string) pdftest.ScanPage {
		var lines []string
		for i := range 12 {
			lines = append(lines, fmt.Sprintf("The typed %s page has a text layer, line %d of it.", topic, i+1))
		}
		return pdftest.ScanPage{Text: lines, Width: 612, Height: 792}
	}
	path := pdftest.Scan(t, typed("opening"),
		scannedLines(t, "Quarterly inventory ledger photocopied from the archive", "Warehouse totals reconciled by hand in March"),
		typed("closing"))
	for _, size := range []int{4096, 300} { // the whole paper in one chunk; a chunk or more per page
		res, err := BuildPaper(context.Background(), Paper{Path: path, Mode: FullText, Title: "Mixed"}, Options{ChunkSize: size, OCR: fake.Engine})
		if err != nil {
			t.Fatal(err)
		}
		if res.OCRPages != 1 || res.NeedsOCR {
			t.Fatalf("size %d: %d OCR pages, needs OCR %v", size, res.OCRPages, res.NeedsOCR)
		}
		var ledger bool
		for _, c := range res.Chunks {
			recognised := strings.Contains(c.Content, "inventory") || strings.Contains(c.Content, "Warehouse")
			ledger = ledger || strings.Contains(c.Content, "inventory ledger")
			if marked := c.Meta.Extra[kb.OCRField] != ""; marked != recognised {
				t.Errorf("size %d, page %d: OCR mark %v on %q", size, c.Meta.Page, marked, c.Content)
			}
			if c.Meta.Extra[UnreadField] != "" {
				t.Errorf("size %d: unread pages %s", size, c.Meta.Extra[UnreadField])
			}
		}
		if !ledger {
			t.Errorf("size %d: the scanned page's words are missing: %+v", size, res.Chunks)
		}
	}
	if fake.Runs() != 2 { // one page, read once per build
		t.Fatalf("%d recognitions", fake.Runs())
	}
}

// A vault WebP is read through a PNG copy made for the reading alone: its
// words come back and nothing is left in the images folder (the note is
// the WebP itself; no viewer shows the copy).
func TestAVaultWebPLeavesNoCopyBehind(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	path := filepath.Join(t.TempDir(), "board.webp")
	writeImage(t, path, screenshot(t, "Whiteboard: quarterly roadmap review"))
	images := filepath.Join(t.TempDir(), "images")
	text, conf, err := ImageText(eng, images)(context.Background(), path)
	if err != nil || !strings.Contains(text, "quarterly roadmap") || conf <= 0 {
		t.Fatalf("%q %.0f %v", text, conf, err)
	}
	if left, _ := os.ReadDir(images); len(left) != 0 {
		t.Fatalf("left in the images folder: %v", left)
	}
}
