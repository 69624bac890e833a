package kbtools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools/kbtoolstest"
)

// ledger records what a caller was handed.
type ledger struct {
	cites    []Citation
	private  bool
	withheld int
}

func (l *ledger) Add(cs ...Citation) { l.cites = append(l.cites, cs...) }
func (l *ledger) MarkPrivate()       { l.private = true }
func (l *ledger) AddWithheld(n int)  { l.withheld += n }

// newKB indexes a small vault into a real store (keyword search: the
// operations' rules do not depend on the models).
func newKB(t *testing.T) *KB {
	t.Helper()
	root := t.TempDir()
	long := "# Manual\n\n"
	for i := range 40 {
		long += fmt.Sprintf("## Part %d\n\nSection %d of the long compost manual, with enough words to fill a chunk of its own.\n\n", i, i)
	}
	notes := map[string]string{
		"garden/compost.md":  "# Compost\n\nTurn the compost heap weekly; the grant paid for the bins.\n",
		"private/diary.md":   "# Diary\n\nWorried about the grant budget again.\n",
		"private/secrets.md": "# Secrets\n\nThe grant committee meets in March.\n",
		"manual/long.md":     long,
	}
	kbtoolstest.WriteVault(t, root, notes)
	// A public-looking path that is a link into the private folder.
	if err := os.Symlink(filepath.Join(root, "private", "diary.md"), filepath.Join(root, "garden", "link.md")); err != nil {
		t.Fatal(err)
	}
	return kbAt(t, root, 200)
}

func TestSearchGivesCloudCallersThePublicPoolAndCountsWhatItKeptBack(t *testing.T) {
	k, ctx := newKB(t), context.Background()

	var cloud ledger
	found, err := k.Search(ctx, Caller{Cloud: true, Ledger: &cloud}, SearchArgs{Query: "grant"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Chunks) != 1 || found.Chunks[0].Meta.Visibility != kb.Public {
		t.Fatalf("cloud search: %d chunks %+v", len(found.Chunks), found.Chunks)
	}
	// The link garden/link.md points into the private folder: it is private.
	if cloud.private || cloud.withheld != 3 || len(cloud.cites) != 1 || strings.Contains(cloud.cites[0].FilePath, "private") {
		t.Errorf("cloud ledger = %+v, want 1 public citation, 3 withheld, not private", cloud)
	}

	var local ledger
	found, err = k.Search(ctx, Caller{Ledger: &local}, SearchArgs{Query: "grant"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Chunks) != 4 || !local.private || local.withheld != 0 || len(local.cites) != 4 {
		t.Errorf("local search: %d chunks, ledger %+v", len(found.Chunks), local)
	}
}

func TestSearchExcludingASourceStillGivesTheCountAskedFor(t *testing.T) {
	k, ctx := newKB(t), context.Background()
	// Two past conversations about the grant; the one asking is chat:now.
	var chats []kb.Chunk
	for _, src := range []string{"chat:now", "chat:before"} {
		chats = append(chats, kb.Chunk{Content: "We talked about the grant deadline.", EmbedText: "We talked about the grant deadline.",
			Meta: kb.Metadata{DocType: kb.DocChat, Visibility: kb.Public, Source: src, Title: src}})
	}
	if err := k.Store.Commit(chats, ""); err != nil {
		t.Fatal(err)
	}
	filter := kb.Filter{DocTypes: []string{kb.DocChat}}
	all, err := k.Search(ctx, Caller{}, SearchArgs{Query: "grant", Filter: filter})
	if err != nil || len(all.Chunks) != 2 {
		t.Fatalf("both conversations: %d chunks, %v", len(all.Chunks), err)
	}
	found, err := k.Search(ctx, Caller{}, SearchArgs{Query: "grant", N: 1, Filter: filter, ExcludeSource: "chat:now"})
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Chunks) != 1 || found.Chunks[0].Meta.Source != "chat:before" {
		t.Errorf("excluding the asking conversation: %+v", found.Chunks)
	}
}

func TestGetDocumentPagesAndHidesPrivateDocumentsFromCloudCallers(t *testing.T) {
	k, ctx := newKB(t), context.Background()

	var l ledger
	first, err := k.GetDocument(ctx, Caller{Cloud: true, Ledger: &l}, "manual/long.md", 1)
	if err != nil {
		t.Fatal(err)
	}
	if first.Pages < 2 || len(first.Chunks) != DocPageSize || first.Total <= DocPageSize {
		t.Fatalf("page 1: %d of %d pages, %d chunks of %d", first.Page, first.Pages, len(first.Chunks), first.Total)
	}
	last, err := k.GetDocument(ctx, Caller{}, "manual/long.md", first.Pages)
	if err != nil {
		t.Fatal(err)
	}
	if want := first.Total - (first.Pages-1)*DocPageSize; len(last.Chunks) != want {
		t.Errorf("last page: %d chunks, want %d", len(last.Chunks), want)
	}
	if _, err := k.GetDocument(ctx, Caller{}, "manual/long.md", first.Pages+1); !errs.Is(err, errs.Invalid) {
		t.Errorf("page past the end: %v", err)
	}
	if len(l.cites) != DocPageSize || l.private {
		t.Errorf("ledger after one public page: %d citations, private %v", len(l.cites), l.private)
	}

	// A cloud caller's answer for a private document is the missing one's.
	var cloud ledger
	_, private := k.GetDocument(ctx, Caller{Cloud: true, Ledger: &cloud}, "private/diary.md", 1)
	_, missing := k.GetDocument(ctx, Caller{Cloud: true}, "private/nothing.md", 1)
	if !errs.Is(private, errs.NotFound) || strings.Replace(private.Error(), "diary", "nothing", 1) != missing.Error() {
		t.Errorf("private vs missing:\n%v\n%v", private, missing)
	}
	if cloud.withheld != 1 || len(cloud.cites) != 0 || cloud.private {
		t.Errorf("cloud ledger after a private document = %+v", cloud)
	}
	var local ledger
	if _, err := k.GetDocument(ctx, Caller{Ledger: &local}, "private/diary.md", 1); err != nil || !local.private {
		t.Errorf("local caller reading a private document: %v, private %v", err, local.private)
	}
}

func TestReadFileRefusesCloudCallersPrivateNotesLikeMissingOnes(t *testing.T) {
	k, ctx := newKB(t), context.Background()
	cloud := Caller{Cloud: true}

	_, missing := k.ReadFile(ctx, cloud, "garden/none.md")
	for _, rel := range []string{"private/diary.md", "garden/link.md"} {
		var l ledger
		c := cloud
		c.Ledger = &l
		_, err := k.ReadFile(ctx, c, rel)
		// Byte for byte the missing note's answer, with the path it was asked for.
		if want := strings.ReplaceAll(missing.Error(), "garden/none.md", rel); !errs.Is(err, errs.NotFound) || err.Error() != want {
			t.Errorf("%s: %v (missing: %v)", rel, err, missing)
		}
		if l.private || len(l.cites) != 0 || l.withheld != 1 {
			t.Errorf("%s: ledger %+v", rel, l)
		}
	}

	n, err := k.ReadFile(ctx, cloud, "garden/compost.md")
	if err != nil || !strings.Contains(n.Text, "compost heap") || n.Visibility != kb.Public {
		t.Errorf("public note: %+v, %v", n, err)
	}
	var l ledger
	n, err = k.ReadFile(ctx, Caller{Ledger: &l}, "garden/link.md")
	if err != nil || !strings.Contains(n.Text, "grant budget") || !l.private || len(l.cites) != 1 {
		t.Errorf("local caller through the link: %+v, %v, ledger %+v", n, err, l)
	}
	for _, bad := range []string{"../etc/passwd.md", "/etc/passwd.md", "garden/compost.txt", ""} {
		if _, err := k.ReadFile(ctx, Caller{}, bad); !errs.Is(err, errs.Invalid) {
			t.Errorf("%q: %v, want refused", bad, err)
		}
	}
}
