package kbcmd

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kbtools/kbtoolstest"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

var texts = map[string]string{
	"garden/tomatoes.md": "---\ntype: howto\nstatus: tested\n---\n# Tomatoes\n\nTomato plants need full sun and deep watering twice a week.\n",
	"garden/roses.md":    "# Roses\n\nPrune roses in late winter before new growth.\n",
	"private/diary.md":   "# Diary\n\nWorried about the grant budget again today.\n",
}

const external = "# Attention\n\nThe transformer architecture uses attention so every token can look at every other token.\n"

// e2e builds a home with a vault, an outside file and two fixture models.
func e2e(t *testing.T) (*config.Config, string) {
	t.Helper()
	cfg := configtest.New(t)
	root := t.TempDir()
	vaultDir := filepath.Join(root, "vault")
	kbtoolstest.WriteVault(t, vaultDir, texts)
	all := slices.Collect(maps.Values(texts))
	ext := filepath.Join(root, "elsewhere", "attention.md")
	os.MkdirAll(filepath.Dir(ext), 0o755)
	if err := os.WriteFile(ext, []byte(external), 0o644); err != nil {
		t.Fatal(err)
	}
	words := embedtest.Words(append(all, external, "how often should tomatoes be watered")...)
	embDir, rrDir := filepath.Join(root, "models", "bow-a"), filepath.Join(root, "models", "overlap")
	if err := embedtest.WriteEmbedder(embDir, words); err != nil {
		t.Fatal(err)
	}
	if err := embedtest.WriteReranker(rrDir, words); err != nil {
		t.Fatal(err)
	}
	cfg.Vault.Path, cfg.Vault.PrivateDirs = vaultDir, []string{"private"}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = embDir, rrDir
	return cfg, ext
}

func TestAddSearchReindexEndToEnd(t *testing.T) {
	cfg, ext := e2e(t)

	out, err := run(t, cfg, "", "add", ext)
	if err != nil || !strings.Contains(out, "added 1 chunks (public note)") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, err = run(t, cfg, "", "index-vault")
	if err != nil || !strings.Contains(out, "added 3, updated 0, deleted 0") || !strings.Contains(out, "embedded 3 chunks with local:bow-a") {
		t.Fatalf("index-vault: %v\n%s", err, out)
	}

	out, stderr, err := runAll(t, cfg, "", "search", "how often should tomatoes be watered")
	if err != nil || !strings.Contains(stderr, "search mode: hybrid (keyword + dense) + rerank") {
		t.Fatalf("%v\n%s", err, stderr)
	}
	first := strings.SplitN(out, "\n", 2)[0]
	if !strings.Contains(first, "garden/tomatoes.md") {
		t.Fatalf("top hit is not the tomato note:\n%s", out)
	}
	out, _ = run(t, cfg, "", "search", "transformer", "attention", "token")
	if !strings.HasPrefix(out, "1. [note] attention") {
		t.Fatalf("outside file not found first:\n%s", out)
	}

	// Private notes show locally, and disappear when asked for public only.
	out, _ = run(t, cfg, "", "search", "grant budget")
	if !strings.Contains(out, "private/diary.md") || !strings.Contains(out, "[private]") {
		t.Fatalf("private note missing from a local search:\n%s", out)
	}
	out, _ = run(t, cfg, "", "search", "--private=false", "grant budget")
	if strings.Contains(out, "diary") {
		t.Fatalf("private note in a public-only search:\n%s", out)
	}

	// Adding again replaces; a vault file added by path goes through the vault rules.
	if out, err = run(t, cfg, "", "add", ext); err != nil || !strings.Contains(out, "replaced 1 chunks") {
		t.Fatalf("re-add: %v\n%s", err, out)
	}
	if out, err = run(t, cfg, "", "add", filepath.Join(cfg.Vault.Path, "private/diary.md")); err != nil || !strings.Contains(out, "unchanged vault note private/diary.md") {
		t.Fatalf("vault add: %v\n%s", err, out)
	}
	out, _ = run(t, cfg, "", "stats")
	if !strings.Contains(out, "documents: 4") || !strings.Contains(out, "private chunks: 1") {
		t.Fatalf("stats after re-adds:\n%s", out)
	}

	// Switching the embedding model: search keeps working (by keyword: the
	// old model is a bare folder this process cannot load for queries), the
	// new vectors fill in, and the new model takes over.
	newDir := filepath.Join(filepath.Dir(cfg.RAG.EmbedModel), "bow-b")
	if err := embedtest.WriteEmbedder(newDir, embedtest.Words(external, "tomato tomatoes watering sun diary grant budget roses prune")); err != nil {
		t.Fatal(err)
	}
	cfg.RAG.EmbedModel = newDir
	out, stderr, err = runAll(t, cfg, "", "search", "tomato watering")
	if err != nil || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "tomatoes.md") || !strings.Contains(stderr, "search mode: keyword") {
		t.Fatalf("search mid-switch: %v\n%s\n%s", err, out, stderr)
	}
	if out, err = run(t, cfg, "", "reindex"); err != nil || !strings.Contains(out, "embedded 4 chunks with local:bow-b") || !strings.Contains(out, "now searches with local:bow-b") {
		t.Fatalf("reindex: %v\n%s", err, out)
	}
	out, stderr, err = runAll(t, cfg, "", "search", "tomato watering")
	if err != nil || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "tomatoes.md") || !strings.Contains(stderr, "hybrid") {
		t.Fatalf("search after reindex: %v\n%s\n%s", err, out, stderr)
	}

	// Deleting a vault note and re-syncing removes it.
	os.Remove(filepath.Join(cfg.Vault.Path, "garden/roses.md"))
	if out, err = run(t, cfg, "", "index-vault"); err != nil || !strings.Contains(out, "deleted 1") {
		t.Fatalf("index-vault after delete: %v\n%s", err, out)
	}
	if out, err = run(t, cfg, "", "index-vault", "--force"); err != nil || !strings.Contains(out, "added 2") {
		t.Fatalf("forced rebuild: %v\n%s", err, out)
	}
}

func TestAddRefusesBadInputWithoutTouchingTheStore(t *testing.T) {
	cfg, _ := e2e(t)
	dir := t.TempDir()
	pdf := filepath.Join(dir, "paper.pdf")
	os.WriteFile(pdf, []byte("%PDF-1.4"), 0o644)
	empty := filepath.Join(dir, "empty.md")
	os.WriteFile(empty, nil, 0o644)
	_, err := run(t, cfg, "", "add", pdf, empty, filepath.Join(dir, "missing.md"), filepath.Join(dir, "x.docx"))
	if err == nil || !strings.Contains(err.Error(), "4 of 4 files were not added") {
		t.Fatalf("err = %v", err)
	}
	out, _ := run(t, cfg, "", "stats")
	if !strings.Contains(out, "chunks: 0") {
		t.Fatalf("bad input changed the store:\n%s", out)
	}
}

// Without any model every command works by keyword; only `kb embed`, which
// needs the model, says how to install it.
func TestWithoutModelsEverythingWorksByKeyword(t *testing.T) {
	cfg, ext := e2e(t)
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = "BAAI/bge-small-en-v1.5", "" // a manifest id not installed in this home
	if out, err := run(t, cfg, "", "add", ext); err != nil || !strings.Contains(out, "added 1 chunks") {
		t.Fatalf("add: %v\n%s", err, out)
	}
	out, stderr, err := runAll(t, cfg, "", "index-vault")
	if err != nil || !strings.Contains(out, "added 3") {
		t.Fatalf("index-vault: %v\n%s\n%s", err, out, stderr)
	}
	out, stderr, err = runAll(t, cfg, "", "search", "tomatoes watering")
	if err != nil || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "tomatoes.md") || !strings.Contains(stderr, "search mode: keyword\n") {
		t.Fatalf("keyword search: %v\n%s\n%s", err, out, stderr)
	}
	_, err = run(t, cfg, "", "embed")
	if !errs.Is(err, errs.NotFound) || !strings.Contains(err.Error(), "models fetch") {
		t.Fatalf("embed without the model: %v", err)
	}
}

func TestAddPDFFullTextWithDuplicatePrompt(t *testing.T) {
	cfg, _ := e2e(t)
	// The fixture vocabulary needs the paper's words.
	words := embedtest.Words("Sparse Attention for Long Documents Transformers compare every token with every other token which is costly",
		"We show that sparse attention keeps accuracy while cutting memory use key idea holds window size validation sweep")
	if err := embedtest.WriteEmbedder(cfg.RAG.EmbedModel, words); err != nil {
		t.Fatal(err)
	}
	pdfPath, _ := filepath.Abs("../../../../backend/pdf/testdata/annotated.pdf")
	out, err := run(t, cfg, "", "add", "--full-text", "--authors", "Ada Example", pdfPath)
	if err != nil || !strings.Contains(out, `added paper "Sparse Attention for Long Documents"`) || !strings.Contains(out, "4 annotations") {
		t.Fatalf("add pdf: %v\n%s", err, out)
	}
	out, _ = run(t, cfg, "", "search", "sparse attention keeps accuracy")
	if !strings.HasPrefix(out, "1. [paper] Sparse Attention for Long Documents") || !strings.Contains(out, "[HIGHLIGHT p.1]") {
		t.Fatalf("search:\n%s", out)
	}
	// A second add asks; "n" keeps the store as it was.
	out, err = run(t, cfg, "n\n", "add", "--full-text", "--authors", "Ada Example", pdfPath)
	if err != nil || !strings.Contains(out, "skipped (duplicate)") {
		t.Fatalf("duplicate: %v\n%s", err, out)
	}
	before, _ := run(t, cfg, "", "stats")
	out, err = run(t, cfg, "", "add", "--full-text", "--yes", "--authors", "Ada Example", pdfPath)
	if err != nil || !strings.Contains(out, "replaced paper") {
		t.Fatalf("replace: %v\n%s", err, out)
	}
	if after, _ := run(t, cfg, "", "stats"); after != before {
		t.Fatalf("replacing changed the counts:\n%s\nvs\n%s", before, after)
	}
	// A scanned PDF with nothing to index (a blank sheet: no text layer,
	// nothing for OCR) is refused with a hint.
	if _, err := run(t, cfg, "", "add", "--full-text", pdftest.BlankScan(t)); err == nil {
		t.Fatal("scan without annotations was added")
	}
}

func TestAddDigest(t *testing.T) {
	cfg, _ := e2e(t)
	md := "# Paper Digest — 2026-12-07\n\nGenerated x\n\n## Must-Read\n\n### [Tomato Genomics](https://arxiv.org/abs/2612.00001)\n\n**Score:** 9/10 · **Source:** q-bio\n\nTomato plants genomes.\n\n## Skim\n\n### [Roses](https://arxiv.org/abs/2612.00002)\n\n**Score:** 4/10 · **Source:** q-bio\n\nPrune roses.\n"
	path := filepath.Join(t.TempDir(), "digest-2026-12-07.md")
	os.WriteFile(path, []byte(md), 0o644)
	out, err := run(t, cfg, "", "add-digest", path)
	if err != nil || !strings.Contains(out, "1 summaries added, 0 already stored, 1 below 8") {
		t.Fatalf("add-digest: %v\n%s", err, out)
	}
	out, _ = run(t, cfg, "", "list", "--type", "paper,digest")
	if !strings.Contains(out, "Tomato Genomics") || !strings.Contains(out, "Paper Digest — 2026-12-07") || strings.Contains(out, "] Roses") {
		t.Fatalf("list:\n%s", out)
	}
}

// kb add classifies the file a path resolves to: a link elsewhere to a note
// in a private vault folder adds that note as private; --private marks an
// outside note private and refuses what it cannot honour.
func TestAddClassifiesLinksAndHonoursPrivate(t *testing.T) {
	cfg, ext := e2e(t)
	link := filepath.Join(filepath.Dir(ext), "link.md")
	if err := os.Symlink(filepath.Join(cfg.Vault.Path, "private", "diary.md"), link); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, cfg, "", "add", link); err != nil || !strings.Contains(out, "added as vault note private/diary.md") {
		t.Fatalf("add link: %v\n%s", err, out)
	}
	if out, err := run(t, cfg, "", "add", "--private", ext); err != nil || !strings.Contains(out, "(private note)") {
		t.Fatalf("add --private: %v\n%s", err, out)
	}
	out, _ := run(t, cfg, "", "stats")
	if !strings.Contains(out, "documents: 2") || !strings.Contains(out, "private chunks: 2") {
		t.Fatalf("stats:\n%s", out)
	}
	out, _ = run(t, cfg, "", "search", "--private=false", "worried grant budget transformer attention")
	if strings.Contains(out, "diary") || strings.Contains(out, "attention") {
		t.Fatalf("a private note in a public-only search:\n%s", out)
	}
	if _, err := run(t, cfg, "", "add", "--private", filepath.Join(cfg.Vault.Path, "garden", "roses.md")); !errs.Is(err, errs.Invalid) {
		t.Fatalf("--private on a public vault note: %v", err)
	}
}
