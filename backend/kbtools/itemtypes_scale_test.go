package kbtools

import (
	"context"
	"fmt"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// A library of 20k Zotero items of a dozen types: the listing itself
// carries each item's type (no query beyond the listing's own).
func TestItemTypesAt20kItems(t *testing.T) {
	if testing.Short() {
		t.Skip("20k documents")
	}
	k, ctx := newKB(t), context.Background()
	types := []string{"book", "bookSection", "journalArticle", "preprint", "thesis", "report", "conferencePaper", "webpage", "manuscript", "letter", "patent", "dataset"}
	var chunks []kb.Chunk
	for i := range 20000 {
		typ := types[i%len(types)]
		for j := range 2 {
			chunks = append(chunks, kb.Chunk{Content: "An item.", EmbedText: "An item.",
				Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: fmt.Sprintf("zotero://select/library/items/K%07d", i), Title: fmt.Sprint("Item ", i), ChunkIndex: j,
					Extra: map[string]string{kb.ItemTypeField: typ}}})
		}
	}
	if err := k.Store.Ingest(ctx, nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	f := kb.Filter{DocTypes: kb.KindPapers.DocTypes()}
	docs, err := k.Query(ctx, Caller{Person: true}, f, kb.ListOptions{Limit: 100_000})
	if err != nil || len(docs) != 20000 {
		t.Fatalf("listing: %d %v", len(docs), err)
	}
	got := map[string]string{}
	for _, d := range docs {
		got[d.Key] = d.ItemType
	}
	if len(got) != 20000 || got["zotero://select/library/items/K0000002"] != "journalArticle" || got["zotero://select/library/items/K0000013"] != "bookSection" {
		t.Fatalf("%d item types: %v", len(got), got["zotero://select/library/items/K0000002"])
	}
}
