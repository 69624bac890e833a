package vault

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// bowEmbedder is a test-only bag-of-words embedder: these tests cover the
// refresh bookkeeping, not embedding quality.
type bowEmbedder struct{ calls int }

var vocab = []string{"acme", "interview", "diary", "plan", "grant"}

func (b *bowEmbedder) Info() kb.ModelInfo { return kb.ModelInfo{ID: "test/bow", Dims: len(vocab)} }
func (b *bowEmbedder) Backend() string    { return "test" }
func (b *bowEmbedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	v, _ := b.EmbedDocuments(ctx, []string{q})
	return v[0], nil
}
func (b *bowEmbedder) EmbedDocuments(_ context.Context, ts []string) ([][]float32, error) {
	b.calls += len(ts)
	out := make([][]float32, len(ts))
	for i, t := range ts {
		v := make([]float32, len(vocab))
		for j, w := range vocab {
			if strings.Contains(strings.ToLower(t), w) {
				v[j] = 1
			}
		}
		out[i] = v
	}
	return out, nil
}

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func setup(t *testing.T) (*Refresher, *bowEmbedder, string) {
	root := t.TempDir()
	emb := &bowEmbedder{}
	s, err := kb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &Refresher{Root: root, PrivateDirs: []string{"private"}, Store: s, Embed: emb, ChunkSize: 1024, ChunkOverlap: 128}, emb, root
}

func TestRefreshAddsUpdatesDeletesIncrementally(t *testing.T) {
	r, emb, root := setup(t)
	ctx := context.Background()
	write(t, root, "jobs/acme.md", "---\ntype: job_application\nentity: Acme Bio\nstatus: rejected\ntags: [remote, biotech]\nvisibility: public\nsalary: 100\n---\n# Acme\nInterview notes.\n")
	write(t, root, "private/diary.md", "---\nvisibility: public\ndoc_type: paper\n---\nDiary: grant plan.\n")
	write(t, root, "broken.md", "---\ntitle: [unclosed\n---\nStill indexed: acme plan.\n")
	write(t, root, ".obsidian/workspace.md", "ignored")
	os.Symlink(filepath.Join(root, "private/diary.md"), filepath.Join(root, "jobs/link.md"))

	res, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 4 || res.Updated != 0 || res.Deleted != 0 {
		t.Fatalf("first refresh = %+v", res)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "broken.md: malformed frontmatter") {
		t.Fatalf("warnings = %v", res.Warnings)
	}
	docs, _ := r.Store.List(ctx, kb.Filter{}, 0)
	byPath := map[string]kb.DocumentSummary{}
	for _, d := range docs {
		byPath[d.FilePath] = d
	}
	if byPath["private/diary.md"].Visibility != kb.Private || byPath["private/diary.md"].DocType != kb.DocNote {
		t.Fatal("frontmatter must not reclassify a private note")
	}
	if byPath["jobs/link.md"].Visibility != kb.Private {
		t.Fatal("a symlink into private/ is classified by its resolved path")
	}
	if byPath["jobs/acme.md"].Category != "job_application" || byPath["jobs/acme.md"].Status != "rejected" {
		t.Fatalf("record = %+v", byPath["jobs/acme.md"])
	}
	vals, _ := r.Store.ValueCounts(ctx, "x_visibility")
	if vals["public"] != 3 { // acme, diary and the link to diary
		t.Fatalf("colliding keys are namespaced: %v", vals)
	}
	hits, _ := r.Store.BM25(ctx, "rejected", kb.Filter{Tags: []string{"remote"}}, 5)
	if len(hits) != 1 || !strings.HasPrefix(hits[0].Chunk.EmbedText, "job_application · Acme Bio · rejected") {
		t.Fatalf("record header must ride in the embedded text: %+v", hits)
	}

	calls := emb.calls
	res, _ = r.Refresh(ctx)
	if res.Added+res.Updated+res.Deleted+res.Reclassified+res.Migrated != 0 || len(res.Warnings) != 0 || emb.calls != calls {
		t.Fatalf("a no-op refresh must change and embed nothing: %+v", res)
	}

	time.Sleep(10 * time.Millisecond)
	write(t, root, "jobs/acme.md", "# Acme\nSecond interview.\n")
	os.Remove(filepath.Join(root, "broken.md"))
	res, _ = r.Refresh(ctx)
	if res.Updated != 1 || res.Deleted != 1 || res.Added != 0 {
		t.Fatalf("update/delete = %+v", res)
	}

	// Reclassify without re-embedding when the private folders change.
	calls = emb.calls
	r.PrivateDirs = []string{"private", "jobs"}
	res, _ = r.Refresh(ctx)
	if res.Reclassified != 1 || emb.calls != calls {
		t.Fatalf("reclassify = %+v (embed calls %d -> %d)", res, calls, emb.calls)
	}
	priv, _ := r.Store.List(ctx, kb.Filter{Visibility: []string{kb.Private}}, 0)
	if len(priv) != 3 {
		t.Fatalf("private after reclassify: %+v", priv)
	}
}

func TestTouchedButUnchangedFileIsNotReembedded(t *testing.T) {
	r, emb, root := setup(t)
	ctx := context.Background()
	write(t, root, "a.md", "plain acme note\n")
	r.Refresh(ctx)
	calls := emb.calls
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "a.md"), later, later)
	res, err := r.Refresh(ctx)
	if err != nil || res.Updated != 0 || emb.calls != calls {
		t.Fatalf("mtime-only change: %+v %v", res, err)
	}
}

func TestMissingVaultIsAnError(t *testing.T) {
	r, _, _ := setup(t)
	r.Root = "/no/such/vault"
	if _, err := r.Refresh(context.Background()); err == nil {
		t.Fatal("missing vault must be reported")
	}
}

func TestParseRecordMapping(t *testing.T) {
	rec, warns := ParseRecord("category: manuscript\norg: Lab X\napplied: 2026-03-01\ntags: a, b\nnested:\n  k: v\nVenue Name: NeurIPS\n")
	if rec.Category != "manuscript" || rec.Entity != "Lab X" || rec.EventDate != "2026-03-01" || len(rec.Tags) != 2 {
		t.Fatalf("record = %+v", rec)
	}
	if rec.Extra["x_venue_name"] != "NeurIPS" || len(warns) != 1 || !strings.Contains(warns[0], "nested") {
		t.Fatalf("extras %v warnings %v", rec.Extra, warns)
	}
}

func TestInPrivateFolderFollowsLinks(t *testing.T) {
	root := t.TempDir()
	write(t, root, "private/x.pdf", "%PDF")
	write(t, root, "public/y.pdf", "%PDF")
	outside := filepath.Join(t.TempDir(), "link.pdf")
	os.Symlink(filepath.Join(root, "private", "x.pdf"), outside)
	cases := map[string]bool{
		filepath.Join(root, "private", "x.pdf"): true,
		filepath.Join(root, "public", "y.pdf"):  false,
		outside:                                 true,
		filepath.Join(t.TempDir(), "z.pdf"):     false,
	}
	for p, want := range cases {
		if got := InPrivateFolder(root, p, []string{"private"}); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
	if InPrivateFolder("", outside, []string{"private"}) {
		t.Error("no vault, no private folder")
	}
}

func TestExcludedFoldersAndLinksOutOfTheVaultAreNotIndexed(t *testing.T) {
	r, _, root := setup(t)
	r.Embed = nil // stored with pending vectors: this test is about which files
	ctx := context.Background()
	write(t, root, "notes/keep.md", "# Keep\nlandlord letter")
	write(t, root, "templates/daily.md", "# Daily template\nlandlord placeholder")
	write(t, root, "archive/2019/old.md", "# Old\nlandlord archive")
	write(t, root, "notes/attachments/readme.md", "# Attachments\nlandlord files")
	secret := filepath.Join(t.TempDir(), "passwd")
	os.WriteFile(secret, []byte("root:x:0:0 landlord"), 0o644)
	os.Symlink(secret, filepath.Join(root, "notes", "x.md"))
	r.Exclude = []string{"templates", "archive/*", "*/attachments"}
	res, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "1 link(s) point outside the vault and are not indexed: notes/x.md") {
		t.Fatalf("refresh = %+v", res)
	}
	hits, _ := r.Store.BM25(ctx, "landlord", kb.Filter{}, 10)
	if len(hits) != 1 || hits[0].Chunk.Meta.FilePath != "notes/keep.md" {
		t.Fatalf("hits %+v", hits)
	}
	// Excluding a folder later removes what was indexed from it.
	r.Exclude = nil
	if res, _ := r.Refresh(ctx); res.Added != 3 {
		t.Fatalf("unexcluded: %+v", res)
	}
	r.Exclude = []string{"templates"}
	if res, _ := r.Refresh(ctx); res.Deleted != 1 {
		t.Fatalf("re-excluded: %+v", res)
	}
	// One path at a time, as the watcher does: gone, excluded and
	// out-of-vault paths leave the index; a path outside the vault is refused.
	os.Remove(filepath.Join(root, "archive/2019/old.md"))
	if res, err := r.RefreshFiles(ctx, []string{"archive/2019/old.md", "templates/daily.md", "notes/x.md", "notes/keep.md"}); err != nil || res.Deleted != 1 || res.Added != 0 {
		t.Fatalf("refresh files: %+v %v", res, err)
	}
	if _, err := r.RefreshFile(ctx, secret); !errs.Is(err, errs.Invalid) {
		t.Fatalf("outside path: %v", err)
	}
}

// A link inside the vault to a file outside it (any file on the machine,
// named x.md) is neither read nor indexed; the refresh says so once.
func TestLinksOutOfTheVaultAreNotFollowed(t *testing.T) {
	r, _, root := setup(t)
	ctx := context.Background()
	write(t, root, "notes/plan.md", "# Plan\nGrant plan.\n")
	elsewhere := t.TempDir()
	write(t, elsewhere, "passwd", "root:x:0:0:grant interview diary\n")
	os.Symlink(filepath.Join(elsewhere, "passwd"), filepath.Join(root, "notes", "x.md"))
	os.Symlink(filepath.Join(elsewhere, "passwd"), filepath.Join(root, "private-y.md"))
	os.Symlink(filepath.Join(root, "notes", "plan.md"), filepath.Join(root, "inside-link.md")) // stays in the vault: fine

	res, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added != 2 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "2 link(s) point outside the vault") ||
		!strings.Contains(res.Warnings[0], "notes/x.md") {
		t.Fatalf("refresh = %+v", res)
	}
	hits, _ := r.Store.BM25(ctx, "root", kb.Filter{}, 5)
	docs, _ := r.Store.List(ctx, kb.Filter{}, 0)
	if len(hits) != 0 || len(docs) != 2 {
		t.Fatalf("the outside file was indexed: %+v %+v", hits, docs)
	}
	if res, err := r.RefreshFile(ctx, filepath.Join(root, "notes", "x.md")); err != nil || res.Added != 0 || len(res.Warnings) != 1 {
		t.Fatalf("RefreshFile followed a link out of the vault: %+v %v", res, err)
	}
	if again, _ := r.Refresh(ctx); len(again.Warnings) != 1 || again.Added+again.Updated+again.Deleted != 0 {
		t.Fatalf("second refresh = %+v", again)
	}
}

// The private folder is recognised however a path spells it: by identity
// of the directory, as a case-insensitive filesystem (or a bind mount)
// presents it. The test bind-mounts private/ onto PRIVATE/ inside a
// private user and mount namespace, which is exactly what a
// case-insensitive filesystem shows: two spellings, one directory.
func TestPrivateFolderSpelledDifferently(t *testing.T) {
	if os.Getenv("JARVIS_VAULT_BIND_ROOT") == "" {
		unshare, err := exec.LookPath("unshare")
		if err != nil {
			t.Skip("needs unshare(1) to bind-mount in a private namespace")
		}
		root := t.TempDir()
		cmd := exec.Command(unshare, "--user", "--map-root-user", "--mount", os.Args[0], "-test.run=^TestPrivateFolderSpelledDifferently$", "-test.v")
		cmd.Env = append(os.Environ(), "JARVIS_VAULT_BIND_ROOT="+root)
		out, err := cmd.CombinedOutput()
		if strings.Contains(string(out), "unshare failed") || strings.Contains(string(out), "Operation not permitted") && !strings.Contains(string(out), "--- ") {
			t.Skipf("user namespaces are not available here: %s", out)
		}
		if err != nil || !strings.Contains(string(out), "--- PASS: TestPrivateFolderSpelledDifferently") {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	root := filepath.Join(os.Getenv("JARVIS_VAULT_BIND_ROOT"), "vault")
	write(t, root, "private/secret.md", "secret")
	os.MkdirAll(filepath.Join(root, "PRIVATE"), 0o755)
	alias := filepath.Join(os.Getenv("JARVIS_VAULT_BIND_ROOT"), "alias")
	os.MkdirAll(alias, 0o755)
	for _, m := range [][2]string{{filepath.Join(root, "private"), filepath.Join(root, "PRIVATE")}, {root, alias}} {
		if err := syscall.Mount(m[0], m[1], "", syscall.MS_BIND, ""); err != nil {
			t.Fatalf("bind %s: %v", m[1], err)
		}
	}
	dirs := []string{"private"}
	for _, p := range []string{
		filepath.Join(root, "PRIVATE", "secret.md"),
		filepath.Join(alias, "private", "secret.md"),
		filepath.Join(alias, "PRIVATE", "secret.md"),
		filepath.Join(root, "notes", "..", "PRIVATE", "secret.md"),
	} {
		if v := Visibility(root, p, dirs); v != kb.Private {
			t.Errorf("Visibility(%s) = %s", p, v)
		}
		if !InPrivateFolder(root, p, dirs) {
			t.Errorf("InPrivateFolder(%s) = false", p)
		}
		if rel, inside := Locate(root, p); !inside || !strings.EqualFold(rel, "private/secret.md") {
			t.Errorf("Locate(%s) = %q %v", p, rel, inside)
		}
	}
}

// A file of the vault added as a public document (kb add, the inbox)
// while its folder was public loses that copy when the folder is made
// private, and when the file (an image, known by its bytes) is moved into
// a private folder; public copies of public files stay.
func TestPublicCopiesOfFilesMadePrivateAreWithdrawn(t *testing.T) {
	r, _, root := setup(t)
	r.ReadImage = func(context.Context, string) (string, float64, error) { return "plan for the grant", 0.9, nil }
	ctx := context.Background()
	write(t, root, "scans/offer.pdf", "%PDF offer")
	write(t, root, "pics/plan.png", "png bytes of the plan")
	write(t, root, "shared/talk.pdf", "%PDF talk")
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	paper := func(rel, body, text string) kb.Chunk {
		abs := filepath.Join(root, rel)
		return kb.Chunk{Content: text, EmbedText: text, Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: "file://" + abs,
			FilePath: abs, Title: filepath.Base(rel), ContentHash: sum(body)}}
	}
	if err := r.Store.Ingest(ctx, nil, []kb.Chunk{paper("scans/offer.pdf", "%PDF offer", "salary offer"), paper("pics/plan.png", "png bytes of the plan", "plan for the grant"),
		paper("shared/talk.pdf", "%PDF talk", "a public talk")}, nil); err != nil {
		t.Fatal(err)
	}
	public := func() []string {
		docs, err := r.Store.List(ctx, kb.Filter{Visibility: []string{kb.Public}, DocTypes: []string{kb.DocPaper}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range docs {
			out = append(out, filepath.Base(d.FilePath))
		}
		slices.Sort(out)
		return out
	}
	if res, err := r.Refresh(ctx); err != nil || res.Withdrawn != 0 {
		t.Fatalf("nothing is private yet: %v %+v", err, res)
	}
	r.PrivateDirs = []string{"private", "scans"}
	res, err := r.Refresh(ctx)
	if err != nil || res.Withdrawn != 1 || !slices.Equal(public(), []string{"plan.png", "talk.pdf"}) {
		t.Fatalf("scans/ made private: %v %+v, public papers %v", err, res, public())
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), `removed the public copy "offer.pdf"`) {
		t.Fatalf("the user is not told: %v", res.Warnings)
	}
	if err := os.MkdirAll(filepath.Join(root, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "pics/plan.png"), filepath.Join(root, "private/plan.png")); err != nil {
		t.Fatal(err)
	}
	res, err = r.Refresh(ctx)
	if err != nil || res.Withdrawn != 1 || !slices.Equal(public(), []string{"talk.pdf"}) {
		t.Fatalf("the image moved into private/: %v %+v, public papers %v", err, res, public())
	}
	if hits, _ := r.Store.BM25(ctx, "grant plan", kb.Filter{Visibility: []string{kb.Public}}, 5); len(hits) != 0 {
		t.Fatalf("the moved image's text is still public: %+v", hits)
	}
}

// The window and the tray both watch the vault: when one stores a new note
// while the other still holds the states it read before, the second must
// not replace the stored chunks (their vectors would be lost and the note
// embedded twice).
func TestRefreshKeepsANoteAnotherProcessJustStored(t *testing.T) {
	r, emb, root := setup(t)
	ctx := context.Background()
	write(t, root, "kettle.md", "# Kettle\nDescale the kettle monthly.\n")
	stale, err := r.Store.NoteStates(ctx) // read before the other process stores the note
	if err != nil {
		t.Fatal(err)
	}
	if res, err := r.RefreshFile(ctx, "kettle.md"); err != nil || res.Added != 1 {
		t.Fatalf("first refresh: %+v, %v", res, err)
	}
	var res Result
	late := &Refresher{Root: root, PrivateDirs: r.PrivateDirs, Store: r.Store, ChunkSize: r.ChunkSize, ChunkOverlap: r.ChunkOverlap} // no model: its chunks would wait for vectors
	if err := late.syncPath(ctx, "kettle.md", stale, &res); err != nil {
		t.Fatal(err)
	}
	if res.Added != 0 || res.Updated != 0 {
		t.Fatalf("the late refresh counted %+v; the note was already stored", res)
	}
	if pending, total, err := r.Store.PendingCount(ctx, emb.Info().ID); err != nil || pending != 0 || total == 0 {
		t.Fatalf("pending %d of %d (%v): the stored vectors were replaced", pending, total, err)
	}

	// Changed bytes are still written over what is stored.
	write(t, root, "kettle.md", "# Kettle\nDescale the kettle weekly.\n")
	if err := late.syncPath(ctx, "kettle.md", stale, &res); err != nil || res.Added != 1 {
		t.Fatalf("changed note: %+v, %v", res, err)
	}
	if pending, _, _ := r.Store.PendingCount(ctx, emb.Info().ID); pending == 0 {
		t.Fatal("the changed note kept the old vectors")
	}
}

// A note another process re-indexed at another version while this one held
// older states, and whose file then changed back, is indexed afresh: the
// stale states' "same bytes" must not restamp the other version for good.
func TestAStaleSameBytesRefreshDoesNotPinAnotherVersion(t *testing.T) {
	r, _, root := setup(t)
	ctx := context.Background()
	alpha, bravo := "# Kettle\nversion alpha text.\n", "# Kettle\nversion bravo text.\n"
	write(t, root, "kettle.md", alpha)
	if _, err := r.RefreshFile(ctx, "kettle.md"); err != nil {
		t.Fatal(err)
	}
	stale, err := r.Store.NoteStates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := &Refresher{Root: root, PrivateDirs: r.PrivateDirs, Store: r.Store, ChunkSize: r.ChunkSize, ChunkOverlap: r.ChunkOverlap}
	write(t, root, "kettle.md", bravo)
	if _, err := other.RefreshFile(ctx, "kettle.md"); err != nil {
		t.Fatal(err)
	}
	write(t, root, "kettle.md", alpha) // changed back
	var res Result
	if err := r.syncPath(ctx, "kettle.md", stale, &res); err != nil {
		t.Fatal(err)
	}
	hits, err := r.Store.BM25(ctx, "version", kb.Filter{FilePath: "kettle.md"}, 5)
	if err != nil || len(hits) != 1 || !strings.Contains(hits[0].Chunk.Content, "alpha") || res.Updated != 1 {
		t.Fatalf("file says alpha; store has %+v (%v), refresh %+v", hits, err, res)
	}
}

// The other process's copy is kept only if it is what this one would
// store: same bytes stored under another visibility (its private folders
// were not yet this one's) are written again; and when the copy is kept,
// the note is not even embedded.
func TestIngestChangedComparesVisibilityAndSparesTheEmbedding(t *testing.T) {
	r, emb, root := setup(t)
	ctx := context.Background()
	write(t, root, "notes/plan.md", "# Plan\nThe grant plan.\n")
	stale, _ := r.Store.NoteStates(ctx)
	other := &Refresher{Root: root, Store: r.Store, ChunkSize: r.ChunkSize, ChunkOverlap: r.ChunkOverlap} // no private folders
	if _, err := other.RefreshFile(ctx, "notes/plan.md"); err != nil {
		t.Fatal(err)
	}
	before := emb.calls
	var res Result
	if err := r.syncPath(ctx, "notes/plan.md", stale, &res); err != nil || res.Added != 0 || emb.calls != before {
		t.Fatalf("same copy: %+v %v, %d embeddings", res, err, emb.calls-before)
	}
	r.PrivateDirs = []string{"notes"} // this process now counts notes/ private
	if err := r.syncPath(ctx, "notes/plan.md", stale, &res); err != nil || res.Added != 1 {
		t.Fatalf("another visibility: %+v %v", res, err)
	}
	hits, err := r.Store.BM25(ctx, "grant", kb.Filter{FilePath: "notes/plan.md"}, 5)
	if err != nil || len(hits) != 1 || hits[0].Chunk.Meta.Visibility != kb.Private {
		t.Fatalf("%+v %v", hits, err)
	}
}
