package zotero_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

var paperPDF, _ = filepath.Abs("../pdf/testdata/paper.pdf")

// build writes one library of every kind the reader handles.
func build(t *testing.T, db *zoterotest.DB, linked string) {
	t.Helper()
	db.AddItem(zotero.Item{Key: "PAPER234", Type: "journalArticle",
		Fields: map[string]string{"title": "Sparse attention", "date": "2021-03-00 March 2021", "publicationTitle": "J. Attn",
			"abstractNote": "We study it.", "extra": "PMID: 1\nDOI: 10.1000/xyz.1", "url": "https://example.org/p"},
		Creators:    []zotero.Creator{{First: "Ada", Last: "Lovelace", Type: "author"}, {Name: "The Consortium", Type: "author"}, {First: "Ed", Last: "Itor", Type: "editor"}},
		Tags:        []string{"to-read", "attention"},
		Collections: []string{"Thesis/Chapter 2", "Reading"},
		Attachments: []zotero.Attachment{
			{Key: "ATTACH23", Title: "Full Text PDF", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: paperPDF,
				Annotations: []zotero.Annotation{
					{Key: "ANNUL234", Type: zotero.Underline, Text: "second", PageIndex: 1, PageLabel: "2", SortIndex: "00001|000010|00010"},
					{Key: "ANNHL234", Type: zotero.Highlight, Text: "first", Comment: "why", Color: "#ffd400", PageIndex: 0, PageLabel: "i",
						Rects: [][4]float64{{72, 700, 300, 712}, {72, 688, 200, 700}}, SortIndex: "00000|000100|00080"},
					{Key: "ANNNOTE2", Type: zotero.Note, Comment: "a sticky note", PageIndex: 1, SortIndex: "00001|000020|00010"},
					{Key: "ANNIMG23", Type: zotero.Image, Comment: "the figure", PageIndex: 1, Rects: [][4]float64{{1, 2, 3, 4}}, SortIndex: "00001|000030|00010"},
					{Key: "ANNINK23", Type: zotero.Ink, PageIndex: 1, SortIndex: "00001|000040|00010"},
					{Key: "ANNTXT23", Type: zotero.Text, Comment: "a text box", PageIndex: 1, SortIndex: "00001|000050|00010"},
				}},
			{Key: "LINKED23", ContentType: "application/pdf", LinkMode: zotero.LinkedFile, Path: linked},
		},
		Notes: []zotero.ChildNote{{Key: "NOTE2345", HTML: `<div data-schema-version="9"><h2>Notes</h2><p>One <i>two</i> &amp; <a href="https://x.org">three</a>.</p><ul><li>a</li><li>b</li></ul></div>`}},
	})
	db.AddItem(zotero.Item{Key: "TRASH234", Type: "book", Title: "Thrown away",
		Attachments: []zotero.Attachment{{Key: "TRATT234", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: paperPDF}},
		Notes:       []zotero.ChildNote{{Key: "TRNOTE23", HTML: "<p>gone</p>"}}})
	db.Trash("TRASH234")
	db.AddAnnotation("ATTACH23", zotero.Annotation{Key: "ANNGONE2", Type: zotero.Highlight, Text: "trashed mark", PageIndex: 0, SortIndex: "00000|000200|00100"})
	db.Trash("ANNGONE2")
}

func check(t *testing.T, lib *zotero.Library, dir string) {
	t.Helper()
	if len(lib.Items) != 1 {
		t.Fatalf("items: %+v", lib.Items)
	}
	it := lib.Items[0]
	if it.Key != "PAPER234" || it.Type != "journalArticle" || it.Title != "Sparse attention" || it.Year != "2021" || it.DOI != "10.1000/xyz.1" ||
		it.Publication != "J. Attn" || it.Abstract != "We study it." || it.URL != "https://example.org/p" || it.Version != 1 || it.Modified.IsZero() || it.Added.IsZero() {
		t.Fatalf("item: %+v", it)
	}
	want := []zotero.Creator{{First: "Ada", Last: "Lovelace", Type: "author"}, {Name: "The Consortium", Type: "author"}, {First: "Ed", Last: "Itor", Type: "editor"}}
	if !reflect.DeepEqual(it.Creators, want) {
		t.Fatalf("creators %+v", it.Creators)
	}
	if strings.Join(it.Tags, ",") != "attention,to-read" || strings.Join(it.Collections, ",") != "Reading,Thesis/Chapter 2" {
		t.Fatalf("tags %v collections %v", it.Tags, it.Collections)
	}
	var paths []string
	for _, c := range lib.Collections {
		paths = append(paths, c.Path)
	}
	if strings.Join(paths, ",") != "Reading,Thesis,Thesis/Chapter 2" {
		t.Fatalf("collections %v", paths)
	}
	if len(it.Attachments) != 2 {
		t.Fatalf("attachments %+v", it.Attachments)
	}
	a, l := it.Attachments[0], it.Attachments[1]
	if a.Key != "ATTACH23" || a.Path != filepath.Join(dir, "storage", "ATTACH23", "paper.pdf") || a.Title != "Full Text PDF" || a.LinkMode != zotero.ImportedFile {
		t.Fatalf("stored attachment %+v", a)
	}
	if _, err := os.Stat(a.Path); err != nil {
		t.Fatal(err)
	}
	if l.Key != "LINKED23" || l.LinkMode != zotero.LinkedFile || l.Path != paperPDF {
		t.Fatalf("linked attachment %+v", l)
	}
	var order []string
	for _, an := range a.Annotations {
		order = append(order, an.Key+":"+an.Type)
	}
	if strings.Join(order, ",") != "ANNHL234:highlight,ANNUL234:underline,ANNNOTE2:note,ANNIMG23:image,ANNINK23:ink,ANNTXT23:text" {
		t.Fatalf("annotations in sortIndex order, the trashed one left out: %v", order)
	}
	hl := a.Annotations[0]
	if hl.Text != "first" || hl.Comment != "why" || hl.Color != "#ffd400" || hl.PageLabel != "i" || hl.PageIndex != 0 ||
		!reflect.DeepEqual(hl.Rects, [][4]float64{{72, 700, 300, 712}, {72, 688, 200, 700}}) {
		t.Fatalf("highlight %+v", hl)
	}
	if n := a.Annotations[2]; n.Comment != "a sticky note" || n.Text != "" || n.PageIndex != 1 {
		t.Fatalf("note annotation %+v", n)
	}
	if len(it.Notes) != 1 || it.Notes[0].Markdown != "## Notes\n\nOne *two* & [three](https://x.org).\n\n- a\n- b" {
		t.Fatalf("note markdown %q", it.Notes[0].Markdown)
	}
}

func TestReadALibraryOfEveryKind(t *testing.T) {
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	defer db.Close()
	build(t, db, paperPDF)
	live := filepath.Join(dir, zotero.DBName)
	before, _ := os.ReadFile(live)
	st0, _ := os.Stat(live)
	tmpBefore, _ := filepath.Glob(filepath.Join(os.TempDir(), "jarvis-zotero-*"))

	lib, err := zotero.Read(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	check(t, lib, dir)

	// The live file is never written, and the copy is gone.
	after, _ := os.ReadFile(live)
	st1, _ := os.Stat(live)
	if !bytes.Equal(before, after) || !st0.ModTime().Equal(st1.ModTime()) {
		t.Fatal("Read changed zotero.sqlite")
	}
	if _, err := os.Stat(live + "-journal"); err == nil {
		t.Fatal("Read left a journal beside zotero.sqlite")
	}
	tmpAfter, _ := filepath.Glob(filepath.Join(os.TempDir(), "jarvis-zotero-*"))
	if len(tmpAfter) > len(tmpBefore) {
		t.Fatalf("the private copy was left behind: %v", tmpAfter)
	}
	if print, _ := zotero.Stat(dir); print != lib.Fingerprint {
		t.Fatalf("fingerprint %q, Stat %q", lib.Fingerprint, print)
	}
	time.Sleep(10 * time.Millisecond) // a file system with coarse times still sees a change
	db.Touch("PAPER234")
	if print, _ := zotero.Stat(dir); print == lib.Fingerprint {
		t.Fatal("an edit did not change the fingerprint")
	}
	lib2, err := zotero.Read(context.Background(), dir)
	if err != nil || lib2.Items[0].Version != 2 || !lib2.Items[0].Modified.After(lib.Items[0].Modified) {
		t.Fatalf("after an edit: %v %+v", err, lib2.Items)
	}
}

// The same library on Zotero's own schema (schema version 129, loaded from
// the SQL Zotero runs) reads the same.
func TestReadOnZoteroSRealSchema(t *testing.T) {
	dir := t.TempDir()
	db := zoterotest.NewReal(t, dir)
	defer db.Close()
	build(t, db, paperPDF)
	lib, err := zotero.Read(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	check(t, lib, dir)
}

func TestReadRefusesWhatIsNotALibrary(t *testing.T) {
	if _, err := zotero.Read(context.Background(), t.TempDir()); !errs.Is(err, errs.NotFound) || errs.HintOf(err) == "" {
		t.Fatalf("no database: %v", err)
	}
	dir := t.TempDir()
	other, err := sql.Open("sqlite", filepath.Join(dir, zotero.DBName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)`); err != nil {
		t.Fatal(err)
	}
	other.Close()
	if _, err := zotero.Read(context.Background(), dir); !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "not a Zotero database") {
		t.Fatalf("another SQLite file: %v", err)
	}
}

// While a rollback journal says Zotero is in the middle of a write, the
// file is not read; after the retries the caller hears so.
func TestReadWaitsOutAWriteInProgress(t *testing.T) {
	zotero.SetCopyRetryForTest(t, 3, time.Millisecond)
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	defer db.Close()
	build(t, db, paperPDF)
	hot := filepath.Join(dir, zotero.DBName+"-journal")
	if err := os.WriteFile(hot, []byte("journal"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := zotero.Read(context.Background(), dir); !errs.Is(err, errs.Conflict) {
		t.Fatalf("a write in progress: %v", err)
	}
	os.Remove(hot)
	if _, err := zotero.Read(context.Background(), dir); err != nil {
		t.Fatalf("after the write: %v", err)
	}
}

func TestDetectFindsTheProfileSDataDirThenHomeZotero(t *testing.T) {
	home := t.TempDir()
	custom := filepath.Join(t.TempDir(), "ZoteroData")
	for _, d := range []string{custom, filepath.Join(home, "Zotero")} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, zotero.DBName), []byte("x"), 0o644)
	}
	prefs := filepath.Join(home, ".zotero", "zotero", "abcd1234.default", "prefs.js")
	os.MkdirAll(filepath.Dir(prefs), 0o755)
	os.WriteFile(prefs, []byte(fmt.Sprintf("user_pref(\"extensions.zotero.useDataDir\", true);\nuser_pref(\"extensions.zotero.dataDir\", %q);\n", custom)), 0o644)
	got := zotero.Detect(home)
	if len(got) != 2 || got[0] != custom || got[1] != filepath.Join(home, "Zotero") {
		t.Fatalf("detect: %v", got)
	}
	if got := zotero.Detect(t.TempDir()); len(got) != 0 {
		t.Fatalf("an empty home: %v", got)
	}
}

// BenchmarkRead5000Items is a no-op sync's read: 5,000 items, each with a
// PDF attachment, three annotations and two tags.
func BenchmarkRead5000Items(b *testing.B) {
	dir := b.TempDir()
	db := zoterotest.New(b, dir)
	for i := 0; i < 5000; i++ {
		db.AddItem(zotero.Item{Type: "journalArticle", Title: fmt.Sprintf("Paper %d", i),
			Fields: map[string]string{"date": "2020", "DOI": fmt.Sprintf("10.1/%d", i)},
			Tags:   []string{"t" + fmt.Sprint(i%50), "all"}, Creators: []zotero.Creator{{First: "A", Last: fmt.Sprint("L", i%300)}},
			Attachments: []zotero.Attachment{{ContentType: "application/pdf", LinkMode: zotero.LinkedFile, Path: paperPDF,
				Annotations: []zotero.Annotation{{Type: zotero.Highlight, Text: "x"}, {Type: zotero.Note, Comment: "y"}, {Type: zotero.Underline, Text: "z"}}}}})
	}
	db.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lib, err := zotero.Read(context.Background(), dir)
		if err != nil || len(lib.Items) != 5000 {
			b.Fatal(err)
		}
	}
}
