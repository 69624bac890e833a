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
	"strings"
	"testing"

	"golang.org/x/image/font"
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

func TestOversizedImageIsRefusedUnread(t *testing.T) {
	eng := ocrtest.Engine(t)
	eng.Limits.MaxPixels = 1000
	if _, err := eng.Recognize(context.Background(), []byte("not read"), 100, 100, 300); !errs.Is(err, errs.Conversion) {
		t.Fatalf("err = %v", err)
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
