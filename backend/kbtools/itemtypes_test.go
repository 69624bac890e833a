package kbtools

import (
	"context"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// A listing gives each Zotero item in scope its type, one entry per
// document however many chunks it has; notes have none, and a cloud
// caller learns nothing of a private item.
func TestItemTypesMapsZoteroItemsInScope(t *testing.T) {
	k, ctx := newKB(t), context.Background()
	item := func(key, typ, vis string, n int) []kb.Chunk {
		var out []kb.Chunk
		for i := range n {
			out = append(out, kb.Chunk{Content: "An item about soil.", EmbedText: "An item about soil.",
				Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: vis, Source: "zotero://select/library/items/" + key, Title: key, ChunkIndex: i,
					Extra: map[string]string{kb.ItemTypeField: typ}}})
		}
		return out
	}
	var chunks []kb.Chunk
	chunks = append(chunks, item("BOOK2345", "book", kb.Public, 3)...)
	chunks = append(chunks, item("ARTI2345", "journalArticle", kb.Public, 1)...)
	chunks = append(chunks, item("SECR2345", "report", kb.Private, 2)...)
	if err := k.Store.Ingest(ctx, nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	const pre = "zotero://select/library/items/"
	// itemTypes lists what f selects for c and maps the documents that
	// have an item type to it.
	itemTypes := func(c Caller, f kb.Filter) (map[string]string, error) {
		docs, err := k.Query(ctx, c, f, kb.ListOptions{})
		out := map[string]string{}
		for _, d := range docs {
			if d.ItemType != "" {
				out[d.Key] = d.ItemType
			}
		}
		return out, err
	}
	types, err := itemTypes(Caller{Person: true}, kb.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != 3 || types[pre+"BOOK2345"] != "book" || types[pre+"ARTI2345"] != "journalArticle" || types[pre+"SECR2345"] != "report" {
		t.Fatalf("item types: %v", types)
	}
	if _, ok := types["garden/compost.md"]; ok {
		t.Fatalf("a note has an item type: %v", types)
	}
	var cloud ledger
	types, err = itemTypes(Caller{Cloud: true, Ledger: &cloud}, kb.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != 2 || types[pre+"SECR2345"] != "" || cloud.private {
		t.Fatalf("a cloud caller's item types: %v (private %v)", types, cloud.private)
	}
	// A filter on one type (the Library's type: word) maps only that type.
	types, err = itemTypes(Caller{Person: true}, kb.Filter{Fields: map[string]string{kb.ItemTypeField: "book"}})
	if err != nil || len(types) != 1 || types[pre+"BOOK2345"] != "book" {
		t.Fatalf("type book: %v %v", err, types)
	}
}
