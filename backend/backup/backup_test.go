package backup

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kb/kbtest"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

var model = kb.ModelInfo{ID: "test/model", Dims: 3}

// threeDims is a test embedder: the vectors are arithmetic, this package
// only needs them stored and restored.
type threeDims struct{}

func (threeDims) Info() kb.ModelInfo { return model }
func (threeDims) Backend() string    { return "test" }
func (threeDims) EmbedQuery(context.Context, string) ([]float32, error) {
	return []float32{1, 0, 0}, nil
}
func (threeDims) EmbedDocuments(_ context.Context, ts []string) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i, t := range ts {
		out[i] = []float32{float32(len(t)), 1, 0}
	}
	return out, nil
}

// populated makes a data dir with a store, sessions, drafts (with a version
// snapshot), an edited prompt and a commented config file.
func populated(t *testing.T) *config.Config {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(config.FilePath(home), []byte("# mine\n[chat]\nresponse_style = \"Be brief.\" # keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFrom(home)
	if err != nil {
		t.Fatal(err)
	}
	s, err := kb.Open(cfg.RAG.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var chunks []kb.Chunk
	for i := range 40 {
		vis := kb.Public
		if i%3 == 0 {
			vis = kb.Private
		}
		text := fmt.Sprintf("note %d about tomatoes and attention %d", i, i*i)
		chunks = append(chunks, kb.Chunk{Content: text, EmbedText: text,
			Meta: kb.Metadata{DocType: kb.DocNote, Visibility: vis, Source: fmt.Sprintf("n%d.md", i%7), Title: fmt.Sprintf("Note %d", i%7)}})
	}
	if err := s.Ingest(context.Background(), threeDims{}, chunks, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(cfg.SessionsDir(), "20260101-000000-aaaaaaaaaaaa.json"): `{"id":"20260101-000000-aaaaaaaaaaaa","title":"first"}`,
		filepath.Join(cfg.SessionsDir(), "20260102-000000-bbbbbbbbbbbb.json"): `{"id":"20260102-000000-bbbbbbbbbbbb","title":"second"}`,
		filepath.Join(cfg.Drafts.Dir, "d1", "paper.tex"):                      "\\documentclass{article}\n\\begin{document}x\\end{document}\n",
		filepath.Join(cfg.Drafts.Dir, "d1", ".versions", "v1", "paper.tex"):   "old version\n",
		filepath.Join(cfg.PromptsDir(), "system_prompt.md"):                   "You are my edited assistant.\n",
		cfg.MemoryFile(): `{"facts":[{"id":"mem-000000000001","text":"Answer in British English"}]}`,
		filepath.Join(cfg.ImagesDir(), "0123456789abcdef0123456789abcdef.png"): "\x89PNG the viewer's copy of a WebP\n",
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	book, err := ledger.Open(cfg.LedgerDir(), 30)
	if err != nil {
		t.Fatal(err)
	}
	id, err := book.Begin(context.Background(), ledger.Record{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m", Session: "s1",
		Sources: []ledger.Source{{Key: "n1.md", Title: "Note 1"}}, RequestBytes: 120, Body: `{"messages":["note 1 about tomatoes"]}`})
	if err != nil {
		t.Fatal(err)
	}
	if err := book.Finish(id, ledger.Result{ResponseBytes: 40, OutputTokens: 9}); err != nil {
		t.Fatal(err)
	}
	book.Close()
	// Binary content too: every byte value must survive.
	bin := make([]byte, 4096)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	if err := os.WriteFile(filepath.Join(cfg.Drafts.Dir, "d1", "data.csv"), bin, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// state is everything a restore must bring back: each part's files byte
// for byte and the store's rows.
type state struct {
	files map[string]string
	rows  map[string][]string
}

func capture(t *testing.T, cfg *config.Config) state {
	t.Helper()
	st := state{files: map[string]string{}, rows: map[string][]string{}}
	for _, root := range []string{cfg.SessionsDir(), cfg.Drafts.Dir, cfg.PromptsDir(), filepath.Dir(cfg.MemoryFile()), cfg.ImagesDir()} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			st.files[p] = string(b)
			return nil
		})
	}
	if b, err := os.ReadFile(cfg.File); err == nil {
		st.files[cfg.File] = string(b)
	}
	st.rows["ledger"] = ledgerRows(t, cfg)
	if _, err := os.Stat(kb.StorePath(cfg.RAG.Dir)); err != nil {
		return st
	}
	db, err := sql.Open("sqlite", "file:"+kb.StorePath(cfg.RAG.Dir)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, q := range map[string]string{
		"chunks":  `SELECT * FROM chunks ORDER BY id`,
		"meta":    `SELECT key, value FROM meta ORDER BY key`,
		"vectors": `SELECT * FROM vectors ORDER BY id`,
		"terms":   `SELECT * FROM lex_terms ORDER BY id`,
	} {
		st.rows[name] = dumpRows(t, db, q)
	}
	return st
}

// ledgerRows renders the cloud ledger's records, or nil without one.
func ledgerRows(t *testing.T, cfg *config.Config) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(cfg.LedgerDir(), ledger.FileName)); err != nil {
		return nil
	}
	book, err := ledger.Open(cfg.LedgerDir(), 30)
	if err != nil {
		t.Fatal(err)
	}
	defer book.Close()
	rs, err := book.List(context.Background(), ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%+v", r))
	}
	return out
}

func dumpRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%q", vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func wipe(t *testing.T, cfg *config.Config) {
	t.Helper()
	for _, p := range []string{cfg.RAG.Dir, cfg.SessionsDir(), cfg.Drafts.Dir, cfg.PromptsDir(), filepath.Dir(cfg.MemoryFile()), cfg.LedgerDir(), cfg.ImagesDir(), cfg.File} {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}

func sameState(t *testing.T, want, got state) {
	t.Helper()
	if len(want.rows["chunks"]) == 0 || len(want.files) < 7 || len(want.rows["ledger"]) == 0 {
		t.Fatalf("the fixture is not populated: %d rows, %d files", len(want.rows["chunks"]), len(want.files))
	}
	if !reflect.DeepEqual(want.files, got.files) {
		for p := range want.files {
			if want.files[p] != got.files[p] {
				t.Errorf("file %s differs or is missing", p)
			}
		}
		for p := range got.files {
			if _, ok := want.files[p]; !ok {
				t.Errorf("unexpected file %s", p)
			}
		}
		t.FailNow()
	}
	for name, rows := range want.rows {
		if !reflect.DeepEqual(rows, got.rows[name]) {
			t.Fatalf("%s rows differ: %d before, %d after", name, len(rows), len(got.rows[name]))
		}
	}
}

func leftovers(t *testing.T, cfg *config.Config) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{cfg.Home, filepath.Dir(cfg.Drafts.Dir), filepath.Dir(cfg.RAG.Dir)} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".restore-") {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}

// backedUp is a populated data dir and a backup set made of it.
func backedUp(t *testing.T) (*config.Config, string) {
	t.Helper()
	cfg := populated(t)
	set := filepath.Join(t.TempDir(), "set")
	if _, err := Create(context.Background(), cfg, set); err != nil {
		t.Fatal(err)
	}
	return cfg, set
}

// restoredTo checks that the data dir holds want again and that what ran
// (a restore, refused or failed) left none of its staging folders behind.
func restoredTo(t *testing.T, cfg *config.Config, want state, what string) {
	t.Helper()
	sameState(t, want, capture(t, cfg))
	if l := leftovers(t, cfg); len(l) > 0 {
		t.Fatalf("%s left %v", what, l)
	}
}

func TestBackupWipeRestoreRoundTrips(t *testing.T) {
	ctx := context.Background()
	cfg := populated(t)
	before := capture(t, cfg)
	set := filepath.Join(t.TempDir(), "set")
	m, err := Create(ctx, cfg, set)
	if err != nil {
		t.Fatal(err)
	}
	if m.Store == nil || m.Store.Chunks != 40 || len(m.Files) != 11 {
		t.Fatalf("manifest: store %+v, %d files", m.Store, len(m.Files))
	}
	if st, _ := os.Stat(set); st.Mode().Perm() != 0o700 {
		t.Fatalf("set mode %v", st.Mode().Perm())
	}

	wipe(t, cfg)
	res, err := Restore(ctx, cfg, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restored) != 8 || len(res.Warnings) != 0 {
		t.Fatalf("restore result %+v", res)
	}
	restoredTo(t, cfg, before, "restore")
	// The restored store opens as a store and passes the integrity check.
	s, err := kb.Open(cfg.RAG.Dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := kb.CheckIntegrity(ctx, kb.StorePath(cfg.RAG.Dir), false); err != nil {
		t.Fatal(err)
	}

	// Restoring over live (changed) data replaces it whole.
	os.WriteFile(filepath.Join(cfg.SessionsDir(), "20260103-000000-cccccccccccc.json"), []byte("{}"), 0o600)
	if _, err := Restore(ctx, cfg, set); err != nil {
		t.Fatal(err)
	}
	sameState(t, before, capture(t, cfg))
}

// A set made before the ledger was backed up (or with nothing sent yet)
// restores everything else and leaves the record of what was sent alone.
func TestRestoringASetWithoutALedgerKeepsTheCurrentOne(t *testing.T) {
	ctx := context.Background()
	cfg := populated(t)
	sent := ledgerRows(t, cfg)
	if err := os.RemoveAll(cfg.LedgerDir()); err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(t.TempDir(), "set")
	m, err := Create(ctx, cfg, set)
	if err != nil {
		t.Fatal(err)
	}
	if holds(m, "ledger") {
		t.Fatal("a set of a data dir without a ledger holds one")
	}
	populatedLedger := populated(t)
	if err := os.Rename(populatedLedger.LedgerDir(), cfg.LedgerDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(ctx, cfg, set); err != nil {
		t.Fatal(err)
	}
	if got := ledgerRows(t, cfg); len(got) != len(sent) || len(got) == 0 {
		t.Fatalf("ledger after restore: %v", got)
	}
}

func TestBackupRefusesANonEmptyFolder(t *testing.T) {
	cfg := populated(t)
	dest := t.TempDir()
	os.WriteFile(filepath.Join(dest, "mine.txt"), []byte("x"), 0o600)
	if _, err := Create(context.Background(), cfg, dest); !errs.Is(err, errs.Conflict) {
		t.Fatalf("want conflict: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "mine.txt")); string(b) != "x" {
		t.Fatal("the user's file was touched")
	}
}

func TestRestoreRefusesCorruptOrMismatchedSets(t *testing.T) {
	ctx := context.Background()
	cfg := populated(t)
	master := filepath.Join(t.TempDir(), "master")
	if _, err := Create(ctx, cfg, master); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	cfg2 := populated(t)
	os.WriteFile(filepath.Join(cfg2.PromptsDir(), "system_prompt.md"), []byte("another prompt\n"), 0o600)
	if _, err := Create(ctx, cfg2, other); err != nil {
		t.Fatal(err)
	}
	// The live data the refused restores must leave alone differs from the set.
	os.WriteFile(filepath.Join(cfg.SessionsDir(), "20260109-000000-dddddddddddd.json"), []byte(`{"live":true}`), 0o600)
	live := capture(t, cfg)

	editManifest := func(set string, edit func(*Manifest)) {
		b, _ := os.ReadFile(filepath.Join(set, ManifestName))
		var m Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		edit(&m)
		b, _ = json.Marshal(m)
		os.WriteFile(filepath.Join(set, ManifestName), b, 0o600)
	}
	cases := []struct {
		name, want string
		spoil      func(set string)
	}{
		{"flipped byte", "does not match its checksum", func(set string) {
			p := filepath.Join(set, "sessions", "20260101-000000-aaaaaaaaaaaa.json")
			b, _ := os.ReadFile(p)
			b[3] ^= 1
			os.WriteFile(p, b, 0o600)
		}},
		{"file missing", "missing from the set", func(set string) {
			os.Remove(filepath.Join(set, "prompts", "system_prompt.md"))
		}},
		{"file not in the manifest", "not in its manifest", func(set string) {
			os.WriteFile(filepath.Join(set, "drafts", "stray.md"), []byte("x"), 0o600)
		}},
		{"manifest of another set", "does not match its checksum", func(set string) {
			b, _ := os.ReadFile(filepath.Join(other, ManifestName))
			os.WriteFile(filepath.Join(set, ManifestName), b, 0o600)
		}},
		{"no manifest", "not a backup set", func(set string) { os.Remove(filepath.Join(set, ManifestName)) }},
		{"torn manifest", "manifest", func(set string) {
			os.WriteFile(filepath.Join(set, ManifestName), []byte(`{"format":"jarvis-backup","vers`), 0o600)
		}},
		{"path outside the set", "outside the set", func(set string) {
			editManifest(set, func(m *Manifest) { m.Files[1].Path = "sessions/../../../etc/passwd" })
		}},
		{"damaged store with a matching checksum", "damaged", func(set string) {
			p := filepath.Join(set, "rag", kb.DBName)
			if err := kbtest.Damage(p); err != nil {
				t.Fatal(err)
			}
			f, _ := describe(p, storeFile)
			editManifest(set, func(m *Manifest) {
				for i := range m.Files {
					if m.Files[i].Path == storeFile {
						m.Files[i] = f
					}
				}
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := filepath.Join(t.TempDir(), "set")
			if err := os.CopyFS(set, os.DirFS(master)); err != nil {
				t.Fatal(err)
			}
			c.spoil(set)
			_, err := Restore(ctx, cfg, set)
			if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an invalid-set error mentioning %q: %v", c.want, err)
			}
			restoredTo(t, cfg, live, "a refused restore")
		})
	}
}

func TestFailedSwapPutsEverythingBack(t *testing.T) {
	ctx := context.Background()
	cfg, set := backedUp(t)
	os.WriteFile(filepath.Join(cfg.Drafts.Dir, "d1", "paper.tex"), []byte("edited after the backup\n"), 0o600)
	os.Remove(filepath.Join(cfg.SessionsDir(), "20260101-000000-aaaaaaaaaaaa.json"))
	live := capture(t, cfg)
	for after := range 5 {
		failSwapAfter = after
		_, err := Restore(ctx, cfg, set)
		failSwapAfter = -1
		if !errs.Is(err, errs.Internal) || !strings.Contains(err.Error(), "previous data is back") {
			t.Fatalf("swap failing after %d parts: %v", after, err)
		}
		restoredTo(t, cfg, live, "a failed swap")
	}
}

func TestRestoreRefusesWhileJarvisRuns(t *testing.T) {
	ctx := context.Background()
	cfg, set := backedUp(t)
	hold, err := daemon.HoldDataDir(cfg) // what the window, the tray and sync hold
	if err != nil {
		t.Fatal(err)
	}
	live := capture(t, cfg)
	if _, err := Restore(ctx, cfg, set); !errs.Is(err, errs.Conflict) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("want a conflict while the data dir is in use: %v", err)
	}
	sameState(t, live, capture(t, cfg))
	hold.Release()
	if _, err := Restore(ctx, cfg, set); err != nil {
		t.Fatalf("after the holder left: %v", err)
	}
}
