package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// fakeModel records calls; each answer is fixed per method.
type fakeModel struct {
	completes, summaries, images int
	completeReply                string
	fail                         bool
}

func (f *fakeModel) Complete(context.Context, []llm.Message, int, int) (string, error) {
	f.completes++
	if f.fail {
		return "", errors.New("model down")
	}
	return f.completeReply, nil
}
func (f *fakeModel) Summarize(_ context.Context, title, text, _ string, _ int) (string, error) {
	f.summaries++
	if !strings.Contains(text, "sparse attention") {
		return "", errors.New("summariser did not get the body text")
	}
	return "Summary of " + title + ": sparse attention keeps accuracy with less memory.", nil
}
func (f *fakeModel) DescribeImage(_ context.Context, png []byte, _ string) (string, error) {
	f.images++
	return "A bar chart of ten bars.", nil
}

var opts = Options{ChunkSize: 1024, ChunkOverlap: 100, FigureMaxPerDoc: 20, FigureMinPixels: 40000}

func TestFullTextPaperKeepsAnnotationsFirstAndPages(t *testing.T) {
	res, err := BuildPaper(context.Background(), Paper{Path: "../pdf/testdata/annotated.pdf", Mode: FullText}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Marks != 4 || len(res.Chunks) < 6 {
		t.Fatalf("marks %d chunks %d", res.Marks, len(res.Chunks))
	}
	first := res.Chunks[0]
	if !strings.HasPrefix(first.Content, "[HIGHLIGHT p.1] sparse attention keeps accuracy") || first.Meta.AnnotationKind != "highlight" || first.Meta.NoteText != "key idea: accuracy holds" || first.Meta.Page != 1 {
		t.Fatalf("first chunk = %+v", first)
	}
	var method *kb.Chunk
	for i, c := range res.Chunks {
		m := c.Meta
		if m.DocType != kb.DocPaper || m.Visibility != kb.Public || !strings.HasPrefix(m.Source, "file://") || m.ContentHash == "" || m.StorageMode != FullText || m.ChunkIndex != i {
			t.Fatalf("chunk %d metadata = %+v", i, m)
		}
		if strings.Contains(c.Content, "<!-- page") || strings.Contains(c.EmbedText, "<!-- page") {
			t.Fatalf("page marker leaked into chunk %d", i)
		}
		if strings.Contains(c.Content, "window size") {
			method = &res.Chunks[i]
		}
	}
	if method == nil || method.Meta.Page != 2 || !strings.HasSuffix(method.Meta.Section, "› 2 Method") {
		t.Fatalf("method chunk = %+v", method)
	}
	if res.Title != "Sparse Attention for Long Documents" || res.DOI != "10.1234/jarvis.5678" {
		t.Fatalf("meta %q %q", res.Title, res.DOI)
	}
}

func TestMetadataPolicy(t *testing.T) {
	ctx := context.Background()
	// Overrides win and skip inference entirely.
	m := &fakeModel{completeReply: `{"title":"Wrong","authors":"Wrong"}`}
	res, err := BuildPaper(ctx, Paper{Path: "../pdf/testdata/annotated.pdf", Mode: FullText, Title: "T", Authors: "A", DOI: "10.1/x"}, Options{ChunkSize: 1024, Model: m})
	if err != nil || res.Title != "T" || res.Authors != "A" || res.DOI != "10.1/x" || m.completes != 0 {
		t.Fatalf("%v %+v completes=%d", err, res, m.completes)
	}
	// annotated.pdf has no info authors: one LLM call fills them.
	m = &fakeModel{completeReply: "Sure: {\"title\": \"Sparse Attention\", \"authors\": \"Ada Example; Ben Sample\"}"}
	res, _ = BuildPaper(ctx, Paper{Path: "../pdf/testdata/annotated.pdf", Mode: FullText}, Options{ChunkSize: 1024, Model: m})
	if res.Authors != "Ada Example; Ben Sample" || m.completes != 1 || res.DOI != "10.1234/jarvis.5678" {
		t.Fatalf("inferred %+v completes=%d", res, m.completes)
	}
	// The info dictionary already names both: no call.
	m = &fakeModel{}
	res, _ = BuildPaper(ctx, Paper{Path: "../pdf/testdata/paper.pdf", Mode: FullText}, Options{ChunkSize: 1024, Model: m})
	if m.completes != 0 || res.Authors != "Ada Example; Ben Sample" {
		t.Fatalf("%+v completes=%d", res, m.completes)
	}
	// A failing model degrades to what the file says, with a warning.
	m = &fakeModel{fail: true}
	res, err = BuildPaper(ctx, Paper{Path: "../pdf/testdata/annotated.pdf", Mode: FullText}, Options{ChunkSize: 1024, Model: m})
	if err != nil || res.Title != "Sparse Attention for Long Documents" || res.Authors != "" || len(res.Warnings) == 0 {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestSummaryModeAndFigures(t *testing.T) {
	m := &fakeModel{}
	yes := true
	res, err := BuildPaper(context.Background(), Paper{Path: "../pdf/testdata/paper.pdf", Figures: &yes}, Options{ChunkSize: 1024, FigureMaxPerDoc: 20, FigureMinPixels: 40000, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if m.summaries != 1 || m.images != 1 || res.Figures != 1 {
		t.Fatalf("summaries %d images %d figures %d", m.summaries, m.images, res.Figures)
	}
	var kinds []string
	for _, c := range res.Chunks {
		kinds = append(kinds, c.Meta.StorageMode+"/"+c.Meta.AnnotationKind)
	}
	last := res.Chunks[len(res.Chunks)-1]
	if last.Content != "[FIGURE p.1] A bar chart of ten bars." || last.Meta.AnnotationKind != KindFigure || res.Chunks[0].Meta.StorageMode != Summary {
		t.Fatalf("chunks %v last %q", kinds, last.Content)
	}
	// Summary mode with no model is refused, nothing staged.
	if _, err := BuildPaper(context.Background(), Paper{Path: "../pdf/testdata/paper.pdf"}, Options{ChunkSize: 1024}); !errs.Is(err, errs.LLM) {
		t.Fatalf("summary without model: %v", err)
	}
}

func TestScannedPDFWithoutAnnotationsIsRefused(t *testing.T) {
	_, err := BuildPaper(context.Background(), Paper{Path: "../pdf/testdata/scanned.pdf", Mode: FullText}, opts)
	if !errs.Is(err, errs.Conversion) {
		t.Fatalf("err = %v", err)
	}
}

func TestAdderRefusesPDFsInPrivateVaultFolders(t *testing.T) {
	idx := kbIndexer(t, "sparse attention")
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "private"), 0o755)
	b, _ := os.ReadFile("../pdf/testdata/paper.pdf")
	p := filepath.Join(root, "private", "p.pdf")
	os.WriteFile(p, b, 0o644)
	a := &Adder{Store: idx.Store, Embed: idx.Embed, Opts: Options{ChunkSize: 1024},
		Vault: &vault.Refresher{Root: root, PrivateDirs: []string{"private"}, Store: idx.Store, Embed: idx.Embed, ChunkSize: 1024}}
	if _, err := a.Add(context.Background(), AddRequest{Path: p, Paper: Paper{Mode: FullText}}); !errs.Is(err, errs.Privacy) {
		t.Fatalf("err = %v", err)
	}
	if c, _ := idx.Store.Count(context.Background()); c.Chunks != 0 {
		t.Fatal("something was stored")
	}
}
