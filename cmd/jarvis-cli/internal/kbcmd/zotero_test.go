package kbcmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// `kb index-zotero --dir` indexes a library built on Zotero's schema,
// keeps the folder as zotero.data_dir, finds a highlight made only in
// Zotero, cites it as the Zotero item, and a second run changes nothing.
func TestIndexZoteroEndToEnd(t *testing.T) {
	cfg, _ := e2e(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, "Zotero")
	os.MkdirAll(dir, 0o755)
	db := zoterotest.New(t, dir)
	defer db.Close()
	paper, _ := filepath.Abs("../../../../backend/pdf/testdata/paper.pdf")
	db.AddItem(zotero.Item{Key: "ITEM2345", Type: "journalArticle", Title: "Sparse attention at scale",
		Fields:   map[string]string{"title": "Sparse attention at scale", "date": "2021", "abstractNote": "We study sparse attention."},
		Creators: []zotero.Creator{{First: "Ada", Last: "Lovelace", Type: "author"}},
		Attachments: []zotero.Attachment{{Key: "ATTA2345", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: paper,
			Annotations: []zotero.Annotation{{Key: "ANNO2345", Type: zotero.Highlight, Text: "glacial melt rates doubled", Comment: "the headline number",
				PageIndex: 0, PageLabel: "1", SortIndex: "00000|000010|00010"}}}}})

	// No folder chosen: the error names the one found in the home.
	_, stderr, err := runAll(t, cfg, "", "index-zotero")
	if !errs.Is(err, errs.Invalid) || !strings.Contains(errs.HintOf(err), dir) {
		t.Fatalf("without a folder: %v (hint %q)\n%s", err, errs.HintOf(err), stderr)
	}

	out, stderr, err := runAll(t, cfg, "", "index-zotero", "--dir", dir, "--no-embed")
	if err != nil || !strings.Contains(out, "1 items: added 1, updated 0, deleted 0, unchanged 0 (1 Zotero annotations stored)") {
		t.Fatalf("index-zotero: %v\n%s\n%s", err, out, stderr)
	}
	saved, err := config.Load()
	if err != nil || saved.Zotero.DataDir != dir || !strings.Contains(stderr, "zotero.data_dir set to "+dir) {
		t.Fatalf("the folder was not kept: %q %v\n%s", saved.Zotero.DataDir, err, stderr)
	}
	out, err = run(t, cfg, "", "search", "glacial melt rates")
	if err != nil || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "zotero://select/library/items/ITEM2345") || !strings.Contains(out, "the headline number") {
		t.Fatalf("search: %v\n%s", err, out)
	}
	out, err = run(t, cfg, "", "index-zotero", "--no-embed")
	if err != nil || !strings.Contains(out, "unchanged 1") {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	// Record filters on papers: year and item type.
	for where, found := range map[string]bool{"year=2020-2021": true, "year=2022-": false, "item_type=journalArticle": true, "item_type=book": false} {
		out, err = run(t, cfg, "", "search", "--type", "paper", "--where", where, "glacial melt rates")
		if err != nil || strings.Contains(out, "ITEM2345") != found {
			t.Fatalf("search --where %s: %v\n%s", where, err, out)
		}
	}
	if _, err = run(t, cfg, "", "search", "--where", "year=soon", "x"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a bad year: %v", err)
	}

	// A collection made private: kept in the config, and the item filed
	// there is rebuilt private at once.
	db.File("ITEM2345", "Grants/2027")
	out, stderr, err = runAll(t, cfg, "", "index-zotero", "--no-embed", "--private-collection", "Grants")
	if err != nil || !strings.Contains(out, "updated 1") || !strings.Contains(out, "1 items private (in Grants)") || !strings.Contains(stderr, "zotero.private_collections set to Grants") {
		t.Fatalf("--private-collection: %v\n%s\n%s", err, out, stderr)
	}
	if saved, _ := config.Load(); !slices.Equal(saved.Zotero.PrivateCollections, []string{"Grants"}) {
		t.Fatalf("saved %q", saved.Zotero.PrivateCollections)
	}
	out, err = run(t, cfg, "", "list", "--type", "paper", "--where", "collection=grants")
	if err != nil || !strings.Contains(out, "[paper/private] Sparse attention at scale") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	if out, err = run(t, cfg, "", "list", "--where", "collection=Reading"); err != nil || strings.Contains(out, "Sparse attention") {
		t.Fatalf("list of another collection: %v\n%s", err, out)
	}
}
