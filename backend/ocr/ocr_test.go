package ocr_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
)

func TestParseTSVKeepsWordsBoxesAndLines(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t2480\t3508\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t300\t400\t900\t42\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t300\t400\t200\t40\t96.5\tSparse\n" +
		"5\t1\t1\t1\t1\t2\t520\t402\t300\t40\t91\t\"attention\"\n" +
		"5\t1\t1\t1\t1\t3\t840\t402\t10\t40\t95\t \n" +
		"5\t1\t2\t1\t1\t1\t300\t900\t80\t30\t-1\tnoise\n"
	res, err := ocr.ParseTSV(strings.NewReader(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Words) != 2 || res.Words[0].Text != "Sparse" || res.Words[1].Text != `"attention"` ||
		res.Words[0].X1 != 500 || res.Words[1].Y1 != 442 || res.LineHeights[[3]int{1, 1, 1}] != 42 {
		t.Fatalf("%+v", res)
	}
	if c := res.Confidence(); c < 93.7 || c > 93.8 {
		t.Fatalf("confidence %.2f", c)
	}
	if _, err := ocr.ParseTSV(strings.NewReader("<html>")); !errs.Is(err, errs.Conversion) {
		t.Fatalf("not TSV: %v", err)
	}
}

func TestLookupNamesTheMissingLanguagePackage(t *testing.T) {
	ocrtest.Engine(t) // Tesseract is here
	_, err := ocr.Lookup([]string{"eng", "kat_old"})
	if !errs.Is(err, errs.Invalid) || !strings.Contains(errs.HintOf(err), "tesseract-ocr-kat-old") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := ocr.Lookup(nil); !errs.Is(err, errs.NotFound) || errs.HintOf(err) != ocr.InstallHint {
		t.Fatalf("no tesseract: %v", err)
	}
}

// An image over the pixel limit is refused by its size: Tesseract is
// never started on it.
func TestOversizedImageIsRefusedUnread(t *testing.T) {
	fake := ocrtest.NewFake(t, ocrtest.Answer("never", "read"))
	fake.Limits.MaxPixels = 1000
	_, err := fake.Recognize(context.Background(), []byte("not read"), 100, 100, 300)
	if !errs.Is(err, errs.Conversion) || ocr.LimitOf(err) != ocr.PixelLimit || !strings.Contains(err.Error(), "100×100 pixels") {
		t.Fatalf("err = %v", err)
	}
	if n := fake.Runs(); n != 0 {
		t.Fatalf("tesseract ran %d times on a refused image", n)
	}
	// Within the limit the same image is read.
	res, err := fake.Recognize(context.Background(), []byte("read"), 10, 10, 300)
	if err != nil || len(res.Words) != 2 || fake.Runs() != 1 {
		t.Fatalf("%+v %v, %d runs", res, err, fake.Runs())
	}
}

// A page whose recognition outlasts the time limit is stopped there: a
// Conversion error naming the time limit, not a cancellation (which would
// stop the whole document).
func TestAPageOverItsTimeLimitIsStopped(t *testing.T) {
	fake := ocrtest.NewFake(t, ocrtest.Stall)
	fake.Limits.Timeout = 300 * time.Millisecond
	_, err := fake.Recognize(context.Background(), []byte("png"), 10, 10, 300)
	if !errs.Is(err, errs.Conversion) || errs.Is(err, errs.Cancelled) || ocr.LimitOf(err) != ocr.TimeLimit ||
		!strings.Contains(err.Error(), "its time limit") || errs.HintOf(err) == "" {
		t.Fatalf("err = %v", err)
	}
	// The caller's own cancellation is Cancelled, not the page's limit.
	fake.Limits.Timeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-fake.Started; cancel() }()
	if _, err := fake.Recognize(ctx, []byte("png"), 10, 10, 300); !errs.Is(err, errs.Cancelled) || ocr.LimitOf(err) != "" {
		t.Fatalf("cancelled: %v", err)
	}
}

// The memory cap is the tesseract process's address-space limit, set by
// prlimit before tesseract starts.
func TestTheMemoryCapReachesTesseract(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatal("prlimit (util-linux) is required here")
		}
		t.Skip("no prlimit: the memory cap cannot be set")
	}
	fake := ocrtest.NewFake(t, `ulimit -v > "$FAKE_DIR/ulimit"`+"\n"+ocrtest.Answer("capped"))
	fake.Limits.MaxMemory = 300 << 20
	if _, err := fake.Recognize(context.Background(), []byte("png"), 10, 10, 300); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fake.Dir(), "ulimit"))
	if err != nil || strings.TrimSpace(string(b)) != "307200" { // KB
		t.Fatalf("tesseract ran with ulimit -v %q (%v)", b, err)
	}
}

// Tesseract refused memory fails, or reports an empty page and exits 0:
// either way the page was not read, and the error says the memory limit
// stopped it rather than calling the page blank.
func TestTesseractOutOfMemoryIsTheMemoryLimit(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatal("prlimit (util-linux) is required here")
		}
		t.Skip("no prlimit: no memory cap")
	}
	for name, body := range map[string]string{
		// What Tesseract 5.3 does at about 110 MB for an A4 page at 300 dpi.
		"an empty page, exit 0": "printf 'Error in pixCreateNoInit: pixdata_malloc fail for data\\nError in pixGetWidth: pix not defined\\n' >&2\n" +
			"printf '" + ocrtest.TSVHeader + "\\n'",
		"a failed run": "echo 'libpng error: Out of memory' >&2; echo 'Error during processing.' >&2; exit 1",
	} {
		fake := ocrtest.NewFake(t, body)
		fake.Limits.MaxMemory = 100 << 20
		_, err := fake.Recognize(context.Background(), []byte("png"), 10, 10, 300)
		if !errs.Is(err, errs.Conversion) || ocr.LimitOf(err) != ocr.MemoryLimit || !strings.Contains(err.Error(), "100 MB") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// Any other failure is Tesseract's, told as it said it.
	fake := ocrtest.NewFake(t, "echo 'Error: unknown image format' >&2; exit 1")
	if _, err := fake.Recognize(context.Background(), []byte("png"), 10, 10, 300); !errs.Is(err, errs.Conversion) || ocr.LimitOf(err) != "" ||
		!strings.Contains(err.Error(), "unknown image format") {
		t.Fatalf("other failure: %v", err)
	}
}

// The real Tesseract under a cap too small to load its libraries.
func TestRealTesseractUnderATinyMemoryCap(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	if _, err := exec.LookPath("prlimit"); err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatal("prlimit (util-linux) is required here")
		}
		t.Skip("no prlimit: no memory cap")
	}
	eng.Limits.MaxMemory = 16 << 20
	img := drawText(t, goregular.TTF, []string{"Memory limits are enforced"})
	_, err := eng.Recognize(context.Background(), img, 1800, 500, 300)
	if !errs.Is(err, errs.Conversion) || ocr.LimitOf(err) != ocr.MemoryLimit {
		t.Fatalf("err = %v", err)
	}
	eng.Limits.MaxMemory = ocr.DefaultLimits.MaxMemory
	res, err := eng.Recognize(context.Background(), img, 1800, 500, 300)
	if err != nil || len(res.Words) == 0 {
		t.Fatalf("under the default cap: %+v %v", res, err)
	}
}

// cjkFont is a CJK TrueType font Debian ships (fonts-droid-fallback),
// which CI installs beside the Chinese traineddata.
const cjkFont = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"

// A Chinese page is read with chi_sim installed: the characters drawn are
// the characters recognised.
func TestChinesePageIsRecognised(t *testing.T) {
	eng := ocrtest.Engine(t, "chi_sim")
	data, err := os.ReadFile(cjkFont)
	if err != nil {
		if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
			t.Fatalf("the CJK font is required here: %v", err)
		}
		t.Skipf("no CJK font: %v", err)
	}
	lines := []string{"知识库中的笔记可以按关键词检索", "私人文件夹里的笔记不会发送到云端模型"}
	img := drawText(t, data, lines)
	res, err := eng.Recognize(context.Background(), img, 1800, 500, 300)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, w := range res.Words {
		got.WriteString(w.Text)
	}
	want := []rune(strings.Join(lines, ""))
	have := map[rune]int{}
	for _, r := range got.String() {
		have[r]++
	}
	found := 0
	for _, r := range want {
		if have[r] > 0 {
			have[r]--
			found++
		}
	}
	recall := float64(found) / float64(len(want))
	t.Logf("chi_sim character recall %.3f: %s", recall, got.String())
	if recall < 0.9 {
		t.Fatalf("recall %.3f, read %q", recall, got.String())
	}
}

// drawText writes lines in the font at 40 px on a white 1800×500 grey PNG.
func drawText(t *testing.T, fontData []byte, lines []string) []byte {
	t.Helper()
	f, err := opentype.Parse(fontData)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 40, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 1800, 500))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(100, 150+i*90)
		d.DrawString(l)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Tesseract removed after it was found: the engine says it is broken
// (Internal, with the install hint), not that the page failed, so a long
// scan stops trying instead of failing page after page.
func TestATesseractGoneSinceLookupIsABrokenEngine(t *testing.T) {
	ocrtest.Engine(t) // the real one must be installed (see ocrtest)
	real, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatal(err)
	}
	langs, err := exec.Command(real, "--list-langs").CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "tesseract")
	script := "#!/bin/sh\ncat <<'EOF'\n" + string(langs) + "EOF\n"
	if err := os.WriteFile(fake, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	eng, err := ocr.Lookup(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(fake); err != nil {
		t.Fatal(err)
	}
	_, err = eng.Recognize(context.Background(), []byte("png"), 10, 10, 300)
	if !errs.Is(err, errs.Internal) || errs.Is(err, errs.Conversion) || !strings.Contains(errs.HintOf(err), "apt install tesseract-ocr") {
		t.Fatalf("err = %v (hint %q)", err, errs.HintOf(err))
	}
}

// Without ocr_languages every installed language is used, English first
// (it leads the page layout), whatever else is installed.
func TestDefaultLanguagesPutEnglishFirst(t *testing.T) {
	eng, err := ocr.Lookup(nil)
	if err != nil {
		t.Fatalf("no tesseract: %v", err)
	}
	if len(eng.Languages) != len(eng.Installed) || eng.Languages[0] != "eng" {
		t.Fatalf("languages %v from installed %v", eng.Languages, eng.Installed)
	}
}

// Observe hears each page's cost, and the peak memory is Tesseract's own:
// not the kernel's rusage of the child, which at exec takes over the peak
// of the process that started it (Go starts children by vfork), so a
// tesseract started beside 300 MB of ballast would "peak" at 300 MB.
func TestObserveReportsTesseractsOwnPeakMemory(t *testing.T) {
	eng := ocrtest.Engine(t, "eng")
	ballast := make([]byte, 300<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1 // resident, not just reserved
	}
	var runs []ocr.Run
	eng.Observe = func(r ocr.Run) { runs = append(runs, r) }
	img := drawText(t, goregular.TTF, []string{"Peak memory is measured per process"})
	if _, err := eng.Recognize(context.Background(), img, 1800, 500, 300); err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(ballast)
	if len(runs) != 1 {
		t.Fatalf("%d runs observed", len(runs))
	}
	r := runs[0]
	// Tesseract with English loaded holds tens of MB; far below the ballast.
	if r.PeakRSS < 10<<20 || r.PeakRSS > 200<<20 || r.CPU <= 0 || r.Wall <= 0 {
		t.Fatalf("run %+v (peak %d MB)", r, r.PeakRSS>>20)
	}
	t.Logf("tesseract: peak %d MB, cpu %s, wall %s", r.PeakRSS>>20, r.CPU, r.Wall)
}
