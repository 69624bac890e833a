package app

import (
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/setup"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// Choosing a Zotero library in the setup panel keeps it in the config,
// reads it as an operation, and its hits cite the item with a link that
// opens the annotation in Zotero; nothing but a zotero:// link is opened.
func TestChoosingAZoteroLibraryIndexesItAndCitesIntoZotero(t *testing.T) {
	s, cfg := services(t)
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	paper, _ := filepath.Abs("../backend/pdf/testdata/paper.pdf")
	db.AddItem(zotero.Item{Key: "ITEM2345", Type: "journalArticle", Title: "Glaciers",
		Attachments: []zotero.Attachment{{Key: "ATTA2345", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: paper,
			Annotations: []zotero.Annotation{{Key: "ANNO2345", Type: zotero.Highlight, Text: "glacial melt rates doubled", Comment: "headline", PageIndex: 0}}}}})
	db.Close()

	if _, err := s.Setup.SetZotero("relative/path"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a relative folder: %v", err)
	}
	if _, err := s.Setup.SetZotero(t.TempDir()); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a folder without zotero.sqlite: %v", err)
	}
	id, err := s.Setup.SetZotero(dir)
	if err != nil {
		t.Fatal(err)
	}
	if saved, _ := config.Load(); saved.Zotero.DataDir != dir || cfg.Zotero.DataDir != dir {
		t.Fatalf("data_dir kept as %q", saved.Zotero.DataDir)
	}
	if op := finished(t, s, id); op.State != ops.Done || op.Kind != "zotero" {
		t.Fatalf("the sync operation: %+v", op)
	}
	if st := s.Setup.State(); st.Zotero.DataDir != dir || st.Zotero.Problem != "" {
		t.Fatalf("setup state: %+v", st.Zotero)
	}

	view, err := s.Library.Search("glacial melt rates", 5)
	if err != nil || len(view.Hits) == 0 {
		t.Fatalf("search: %v %+v", err, view)
	}
	c := view.Hits[0].Citation
	if c.Source != "zotero://select/library/items/ITEM2345" || c.Link != "zotero://open-pdf/library/items/ATTA2345?page=1&annotation=ANNO2345" {
		t.Fatalf("citation: %+v", c)
	}
	launched := launches(s)
	if err := s.Shell.OpenInZotero(c.Link); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && (len(*launched) != 1 || !slices.Equal((*launched)[0], []string{"xdg-open", c.Link})) {
		t.Fatalf("launched %q", *launched)
	}
	for _, bad := range []string{"https://example.org", "file:///etc/passwd", "obsidian://open?vault=x"} {
		if err := s.Shell.OpenInZotero(bad); !errs.Is(err, errs.Invalid) {
			t.Fatalf("%s was opened: %v", bad, err)
		}
	}
}

// finished waits for the operation id to end and returns it.
func finished(t *testing.T, s *Services, id string) ops.Op {
	t.Helper()
	var op ops.Op
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, o := range s.core.ops.List() {
			if o.ID == id {
				op = o
			}
		}
		if op.State != "" && op.State != ops.Running {
			break
		}
	}
	return op
}

// The setup panel lists the library's collections; marking one private
// keeps it in the config and syncs, after which its items (and those of
// the collections under it) are private.
func TestMarkingAZoteroCollectionPrivate(t *testing.T) {
	s, cfg := services(t)
	dir := t.TempDir()
	db := zoterotest.New(t, dir)
	db.AddItem(zotero.Item{Key: "GRANT234", Type: "book", Title: "Grant budget", Collections: []string{"Grants/2027"}})
	db.AddItem(zotero.Item{Key: "READ2345", Type: "book", Title: "Gardens", Collections: []string{"Reading"}})
	db.Close()
	if _, err := s.Setup.ZoteroCollections(); !errs.Is(err, errs.Invalid) {
		t.Fatalf("collections before a library is chosen: %v", err)
	}
	id, err := s.Setup.SetZotero(dir)
	if err != nil {
		t.Fatal(err)
	}
	finished(t, s, id)
	cols, err := s.Setup.ZoteroCollections()
	if err != nil {
		t.Fatal(err)
	}
	want := []setup.ZoteroCollection{{Path: "Grants", Items: 1}, {Path: "Grants/2027", Items: 1}, {Path: "Reading", Items: 1}}
	if !slices.Equal(cols, want) {
		t.Fatalf("collections %+v", cols)
	}
	if id, err = s.Setup.SetZoteroPrivate([]string{"Grants"}); err != nil {
		t.Fatal(err)
	}
	if op := finished(t, s, id); op.State != ops.Done {
		t.Fatalf("sync: %+v", op)
	}
	if saved, _ := config.Load(); !slices.Equal(saved.Zotero.PrivateCollections, []string{"Grants"}) || !slices.Equal(cfg.Zotero.PrivateCollections, []string{"Grants"}) {
		t.Fatalf("saved %q", saved.Zotero.PrivateCollections)
	}
	cols, _ = s.Setup.ZoteroCollections()
	if !cols[0].Private || !cols[1].Private || cols[2].Private {
		t.Fatalf("collections %+v", cols)
	}
	store := s.core.agent().Engine.Store
	check := func(want map[string]string) {
		t.Helper()
		for key, vis := range want {
			docs, err := store.List(t.Context(), kb.Filter{Source: ingest.ZoteroSourceFor(key)}, 0)
			if err != nil || len(docs) != 1 || docs[0].Visibility != vis {
				t.Fatalf("%s: %v %+v", key, err, docs)
			}
		}
	}
	check(map[string]string{"GRANT234": kb.Private, "READ2345": kb.Public})

	// The Library's filter and search boxes take filter words.
	titles := func(filter string) []string {
		t.Helper()
		rows, err := s.Library.Documents("papers", filter)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Title)
		}
		return out
	}
	if got := titles("collection:grants"); !slices.Equal(got, []string{"Grant budget"}) {
		t.Fatalf("collection:grants lists %q", got)
	}
	if got := titles(`collection:"Reading" garden`); !slices.Equal(got, []string{"Gardens"}) {
		t.Fatalf("collection:Reading garden lists %q", got)
	}
	if got := titles("collection:Reading budget"); len(got) != 0 {
		t.Fatalf("a title outside the collection: %q", got)
	}
	view, err := s.Library.Search("collection:Grants budget", 5)
	if err != nil || len(view.Hits) != 1 || view.Hits[0].Citation.Title != "Grant budget" {
		t.Fatalf("search in a collection: %v %+v", err, view.Hits)
	}
	if _, err := s.Library.Search("collection:Grants", 5); !errs.Is(err, errs.Invalid) {
		t.Fatalf("filters alone: %v", err)
	}

	// jarvis-cli makes Reading private behind the window's back: the
	// panel shows it ticked, and "Read it again now" keeps it private.
	if err := config.SetIn(cfg.Home, "zotero", "private_collections", []string{"Grants", "Reading"}); err != nil {
		t.Fatal(err)
	}
	if cols, _ = s.Setup.ZoteroCollections(); !cols[2].Private {
		t.Fatalf("a collection made private elsewhere shows unticked: %+v", cols)
	}
	if id, err = s.Setup.SyncZotero(); err != nil {
		t.Fatal(err)
	}
	finished(t, s, id)
	check(map[string]string{"GRANT234": kb.Private, "READ2345": kb.Private})
}
