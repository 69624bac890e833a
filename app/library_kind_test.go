package app

import (
	"slices"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// The Library's rows carry a Zotero item's type, so the window shows and
// sorts by kind within the Papers tab; a note has none, and a type:
// filter keeps only the items of that type, each still with its type.
func TestLibraryRowsCarryTheZoteroItemType(t *testing.T) {
	s, _ := services(t)
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	db.AddItem(zotero.Item{Key: "BOOK2345", Type: "book", Title: "Rhubarb trials", Fields: map[string]string{"title": "Rhubarb trials", "abstractNote": "Forced rhubarb under clay pots."}})
	db.AddItem(zotero.Item{Key: "ARTI2345", Type: "journalArticle", Title: "Glacier melt", Fields: map[string]string{"title": "Glacier melt", "abstractNote": "Melt rates doubled."}})
	db.AddItem(zotero.Item{Key: "PREP2345", Type: "preprint", Title: "Soil robots", Fields: map[string]string{"title": "Soil robots", "abstractNote": "Robots that weed."}})
	db.Close()
	id, err := s.Setup.SetZotero(dir)
	if err != nil {
		t.Fatal(err)
	}
	finished(t, s, id)

	rows, err := s.Library.Documents("papers", "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		got[r.Title] = r.ItemType
	}
	want := map[string]string{"Rhubarb trials": "book", "Glacier melt": "journalArticle", "Soil robots": "preprint"}
	for title, typ := range want {
		if got[title] != typ {
			t.Errorf("%s: item type %q, want %q (rows %v)", title, got[title], typ, got)
		}
	}
	// An item that arrives later (another process commits it) is listed
	// with its type: what the Library keeps of the types follows the store.
	store := s.core.agent().Engine.Store
	if err := store.Commit([]kb.Chunk{{Content: "A thesis on peat.", EmbedText: "A thesis on peat.", Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public,
		Source: "zotero://select/library/items/THES2345", Title: "Peat", Extra: map[string]string{kb.ItemTypeField: "thesis"}}}}, ""); err != nil {
		t.Fatal(err)
	}
	rows, err = s.Library.Documents("papers", "")
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(rows, func(r DocumentRow) bool { return r.Title == "Peat" }); i < 0 || rows[i].ItemType != "thesis" {
		t.Fatalf("the later item: %+v", rows)
	}
	books, err := s.Library.Documents("papers", "type:book")
	if err != nil || len(books) != 1 || books[0].ItemType != "book" {
		t.Fatalf("type:book: %v %+v", err, books)
	}
	notes, err := s.Library.Documents("notes", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if n.ItemType != "" {
			t.Fatalf("a note has an item type: %+v", n)
		}
	}
}
