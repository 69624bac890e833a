package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// benchLibrary is n items, each with its own stored PDF (paper.pdf) and
// two Zotero annotations.
func benchLibrary(b *testing.B, n int) string {
	dir := b.TempDir()
	db := zoterotest.New(b, dir)
	defer db.Close()
	paper, _ := filepath.Abs("../pdf/testdata/paper.pdf")
	for i := 0; i < n; i++ {
		db.AddItem(zotero.Item{Type: "journalArticle", Title: fmt.Sprintf("Paper %d", i), Fields: map[string]string{"date": "2020", "abstractNote": "An abstract."},
			Creators: []zotero.Creator{{First: "A", Last: fmt.Sprint("L", i)}}, Tags: []string{"t"},
			Attachments: []zotero.Attachment{{ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: paper,
				Annotations: []zotero.Annotation{{Type: zotero.Highlight, Text: fmt.Sprintf("marked %d", i), Comment: "why"}, {Type: zotero.Note, Comment: "a note"}}}}})
	}
	return dir
}

// BenchmarkZoteroIndex1000Items is a first sync: every item, its PDF
// through the PDF pipeline and its annotations, stored (no vectors).
func BenchmarkZoteroIndex1000Items(b *testing.B) {
	dir := benchLibrary(b, 1000)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := kb.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		z := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 1000, ChunkOverlap: 150}}
		b.StartTimer()
		res, err := z.Sync(context.Background())
		if err != nil || res.Added != 1000 {
			b.Fatal(res, err)
		}
		b.StopTimer()
		s.Close()
	}
}

// BenchmarkZoteroNoOpSync5000Items is a sync after Zotero saved without
// changing any of 5,000 items (zotero.sqlite changed, nothing in it did).
func BenchmarkZoteroNoOpSync5000Items(b *testing.B) {
	dir := b.TempDir()
	db := zoterotest.New(b, dir)
	for i := 0; i < zoteroBenchItems; i++ {
		db.AddItem(zotero.Item{Type: "journalArticle", Title: fmt.Sprintf("Paper %d", i), Fields: map[string]string{"abstractNote": "An abstract."},
			Attachments: []zotero.Attachment{{ContentType: "application/pdf", LinkMode: zotero.LinkedFile, Path: "/nonexistent/paper.pdf",
				Annotations: []zotero.Annotation{{Type: zotero.Highlight, Text: fmt.Sprintf("marked %d", i)}, {Type: zotero.Note, Comment: "n"}, {Type: zotero.Underline, Text: "u"}}}}})
	}
	db.Close()
	s, err := kb.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	z := &ZoteroSync{Store: s, Dir: dir, Opts: Options{ChunkSize: 1000, ChunkOverlap: 150}}
	if _, err := z.Sync(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := z.Sync(context.Background())
		if err != nil || res.Unchanged != zoteroBenchItems {
			b.Fatal(res, err)
		}
	}
}

// zoteroBenchItems is the no-op benchmark's library size.
var zoteroBenchItems = 5000
