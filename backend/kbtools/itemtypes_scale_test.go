package kbtools

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// A library of 20k Zotero items of a dozen types: the item types cost a
// query per type, not per document, and stay well under the listing's
// own time (the Library reloads on every change).
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
	t0 := time.Now()
	docs, err := k.Query(ctx, Caller{Person: true}, f, kb.ListOptions{Limit: 100_000})
	if err != nil || len(docs) != 20000 {
		t.Fatalf("listing: %d %v", len(docs), err)
	}
	listing := time.Since(t0)
	t0 = time.Now()
	got, err := k.ItemTypes(ctx, Caller{Person: true}, f)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	if len(got) != 20000 || got["zotero://select/library/items/K0000002"] != "journalArticle" {
		t.Fatalf("%d item types", len(got))
	}
	t.Logf("listing %v, item types %v", listing, took)
	if took > 5*listing+time.Second {
		t.Errorf("item types took %v against a listing of %v", took, listing)
	}
}
