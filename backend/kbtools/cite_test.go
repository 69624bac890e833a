package kbtools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// A Zotero item is cited by its zotero:// source, its citation carries the
// link that opens the annotation in Zotero, and its identity line names
// the Zotero key so the model can say which item a passage is from.
func TestZoteroCitationsCarryTheirLinkAndKey(t *testing.T) {
	m := kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: ingest.ZoteroSourceFor("ITEM2345"), Title: "Glaciers", Page: 3,
		FilePath: "/home/ada/Zotero/storage/ATTA2345/glaciers.pdf",
		Extra:    map[string]string{ingest.ZoteroKeyField: "ITEM2345", ingest.ZoteroOpenField: ingest.ZoteroOpenPDF("ATTA2345", 3, "ANNO2345"), ingest.YearField: "2021"}}
	c := CitationOf(kb.Chunk{ID: 7, Meta: m})
	if c.Source != "zotero://select/library/items/ITEM2345" || c.Link != "zotero://open-pdf/library/items/ATTA2345?page=3&annotation=ANNO2345" || c.Page != 3 {
		t.Fatalf("citation %+v", c)
	}
	if id := Identity(m); !strings.Contains(id, "Zotero item: ITEM2345") || !strings.Contains(id, "year: 2021") {
		t.Fatalf("identity %q", id)
	}
	if CiteLabel(m) != "[source: zotero://select/library/items/ITEM2345, p.3]" {
		t.Fatalf("label %q", CiteLabel(m))
	}
	// Everything else keeps no link.
	if c := CitationOf(kb.Chunk{Meta: kb.Metadata{DocType: kb.DocPaper, Source: "https://arxiv.org/abs/2401.01234"}}); c.Link != "" {
		t.Fatalf("a link on an arXiv paper: %+v", c)
	}
}

func TestParseYears(t *testing.T) {
	for in, want := range map[string][2]int{"": {0, 0}, "2021": {2021, 2021}, " 2019-2021 ": {2019, 2021}, "2019-": {2019, 0}, "-2021": {0, 2021}} {
		if from, to, err := ParseYears(in); err != nil || from != want[0] || to != want[1] {
			t.Errorf("ParseYears(%q) = %d, %d, %v", in, from, to, err)
		}
	}
	for _, bad := range []string{"twenty", "21", "2021-2019", "-", "2019-20x1", "12345"} {
		if _, _, err := ParseYears(bad); err == nil {
			t.Errorf("ParseYears(%q) accepted", bad)
		}
	}
}

func TestSplitFilters(t *testing.T) {
	a, rest, err := SplitFilters(`sparse attention collection:"Thesis/Chapter 2" year:2019-2021 tag:ml TYPE:book status:read http://x.org/a:b`)
	if err != nil {
		t.Fatal(err)
	}
	if rest != "sparse attention http://x.org/a:b" || a.Collection != "Thesis/Chapter 2" || a.Year != "2019-2021" || a.ItemType != "book" || a.Status != "read" || len(a.Tags) != 1 || a.Tags[0] != "ml" {
		t.Fatalf("%+v, rest %q", a, rest)
	}
	if _, _, err := SplitFilters("year:soon glaciers"); err == nil {
		t.Fatal("a bad year was accepted")
	}
	a, o, err := SplitListFilters(`glacier HAS:highlights tag:ice "has:notes"`)
	if err != nil || !o.Annotated || o.Title != `glacier "has:notes"` || len(a.Tags) != 1 {
		t.Fatalf("%v %+v %+v", err, a, o)
	}
	if _, o, _ := SplitListFilters("glacier"); o.Annotated || o.Title != "glacier" {
		t.Fatalf("%+v", o)
	}
}

// A citation opens a file on this machine only inside the vault (links
// followed) or by its own absolute path; anything else is refused.
func TestCitationFileStaysInTheVault(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, "garden"), 0o700)
	os.WriteFile(filepath.Join(root, "garden", "roses.md"), []byte("# Roses\n"), 0o600)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o600)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "garden", "link.md"))
	for _, c := range []struct {
		cite Citation
		want string
		code errs.Code
	}{
		{Citation{Source: kb.SourceVault, FilePath: "garden/roses.md"}, filepath.Join(root, "garden", "roses.md"), ""},
		{Citation{Source: "file:///papers/a.pdf"}, "/papers/a.pdf", ""},
		{Citation{Source: "https://arxiv.org/abs/1", FilePath: "/data/a.pdf"}, "/data/a.pdf", ""},
		{Citation{Source: kb.SourceVault, FilePath: "../outside.md"}, "", errs.Invalid},
		{Citation{Source: kb.SourceVault, FilePath: "garden/link.md"}, "", errs.Invalid},
		{Citation{Source: "https://arxiv.org/abs/1"}, "", errs.NotFound},
	} {
		got, err := c.cite.File(root)
		if c.code != "" {
			if !errs.Is(err, c.code) {
				t.Errorf("%+v: %q %v, want %s", c.cite, got, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%+v: %q %v, want %q", c.cite, got, err, c.want)
		}
	}
}

func TestPendingRemovalsAreSingleUse(t *testing.T) {
	var p Pending
	token, err := p.Hold(Removal{Ref: "garden/roses.md"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := p.Take(token); err != nil || r.Ref != "garden/roses.md" {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := p.Take(token); !errs.Is(err, errs.NotFound) {
		t.Fatalf("second take: %v", err)
	}
}

// Recognised text says so wherever it comes from: a scanned paper and an
// image of the vault alike.
func TestIdentityMarksRecognisedText(t *testing.T) {
	ocr := map[string]string{kb.OCRField: "tesseract", kb.OCRConfidenceField: "91"}
	for _, m := range []kb.Metadata{
		{DocType: kb.DocPaper, Source: "file:///scan.pdf", Extra: ocr},
		{DocType: kb.DocNote, Source: kb.SourceVault, FilePath: "boards/plan.png", Extra: ocr},
	} {
		if id := Identity(m); !strings.Contains(id, "recognised by OCR, 91% confidence") {
			t.Errorf("%s: identity %q", m.DocType, id)
		}
	}
	if id := Identity(kb.Metadata{DocType: kb.DocNote, Source: kb.SourceVault, FilePath: "a.md"}); id != "" {
		t.Errorf("a plain note: %q", id)
	}
}
