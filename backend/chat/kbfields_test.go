package chat

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// ingestFields stores a scored paper (annotations and a figure staged
// before its body, as ingest does) and a record note.
func ingestFields(t *testing.T, f *kbFixture) {
	t.Helper()
	score := 9
	paper := kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: "https://arxiv.org/abs/2611.01234", Title: "Sparse Attention",
		Authors: "Ada Example; Bo Sample", DOI: "10.1000/sparse.1", Score: &score, Track: "methods", StorageMode: "full_text"}
	var chunks []kb.Chunk
	for i, part := range []struct{ kind, text string }{
		{"highlight", "[HIGHLIGHT p.2] windowed tokens"}, {"figure", "[FIGURE p.3] accuracy curve"},
		{"", "Sparse attention body one about window tokens."}, {"", "Sparse attention body two about validation."},
	} {
		m := paper
		m.ChunkIndex, m.AnnotationKind = i, part.kind
		chunks = append(chunks, kb.Chunk{Content: part.text, EmbedText: part.text, Meta: m})
	}
	record := kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: kb.SourceVault, FilePath: "jobs/acme.md", Title: "Acme",
		Category: "job_application", Status: "rejected", Entity: "Acme", EventDate: "2026-01-15"}
	chunks = append(chunks, kb.Chunk{Content: "Interview with Acme about tomato robots.", EmbedText: "Interview with Acme about tomato robots.", Meta: record})
	if err := f.eng.Store.Ingest(context.Background(), nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
}

// search_kb shows a paper's authors, year, DOI, track and score and a
// record's category, status, entity and date; list_documents shows authors
// and DOI and filters by every filter its schema advertises.
func TestKBToolsShowIdentifyingFieldsAndAdvertiseFilters(t *testing.T) {
	f := newKB(t)
	ingestFields(t, f)
	ctx, _, _ := turnCtx()
	out, err := f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "sparse attention window tokens", "kind": "papers"}), func(Event) {})
	if err != nil || out.IsError {
		t.Fatal(err, out)
	}
	for _, want := range []string{"authors: Ada Example; Bo Sample", "year: 2026", "DOI: 10.1000/sparse.1", "track: methods", "score: 9/10"} {
		if !strings.Contains(out.Content, want) {
			t.Errorf("paper hit lacks %q:\n%s", want, out.Content)
		}
	}
	out, _ = f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "interview acme tomato robots", "kind": "notes", "status": "rejected"}), func(Event) {})
	if !strings.Contains(out.Content, "category: job_application · status: rejected · entity: Acme · date: 2026-01-15") {
		t.Errorf("record hit lacks its fields:\n%s", out.Content)
	}

	for _, tool := range []string{"search_kb", "list_documents"} {
		var sch struct {
			Properties map[string]struct{ Description string }
		}
		json.Unmarshal(f.tools.Tools[tool].Def.Parameters, &sch)
		for key := range filterParams {
			if sch.Properties[key].Description == "" {
				t.Errorf("%s accepts %q but its schema does not say so", tool, key)
			}
		}
	}
	list := func(args map[string]any) string {
		out, err := f.tools.Dispatch(ctx, local, call("list_documents", args), func(Event) {})
		if err != nil || out.IsError {
			t.Fatal(err, out)
		}
		return out.Content
	}
	if got := list(map[string]any{"kind": "papers"}); !strings.Contains(got, "authors: Ada Example; Bo Sample") || !strings.Contains(got, "DOI: 10.1000/sparse.1") {
		t.Errorf("papers listing:\n%s", got)
	}
	for _, args := range []map[string]any{{"status": "rejected"}, {"entity": "Acme"}, {"category": "job_application"}} {
		got := list(args)
		if !strings.Contains(got, "jobs/acme.md") || strings.Contains(got, "tomatoes.md") || !strings.Contains(got, "status: rejected") {
			t.Errorf("list_documents %v:\n%s", slices.Collect(maps.Keys(args)), got)
		}
	}
}

// The Zotero filters: a collection (with those under it), a year or a
// range, an item type; kb_stats names the collections and types in use.
func TestKBToolsFilterZoteroItems(t *testing.T) {
	f := newKB(t)
	ctx, _, _ := turnCtx()
	var chunks []kb.Chunk
	for _, it := range []struct{ key, title, cols, year, typ string }{
		{"AAAA1111", "Glacier melt survey", "Thesis/Chapter 2; Reading", "2019", "journalArticle"},
		{"BBBB2222", "Glacier book", "Reading", "2021", "book"},
		{"CCCC3333", "Glacier preprint", "Thesisish", "2023", "preprint"},
	} {
		m := kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: "zotero://select/library/items/" + it.key, Title: it.title, StorageMode: "full_text",
			Extra: map[string]string{kb.CollectionsField: it.cols, kb.YearField: it.year, kb.ItemTypeField: it.typ}}
		chunks = append(chunks, kb.Chunk{Content: it.title + " about glaciers.", EmbedText: it.title, Meta: m})
	}
	if err := f.eng.Store.Ingest(context.Background(), nil, chunks, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"collection": "thesis"}, []string{"AAAA1111"}},
		{map[string]any{"collection": "Reading"}, []string{"AAAA1111", "BBBB2222"}},
		{map[string]any{"year": "2020-"}, []string{"BBBB2222", "CCCC3333"}},
		{map[string]any{"year": "2019"}, []string{"AAAA1111"}},
		{map[string]any{"item_type": "book"}, []string{"BBBB2222"}},
		{map[string]any{"collection": "Reading", "year": "-2020"}, []string{"AAAA1111"}},
	} {
		for _, tool := range []string{"search_kb", "list_documents"} {
			args := maps.Clone(c.args)
			args["query"] = "glacier"
			out, err := f.tools.Dispatch(ctx, local, call(tool, args), func(Event) {})
			if err != nil || out.IsError {
				t.Fatal(err, out)
			}
			for _, key := range []string{"AAAA1111", "BBBB2222", "CCCC3333"} {
				if strings.Contains(out.Content, key) != slices.Contains(c.want, key) {
					t.Errorf("%s %v: %s wrongly in or out:\n%s", tool, c.args, key, out.Content)
				}
			}
		}
	}
	out, _ := f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "glacier", "year": "twenty"}), func(Event) {})
	if !out.IsError || !strings.Contains(out.Content, "2019-2021") {
		t.Errorf("a bad year: %+v", out)
	}
	out, _ = f.tools.Dispatch(ctx, local, call("kb_stats", map[string]any{}), func(Event) {})
	if !strings.Contains(out.Content, "Zotero collections (items): Reading=2 Thesis/Chapter 2=1 Thesisish=1") || !strings.Contains(out.Content, "book=1 journalArticle=1 preprint=1") {
		t.Errorf("kb_stats:\n%s", out.Content)
	}
}

// get_document reads the body in order, then the annotations, then figures.
func TestGetDocumentBodyThenAnnotationsThenFigures(t *testing.T) {
	f := newKB(t)
	ingestFields(t, f)
	ctx, _, _ := turnCtx()
	out, err := f.tools.Dispatch(ctx, local, call("get_document", map[string]any{"source": "https://arxiv.org/abs/2611.01234"}), func(Event) {})
	if err != nil || out.IsError {
		t.Fatal(err, out)
	}
	at := func(s string) int { return strings.Index(out.Content, s) }
	if !(at("body one") >= 0 && at("body one") < at("body two") && at("body two") < at("[HIGHLIGHT") && at("[HIGHLIGHT") < at("[FIGURE")) {
		t.Fatalf("reading order:\n%s", out.Content)
	}
}

// The removal preview names title, type, source, chunk count and the local
// path (or that there is none) in the fixed words.
func TestRemovalPreviewNamesTheDocumentAndItsPath(t *testing.T) {
	f := newKB(t)
	ingestFields(t, f)
	for _, c := range []struct{ source, want string }{
		{"garden/tomatoes.md", `Remove "tomatoes" from the knowledge base? Type: note. Source: vault note garden/tomatoes.md. 1 chunks.` + "\n" +
			"Database entry only — files on disk are never touched by jarvis: " + f.root + "/garden/tomatoes.md"},
		{"https://arxiv.org/abs/2611.01234", `Remove "Sparse Attention" from the knowledge base? Type: paper. Source: https://arxiv.org/abs/2611.01234. 4 chunks.` + "\n" +
			"Database entry only — files on disk are never touched by jarvis: no local file"},
	} {
		ctx, _, rec := turnCtx()
		done := make(chan struct{})
		go func() {
			f.tools.Dispatch(ctx, local, call("remove_document", map[string]any{"source": c.source}), func(Event) {})
			close(done)
		}()
		token := waitConfirm(t, rec, 1)[0]
		rec.mu.Lock()
		text := rec.events[len(rec.events)-1].Text
		rec.mu.Unlock()
		f.kb.Confirm.Answer(token, false)
		<-done
		if text != c.want {
			t.Errorf("preview:\n%s\nwant:\n%s", text, c.want)
		}
	}
}
