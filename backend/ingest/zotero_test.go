package ingest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// zoteroLibrary builds a data directory: a paper whose PDF (annotated.pdf:
// its own highlight, underline, note and text box) was also marked in
// Zotero's reader, a book with only an abstract and a child note, and a
// trashed item.
func zoteroLibrary(t *testing.T) (string, *zoterotest.DB) {
	t.Helper()
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	t.Cleanup(db.Close)
	annotated, _ := filepath.Abs("../pdf/testdata/annotated.pdf")
	db.AddItem(zotero.Item{Key: "PAPER234", Type: "journalArticle", Title: "Sparse attention at scale",
		Fields:   map[string]string{"title": "Sparse attention at scale", "date": "2021-03-00 March 2021", "DOI": "10.1000/sparse.2021", "publicationTitle": "Journal of Attention", "abstractNote": "We study sparse attention."},
		Creators: []zotero.Creator{{First: "Ada", Last: "Lovelace", Type: "author"}, {First: "Alan", Last: "Turing", Type: "author"}, {First: "Ed", Last: "Itor", Type: "editor"}},
		Tags:     []string{"attention", "to-read"}, Collections: []string{"Thesis/Chapter 2"},
		Attachments: []zotero.Attachment{{Key: "ATTACH23", Title: "Full Text PDF", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: annotated,
			Annotations: []zotero.Annotation{
				// The same highlight as the one inside the file: stored once.
				{Key: "ANNHL234", Type: zotero.Highlight, Text: "sparse attention keeps accuracy", Comment: "key idea: accuracy holds", Color: "#ffd400", PageLabel: "1", PageIndex: 0, Rects: [][4]float64{{72, 700, 300, 712}}, SortIndex: "00000|000100|00080"},
				// Only in Zotero: what a Zotero user would otherwise lose.
				{Key: "ANNZOT23", Type: zotero.Underline, Text: "quadratic memory of dense attention", Comment: "compare with Longformer", Color: "#2ea8e5", PageLabel: "2", PageIndex: 1, Rects: [][4]float64{{72, 600, 300, 612}}, SortIndex: "00001|000050|00100"},
				{Key: "ANNNOTE2", Type: zotero.Note, Comment: "ask the reviewers about lemma 3", PageIndex: 1, PageLabel: "2", SortIndex: "00001|000060|00120"},
				{Key: "ANNINK23", Type: zotero.Ink, PageIndex: 1, SortIndex: "00001|000070|00130"},
			}}}})
	db.AddItem(zotero.Item{Key: "BOOK2345", Type: "book", Title: "Gardens of the North",
		Fields:   map[string]string{"title": "Gardens of the North", "date": "1999", "abstractNote": "Allotments above the Arctic circle."},
		Creators: []zotero.Creator{{Name: "Royal Horticultural Society", Type: "author"}},
		Notes:    []zotero.ChildNote{{Key: "NOTE2345", HTML: "<div data-schema-version=\"9\"><h1>Reading notes</h1><p>Rhubarb survives <b>permafrost</b>.</p></div>"}}})
	db.AddItem(zotero.Item{Key: "TRASH234", Type: "journalArticle", Title: "Thrown away", Fields: map[string]string{"title": "Thrown away", "abstractNote": "Nothing to see."}})
	db.Trash("TRASH234")
	return dir, db
}

func zoteroStore(t *testing.T) *kb.Store {
	t.Helper()
	s, err := kb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func find(t *testing.T, s *kb.Store, query string) []kb.Hit {
	t.Helper()
	hits, err := s.BM25(context.Background(), query, kb.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestZoteroSyncIndexesItemsAnnotationsAndNotes(t *testing.T) {
	dir, _ := zoteroLibrary(t)
	s := zoteroStore(t)
	z := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}}
	res, err := z.Sync(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 2 || res.Added != 2 || res.Deleted != 0 || len(res.Warnings) != 0 {
		t.Fatalf("first sync: %+v", res)
	}
	// A phrase underlined only in Zotero is found, with its comment and
	// page, cited as the Zotero item, and its link opens the annotation.
	hits := find(t, s, "quadratic memory dense attention")
	if len(hits) == 0 {
		t.Fatal("the Zotero-only underline is not searchable")
	}
	m := hits[0].Chunk.Meta
	if hits[0].Chunk.Content != "[UNDERLINE p.2] quadratic memory of dense attention\nNote: compare with Longformer" || m.AnnotationKind != pdf.KindHighlight || m.Page != 2 || m.NoteText != "compare with Longformer" {
		t.Fatalf("underline chunk: %q %+v", hits[0].Chunk.Content, m)
	}
	if m.Source != "zotero://select/library/items/PAPER234" || m.DocType != kb.DocPaper || m.Visibility != kb.Public || m.Extra[ZoteroKeyField] != "PAPER234" {
		t.Fatalf("cited as: %+v", m)
	}
	if got := m.Extra[ZoteroOpenField]; got != "zotero://open-pdf/library/items/ATTACH23?page=2&annotation=ANNZOT23" {
		t.Fatalf("link %q", got)
	}
	if m.Extra["x_color"] != "#2ea8e5" || m.Extra["x_page_label"] != "2" || m.Extra[YearField] != "2021" || m.Extra["x_collections"] != "Thesis/Chapter 2" {
		t.Fatalf("fields: %+v", m.Extra)
	}
	if m.Authors != "Lovelace, Ada; Turing, Alan" || m.DOI != "10.1000/sparse.2021" || m.Tags != "|attention|to-read|" {
		t.Fatalf("item fields: %+v", m)
	}

	chunks, err := s.Document(context.Background(), kb.Filter{Source: ZoteroSourceFor("PAPER234")})
	if err != nil {
		t.Fatal(err)
	}
	var highlights, notes, body int
	for _, c := range chunks {
		switch {
		case strings.Contains(c.Content, "sparse attention keeps accuracy") && c.Meta.AnnotationKind == pdf.KindHighlight:
			highlights++
		case c.Meta.AnnotationKind == pdf.KindNote:
			notes++
		case c.Meta.AnnotationKind == "" && c.Meta.Section != "Abstract":
			body++
		}
		if c.Meta.FilePath == "" || !strings.HasSuffix(c.Meta.FilePath, filepath.Join("storage", "ATTACH23", "annotated.pdf")) {
			t.Fatalf("the viewer's fallback is the stored PDF: %q", c.Meta.FilePath)
		}
	}
	// The file's highlight and Zotero's are one; the file's underline,
	// sticky note and text box stay, with Zotero's note (the ink says nothing).
	if highlights != 1 || notes != 3 || body == 0 {
		t.Fatalf("highlights %d, notes %d, body %d in %d chunks", highlights, notes, body, len(chunks))
	}
	if hits := find(t, s, "reviewers lemma"); len(hits) == 0 || hits[0].Chunk.Content != "[USER NOTE p.2] ask the reviewers about lemma 3" {
		t.Fatalf("the Zotero note annotation: %+v", hits)
	}
	// An item without a PDF is found by its abstract; its child note is Markdown.
	if hits := find(t, s, "rhubarb permafrost"); len(hits) == 0 || hits[0].Chunk.Content != "[ZOTERO NOTE] # Reading notes\n\nRhubarb survives **permafrost**." {
		t.Fatalf("child note: %+v", hits)
	}
	if hits := find(t, s, "allotments arctic"); len(hits) == 0 || hits[0].Chunk.Meta.Authors != "Royal Horticultural Society" {
		t.Fatalf("abstract-only item: %+v", hits)
	}
	if hits := find(t, s, "thrown away"); len(hits) != 0 {
		t.Fatalf("a trashed item was indexed: %+v", hits[0].Chunk.Meta)
	}
}

// A second sync of an unchanged library rebuilds nothing; a new annotation
// rebuilds only its item; a trashed item disappears.
func TestZoteroSyncAppliesOnlyWhatChanged(t *testing.T) {
	dir, db := zoteroLibrary(t)
	s := zoteroStore(t)
	z := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}}
	ctx := context.Background()
	if _, err := z.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ids := func(key string) []int64 {
		cs, err := s.Document(ctx, kb.Filter{Source: ZoteroSourceFor(key)})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	bookBefore, paperBefore := ids("BOOK2345"), ids("PAPER234")
	res, err := z.Sync(ctx)
	if err != nil || res.Unchanged != 2 || res.Added+res.Updated+res.Deleted != 0 {
		t.Fatalf("no-op sync: %+v %v", res, err)
	}
	if !slices.Equal(ids("PAPER234"), paperBefore) {
		t.Fatal("an unchanged item was rewritten")
	}

	db.AddAnnotation("ATTACH23", zotero.Annotation{Key: "ANNNEW23", Type: zotero.Highlight, Text: "a validation sweep over window sizes",
		Comment: "the new one", PageIndex: 1, PageLabel: "2", SortIndex: "00001|000090|00200"})
	res, err = z.Sync(ctx)
	if err != nil || res.Updated != 1 || res.Unchanged != 1 {
		t.Fatalf("after a new annotation: %+v %v", res, err)
	}
	if hits := find(t, s, "window sizes new one"); len(hits) == 0 || hits[0].Chunk.Meta.Extra[ZoteroAnnotationField] != "ANNNEW23" {
		t.Fatalf("the new annotation is not searchable: %+v", hits)
	}
	if !slices.Equal(ids("BOOK2345"), bookBefore) {
		t.Fatal("the other item was rewritten")
	}

	db.RemoveAnnotation("ANNZOT23")
	db.Trash("BOOK2345")
	res, err = z.Sync(ctx)
	if err != nil || res.Updated != 1 || res.Deleted != 1 || res.Items != 1 {
		t.Fatalf("after a removal and a trashing: %+v %v", res, err)
	}
	for _, h := range find(t, s, "quadratic memory dense attention compare longformer") {
		if h.Chunk.Meta.Extra[ZoteroAnnotationField] == "ANNZOT23" {
			t.Fatal("a removed annotation is still found")
		}
	}
	if hits := find(t, s, "rhubarb permafrost"); len(hits) != 0 {
		t.Fatal("a trashed item is still found")
	}
}

// An item in a private collection, or in a collection under one, is stored
// private with everything it holds (annotations, notes, PDF text); taken
// out of the collection it becomes a public paper on the next sync.
func TestZoteroPrivateCollections(t *testing.T) {
	dir, db := zoteroLibrary(t)
	db.AddItem(zotero.Item{Key: "GRANT234", Type: "journalArticle", Title: "Grant renewal budget",
		Fields:      map[string]string{"title": "Grant renewal budget", "abstractNote": "Salaries for the allotment robot."},
		Collections: []string{"Grants/2027"},
		Notes:       []zotero.ChildNote{{Key: "GNOTE234", HTML: "<p>Referee two is hostile.</p>"}}})
	s := zoteroStore(t)
	z := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}, PrivateCollections: []string{" grants/ "}}
	ctx := context.Background()
	res, err := z.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 3 || res.Private != 1 {
		t.Fatalf("sync: %+v", res)
	}
	visibility := func(key string) []string {
		chunks, err := s.Document(ctx, kb.Filter{Source: ZoteroSourceFor(key)})
		if err != nil {
			t.Fatal(err)
		}
		var vis []string
		for _, c := range chunks {
			if !slices.Contains(vis, c.Meta.Visibility) {
				vis = append(vis, c.Meta.Visibility)
			}
		}
		return vis
	}
	if got := visibility("GRANT234"); !slices.Equal(got, []string{kb.Private}) {
		t.Fatalf("the item under Grants/: %v", got)
	}
	if got := visibility("PAPER234"); !slices.Equal(got, []string{kb.Public}) {
		t.Fatalf("an item in another collection: %v", got)
	}
	// What a cloud model may search holds nothing of it.
	for _, q := range []string{"grant renewal budget", "referee hostile"} {
		hits, err := s.BM25(ctx, q, kb.Filter{Visibility: []string{kb.Public}}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 0 {
			t.Fatalf("%q found in the public pool: %+v", q, hits[0].Chunk.Meta)
		}
		if len(find(t, s, q)) == 0 {
			t.Fatalf("%q not found at all", q)
		}
	}
	counts, err := s.Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts.Legacy != 0 || counts.Private == 0 {
		t.Fatalf("a private Zotero item counted as a legacy private paper: %+v", counts)
	}

	// Out of the private collection: public on the next sync. And the
	// setting itself counts: made private by config, the paper is rebuilt.
	db.Unfile("GRANT234", "Grants/2027")
	z.PrivateCollections = []string{"Thesis"}
	res, err = z.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != 2 || res.Unchanged != 1 || res.Private != 1 {
		t.Fatalf("second sync: %+v", res)
	}
	if got := visibility("GRANT234"); !slices.Equal(got, []string{kb.Public}) {
		t.Fatalf("taken out of Grants/: %v", got)
	}
	if got := visibility("PAPER234"); !slices.Equal(got, []string{kb.Private}) {
		t.Fatalf("under Thesis/ once Thesis is private: %v", got)
	}
}

// The PDF of a private Zotero item cannot become a public paper through
// another door: kb add and the Library's Add refuse it, and so does the
// inbox when a link there points at it.
func TestPrivateZoteroPDFIsNotAddedAsAPaper(t *testing.T) {
	dir, _ := zoteroLibrary(t)
	s := zoteroStore(t)
	ctx := context.Background()
	z := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}, PrivateCollections: []string{"Thesis"}}
	if _, err := z.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	pdfPath := filepath.Join(dir, "storage", "ATTACH23", "annotated.pdf")
	link := filepath.Join(t.TempDir(), "shared.pdf")
	if err := os.Symlink(pdfPath, link); err != nil {
		t.Fatal(err)
	}
	adder := &Adder{Store: s, Opts: Options{ChunkSize: 800, ChunkOverlap: 100}}
	for _, p := range []string{pdfPath, link} {
		if _, err := adder.Add(ctx, AddRequest{Path: p}); !errs.Is(err, errs.Privacy) {
			t.Fatalf("kb add %s: %v", p, err)
		}
		if private, err := PrivateFile(ctx, s, "", nil, p); err != nil || !private {
			t.Fatalf("PrivateFile(%s) = %v, %v", p, private, err)
		}
	}
	inbox := &Inbox{Dir: filepath.Dir(link), Store: s, Opts: Options{ChunkSize: 800, ChunkOverlap: 100},
		Sleep: func(context.Context, time.Duration) error { return nil }}
	if res, err := inbox.Scan(ctx); err != nil || res.Failed != 1 || res.Added != 0 || !strings.Contains(strings.Join(res.Errors, ""), "private Zotero item") {
		t.Fatalf("inbox: %+v, %v", res, err)
	}
	hits, err := s.BM25(ctx, "sparse attention", kb.Filter{Visibility: []string{kb.Public}}, 10)
	if err != nil || len(hits) != 0 {
		t.Fatalf("the private PDF reached the public pool: %v %+v", err, hits)
	}
	// Made public, the same file may be added (it is an ordinary paper).
	z.PrivateCollections = nil
	if _, err := z.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if private, err := PrivateFile(ctx, s, "", nil, link); err != nil || private {
		t.Fatalf("a public item's PDF counts as private: %v, %v", private, err)
	}
}

// Every file of a private item is private, however it is reached: its
// second PDF, and its files through a data folder kept behind a link. A
// public copy made while the item was public is withdrawn once it is not.
func TestEveryFileOfAPrivateItemIsPrivate(t *testing.T) {
	realDir := t.TempDir()
	db := zoterotest.New(t, realDir)
	annotated, _ := filepath.Abs("../pdf/testdata/annotated.pdf")
	paper, _ := filepath.Abs("../pdf/testdata/paper.pdf")
	db.AddItem(zotero.Item{Key: "GRANT234", Type: "journalArticle", Title: "Grant with a supplement", Fields: map[string]string{"title": "Grant with a supplement"},
		Attachments: []zotero.Attachment{
			{Key: "MAINPDF2", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: annotated},
			{Key: "SUPPPDF2", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: paper}}})
	t.Cleanup(db.Close)
	// The data folder as configured is a link to the real one.
	linked := filepath.Join(t.TempDir(), "Zotero")
	if err := os.Symlink(realDir, linked); err != nil {
		t.Fatal(err)
	}
	s := zoteroStore(t)
	ctx := context.Background()
	opts := Options{ChunkSize: 800, ChunkOverlap: 100}
	// While the item is public, the user adds its supplement by hand.
	supplement := filepath.Join(realDir, "storage", "SUPPPDF2", "paper.pdf")
	adder := &Adder{Store: s, Opts: opts}
	if _, err := adder.Add(ctx, AddRequest{Path: supplement, Paper: Paper{Mode: FullText}}); err != nil {
		t.Fatal(err)
	}
	z := &ZoteroSync{Store: s, Dir: linked, Opts: opts, PrivateCollections: []string{"Grants"}}
	if _, err := z.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	db.File("GRANT234", "Grants")
	res, err := z.Sync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Private != 1 || res.Withdrawn != 1 {
		t.Fatalf("sync: %+v", res)
	}
	public, err := s.List(ctx, kb.Filter{Visibility: []string{kb.Public}}, 0)
	if err != nil || len(public) != 0 {
		t.Fatalf("public documents left: %v %+v", err, public)
	}
	for _, p := range []string{
		filepath.Join(realDir, "storage", "MAINPDF2", "annotated.pdf"), supplement,
		filepath.Join(linked, "storage", "MAINPDF2", "annotated.pdf"), filepath.Join(linked, "storage", "SUPPPDF2", "paper.pdf"),
	} {
		if private, err := PrivateFile(ctx, s, "", nil, p); err != nil || !private {
			t.Errorf("PrivateFile(%s) = %v, %v", p, private, err)
		}
		if _, err := adder.Add(ctx, AddRequest{Path: p, Paper: Paper{Mode: FullText}}); !errs.Is(err, errs.Privacy) {
			t.Errorf("kb add %s: %v", p, err)
		}
	}
}

func TestInCollection(t *testing.T) {
	it := zotero.Item{Collections: []string{"Lab/Reviews/2026", "Reading"}}
	for _, tc := range []struct {
		paths []string
		want  bool
	}{
		{[]string{"Lab"}, true}, {[]string{"lab/reviews"}, true}, {[]string{"/Reading/"}, true},
		{[]string{"La"}, false}, {[]string{"Reviews"}, false}, {[]string{"Lab/Reviews/2026/Old"}, false}, {nil, false}, {[]string{""}, false},
	} {
		if got := it.InCollection(tc.paths); got != tc.want {
			t.Errorf("InCollection(%q) = %v", tc.paths, got)
		}
	}
}
