package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// newAdder returns an Adder over a vault whose private/ folder holds
// secret.md and a PDF, and garden/ holds a public note.
func newAdder(t *testing.T) (*Adder, string) {
	t.Helper()
	idx := kbIndexer(t, "secret plans garden roses sparse attention")
	root := t.TempDir()
	for rel, text := range map[string]string{"private/secret.md": "# Secret\n\nSecret plans.\n", "garden/roses.md": "# Roses\n\nGarden roses.\n"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644)
	}
	copyFile(t, "../pdf/testdata/annotated.pdf", filepath.Join(root, "private", "scan.pdf"))
	return &Adder{Store: idx.Store, Embed: idx.Embed, Opts: Options{ChunkSize: 1024},
		Vault: &vault.Refresher{Root: root, PrivateDirs: []string{"private"}, Store: idx.Store, Embed: idx.Embed, ChunkSize: 1024}}, root
}

func visibilities(t *testing.T, s *kb.Store) map[string]string {
	t.Helper()
	docs, err := s.List(context.Background(), kb.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range docs {
		out[d.Key] = d.Visibility
	}
	return out
}

// A file that resolves into a private vault folder is private wherever it
// is added from: a link elsewhere, a path through "..".
func TestAddClassifiesTheResolvedPath(t *testing.T) {
	ctx := context.Background()
	for name, path := range map[string]func(root, elsewhere string) string{
		"link elsewhere": func(root, elsewhere string) string {
			p := filepath.Join(elsewhere, "link.md")
			os.Symlink(filepath.Join(root, "private", "secret.md"), p)
			return p
		},
		"dot-dot": func(root, _ string) string { return filepath.Join(root, "garden", "..", "private", "secret.md") },
		"link to the folder": func(root, elsewhere string) string {
			os.Symlink(filepath.Join(root, "private"), filepath.Join(elsewhere, "notes"))
			return filepath.Join(elsewhere, "notes", "secret.md")
		},
	} {
		t.Run(name, func(t *testing.T) {
			a, root := newAdder(t)
			res, err := a.Add(ctx, AddRequest{Path: path(root, t.TempDir())})
			if err != nil {
				t.Fatal(err)
			}
			got := visibilities(t, a.Store)
			if len(got) != 1 || got["private/secret.md"] != kb.Private || !strings.Contains(res.Message, "private/secret.md") {
				t.Fatalf("stored %v (%s)", got, res.Message)
			}
		})
	}
}

func TestAddPrivateFlag(t *testing.T) {
	ctx := context.Background()
	a, root := newAdder(t)
	outside := filepath.Join(t.TempDir(), "journal.md")
	os.WriteFile(outside, []byte("# Journal\n\nSecret plans.\n"), 0o644)
	if _, err := a.Add(ctx, AddRequest{Path: outside, Private: true}); err != nil {
		t.Fatal(err)
	}
	// Through a link the note is stored under the file it names.
	link := filepath.Join(t.TempDir(), "j.md")
	os.Symlink(outside, link)
	if res, err := a.Add(ctx, AddRequest{Path: link, Private: true}); err != nil || !strings.HasPrefix(res.Message, "replaced") {
		t.Fatalf("%v %+v", err, res)
	}
	if got := visibilities(t, a.Store); len(got) != 1 || got[outside] != kb.Private {
		t.Fatalf("stored %v", got)
	}
	// A vault note's folder decides; asking a public one to be private is
	// refused, not silently published.
	if _, err := a.Add(ctx, AddRequest{Path: filepath.Join(root, "garden", "roses.md"), Private: true}); !errs.Is(err, errs.Invalid) || errs.HintOf(err) == "" {
		t.Fatalf("public vault note with --private: %v", err)
	}
	if _, err := a.Add(ctx, AddRequest{Path: filepath.Join(root, "private", "secret.md"), Private: true}); err != nil {
		t.Fatalf("private vault note with --private: %v", err)
	}
	// Papers are always public: a PDF asked to be private is refused, and
	// one that resolves into a private folder too, from wherever it is added.
	pub := filepath.Join(t.TempDir(), "paper.pdf")
	copyFile(t, "../pdf/testdata/paper.pdf", pub)
	if _, err := a.Add(ctx, AddRequest{Path: pub, Private: true, Paper: Paper{Mode: FullText}}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("private PDF: %v", err)
	}
	pdfLink := filepath.Join(t.TempDir(), "scan.pdf")
	os.Symlink(filepath.Join(root, "private", "scan.pdf"), pdfLink)
	if _, err := a.Add(ctx, AddRequest{Path: pdfLink, Paper: Paper{Mode: FullText}}); !errs.Is(err, errs.Privacy) {
		t.Fatalf("link to a private PDF: %v", err)
	}
	if got := visibilities(t, a.Store); len(got) != 2 {
		t.Fatalf("stored %v", got)
	}
}

// A link dropped into the PDF inbox that resolves into a private vault
// folder is not published as a paper.
func TestInboxRefusesLinksIntoPrivateFolders(t *testing.T) {
	a, root := newAdder(t)
	dir := t.TempDir()
	os.Symlink(filepath.Join(root, "private", "scan.pdf"), filepath.Join(dir, "scan.pdf"))
	copyFile(t, "../pdf/testdata/paper.pdf", filepath.Join(dir, "paper.pdf"))
	in := &Inbox{Dir: dir, Store: a.Store, Embed: a.Embed, Opts: Options{ChunkSize: 1024, Model: &fakeModel{completeReply: `{"title":"T","authors":"A"}`}},
		VaultRoot: root, PrivateDirs: []string{"private"}}
	res, err := in.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || res.Failed != 1 || !strings.Contains(strings.Join(res.Errors, " "), "private vault folder") {
		t.Fatalf("scan: %s %v", res, res.Errors)
	}
	chunks, _ := a.Store.Document(context.Background(), kb.Filter{AnnotationKind: "highlight"})
	if len(chunks) != 0 {
		t.Fatalf("the private PDF's highlights were stored: %+v", chunks)
	}
}
