package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

var files = map[string]string{
	"onnx/model.onnx": strings.Repeat("w", 4096),
	"tokenizer.json":  `{"model":"wordpiece"}`,
}

func testModel(pin bool) Model {
	m := Model{ID: "org/tiny-model", Revision: "abc123", Role: "embed"}
	for _, p := range []string{"onnx/model.onnx", "tokenizer.json"} {
		f := File{Path: p}
		if pin {
			f.SHA256 = sum(files[p])
		}
		m.Files = append(m.Files, f)
	}
	return m
}

// hub serves files the way Hugging Face's resolve endpoint does.
func hub(t *testing.T, content map[string]string, hits *atomic.Int32) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		prefix := "/org/tiny-model/resolve/abc123/"
		if !strings.HasPrefix(r.URL.Path, prefix) {
			http.NotFound(w, r)
			return
		}
		body, ok := content[strings.TrimPrefix(r.URL.Path, prefix)]
		if !ok {
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestShippedManifestNamesTheDefaults(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"BAAI/bge-small-en-v1.5", "cross-encoder/ms-marco-MiniLM-L6-v2"} {
		model, err := m.Find(id)
		if err != nil {
			t.Fatal(err)
		}
		if model.License == "" || model.Revision == "" || len(model.Files) == 0 {
			t.Fatalf("%s: incomplete entry %+v", id, model)
		}
	}
	if _, err := m.Find("nope/nope"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

func TestFetchInstallsAndPinsOnFirstUse(t *testing.T) {
	var hits atomic.Int32
	srv := hub(t, files, &hits)
	dir := t.TempDir()
	var progressed atomic.Int64
	f := &Fetcher{BaseURL: srv.URL, Progress: func(_ string, n int64) { progressed.Store(n) }}
	model := testModel(false)
	if err := f.Fetch(context.Background(), dir, model); err != nil {
		t.Fatal(err)
	}
	if st := Inspect(dir, model); !st.Installed {
		t.Fatalf("not installed: %+v", st)
	}
	got, _ := os.ReadFile(filepath.Join(Dir(dir, model.ID), "onnx/model.onnx"))
	if string(got) != files["onnx/model.onnx"] {
		t.Fatal("content mismatch")
	}
	if progressed.Load() == 0 {
		t.Fatal("no progress reported")
	}
	if err := Verify(dir, model); err != nil {
		t.Fatalf("fresh install must verify: %v", err)
	}
	// Tampering after install is caught by the pinned lock.
	if err := os.WriteFile(filepath.Join(Dir(dir, model.ID), "tokenizer.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, model); !errs.Is(err, errs.Invalid) {
		t.Fatalf("tampered file must fail verification: %v", err)
	}
}

func TestFetchRefusesChecksumMismatchAndKeepsOldInstall(t *testing.T) {
	var hits atomic.Int32
	good := hub(t, files, &hits)
	dir := t.TempDir()
	model := testModel(true)
	if err := (&Fetcher{BaseURL: good.URL}).Fetch(context.Background(), dir, model); err != nil {
		t.Fatal(err)
	}
	evil := map[string]string{"onnx/model.onnx": "poisoned", "tokenizer.json": files["tokenizer.json"]}
	bad := hub(t, evil, &hits)
	err := (&Fetcher{BaseURL: bad.URL}).Fetch(context.Background(), dir, model)
	if !errs.Is(err, errs.Fetch) || !strings.Contains(err.Error(), "refusing to install") {
		t.Fatalf("mismatch: %v", err)
	}
	if err := Verify(dir, model); err != nil {
		t.Fatalf("previous install must survive a refused update: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("staging left behind: %v", entries)
	}
}

func TestFetchReportsMissingFileAndUnreachableHub(t *testing.T) {
	var hits atomic.Int32
	srv := hub(t, map[string]string{"onnx/model.onnx": files["onnx/model.onnx"]}, &hits)
	dir := t.TempDir()
	err := (&Fetcher{BaseURL: srv.URL}).Fetch(context.Background(), dir, testModel(false))
	if !errs.Is(err, errs.Fetch) || !strings.Contains(err.Error(), "404") {
		t.Fatalf("missing file: %v", err)
	}
	if Inspect(dir, testModel(false)).Installed {
		t.Fatal("partial download must not look installed")
	}
	err = (&Fetcher{BaseURL: "http://127.0.0.1:1"}).Fetch(context.Background(), dir, testModel(false))
	if !errs.Is(err, errs.Fetch) || errs.HintOf(err) == "" {
		t.Fatalf("unreachable hub should be a fetch error with a hint: %v", err)
	}
}

func TestFetchCancelled(t *testing.T) {
	var hits atomic.Int32
	srv := hub(t, files, &hits)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := (&Fetcher{BaseURL: srv.URL}).Fetch(ctx, t.TempDir(), testModel(false))
	if !errs.Is(err, errs.Cancelled) {
		t.Fatalf("cancelled fetch: %v", err)
	}
}

func TestInstallFromPackageDir(t *testing.T) {
	src := t.TempDir()
	for p, body := range files {
		os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(body), 0o644)
	}
	dir := t.TempDir()
	model := testModel(true)
	if err := InstallFrom(src, dir, model); err != nil {
		t.Fatal(err)
	}
	if err := Verify(dir, model); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(src, "tokenizer.json"))
	if err := InstallFrom(src, t.TempDir(), model); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing source file: %v", err)
	}
}

func TestParseRejectsEscapingPaths(t *testing.T) {
	_, err := Parse([]byte(`{"models":[{"id":"a/b","files":[{"path":"../../etc/passwd"}]}]}`))
	if err == nil {
		t.Fatal("path traversal in a manifest must be refused")
	}
}
