// Package models installs and verifies the local ONNX models Jarvis runs
// (embeddings, reranker). Files are fetched once from Hugging Face (or copied
// from a package that ships them, for machines with no network) into
// ~/.jarvis/models/<id>/, checked against the manifest's sha256 or, where the
// manifest has none, pinned on first install in a lock file that later
// verifications compare against.
package models

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
	shipped "github.com/jarvis-kb/jarvis/models"
)

// Manifest lists the models Jarvis knows how to install.
type Manifest struct {
	Schema int     `json:"schema"`
	Models []Model `json:"models"`
}

// Model is one installable model.
type Model struct {
	ID       string `json:"id"`       // hub id, e.g. "BAAI/bge-small-en-v1.5"
	Role     string `json:"role"`     // "embed" or "rerank"
	Revision string `json:"revision"` // hub revision (commit or branch)
	License  string `json:"license"`
	Dims     int    `json:"dims,omitempty"`
	Pooling  string `json:"pooling,omitempty"` // "cls" or "mean", embed models only
	// QueryPrefix and PassagePrefix are what the model was trained to see
	// before a query and before a passage (BGE: an instruction on queries;
	// E5: "query: " and "passage: ").
	QueryPrefix   string `json:"query_prefix,omitempty"`
	PassagePrefix string `json:"passage_prefix,omitempty"`
	// Languages is "en" for a model that knows English only, or
	// "multilingual".
	Languages string `json:"languages,omitempty"`
	Note      string `json:"note,omitempty"` // for the user, where a choice is offered
	// DownloadMB is the approximate size of the files, for the button.
	DownloadMB int    `json:"download_mb,omitempty"`
	Source     Source `json:"source"`
	Files      []File `json:"files"`
}

// Source says where a model's files come from.
type Source struct {
	Kind    string `json:"kind"`              // "huggingface" or "package"
	Package string `json:"package,omitempty"` // for kind=package: the package that ships it
	Dir     string `json:"dir,omitempty"`     // for kind=package: path inside the package
}

// File is one file of a model, relative to the model's root.
type File struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // empty: pinned on first install
}

// Lock records what was installed, so later loads can detect a changed or
// truncated file.
type Lock struct {
	ID       string            `json:"id"`
	Revision string            `json:"revision"`
	Origin   string            `json:"origin"` // URL base or source directory
	Files    map[string]string `json:"files"`  // path -> sha256
}

const lockName = ".jarvis-lock.json"

// Load parses the shipped manifest.
func Load() (*Manifest, error) { return Parse(shipped.Manifest) }

// Parse decodes and checks a manifest.
func Parse(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, errs.Wrap(errs.Internal, "models.Parse", err)
	}
	for _, model := range m.Models {
		if model.ID == "" || len(model.Files) == 0 {
			return nil, errs.New(errs.Internal, "models.Parse", "manifest entry %q has no id or no files", model.ID)
		}
		for _, f := range model.Files {
			if err := checkRelPath(f.Path); err != nil {
				return nil, errs.Wrapf(errs.Internal, "models.Parse", err, "model %s", model.ID)
			}
		}
	}
	return &m, nil
}

// Find returns the manifest entry for id.
func (m *Manifest) Find(id string) (Model, error) {
	for _, model := range m.Models {
		if model.ID == id {
			return model, nil
		}
	}
	known := make([]string, len(m.Models))
	for i, model := range m.Models {
		known[i] = model.ID
	}
	return Model{}, errs.New(errs.NotFound, "models", "model %q is not in the manifest (known: %s)", id, strings.Join(known, ", "))
}

// Dir is where a model's files live under modelsDir. The hub id's slash
// becomes a double underscore so every model is one directory deep.
func Dir(modelsDir, id string) string {
	return filepath.Join(modelsDir, strings.ReplaceAll(id, "/", "__"))
}

// checkRelPath refuses manifest paths that could escape the model dir.
func checkRelPath(p string) error {
	clean := filepath.Clean(p)
	if p == "" || filepath.IsAbs(p) || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(p, "\\") {
		return fmt.Errorf("unsafe file path %q", p)
	}
	return nil
}

// Status describes an installed (or missing) model.
type Status struct {
	Model     Model    `json:"model"`
	Dir       string   `json:"dir"`
	Installed bool     `json:"installed"`
	Missing   []string `json:"missing,omitempty"`
}

// Inspect reports whether every file of model is present under modelsDir.
// It does not hash; Verify does.
func Inspect(modelsDir string, model Model) Status {
	st := Status{Model: model, Dir: Dir(modelsDir, model.ID)}
	for _, f := range model.Files {
		if _, err := os.Stat(filepath.Join(st.Dir, f.Path)); err != nil {
			st.Missing = append(st.Missing, f.Path)
		}
	}
	st.Installed = len(st.Missing) == 0
	return st
}

// Verify re-hashes every file and compares against the manifest's sha256 and
// the lock written at install time.
func Verify(modelsDir string, model Model) error {
	const op = "models.Verify"
	dir := Dir(modelsDir, model.ID)
	lock, err := readLock(dir)
	if err != nil {
		return errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "model %s is not installed", model.ID),
			"run `jarvis-cli models fetch` (or `models install-offline`)")
	}
	for _, f := range model.Files {
		sum, err := fsutil.HashFile(filepath.Join(dir, f.Path))
		if err != nil {
			return errs.Wrapf(errs.NotFound, op, err, "model %s: %s", model.ID, f.Path)
		}
		want := f.SHA256
		if want == "" {
			want = lock.Files[f.Path]
		}
		if want == "" || sum != want {
			return errs.WithHint(errs.New(errs.Invalid, op, "model %s: %s has sha256 %s, expected %s", model.ID, f.Path, sum, want),
				"reinstall the model")
		}
	}
	return nil
}

func readLock(dir string) (*Lock, error) {
	b, err := os.ReadFile(filepath.Join(dir, lockName))
	if err != nil {
		return nil, err
	}
	var l Lock
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("corrupt lock file: %w", err)
	}
	return &l, nil
}

// install stages a model's files into <dir>.partial via open, checking each
// against the manifest's checksum, then swaps the staged dir into place so a
// failed or cancelled install leaves any previous install untouched.
func install(modelsDir string, model Model, origin string, open func(File) (io.ReadCloser, error), progress func(path string, n int64)) error {
	const op = "models.install"
	if err := fsutil.EnsurePrivateDir(modelsDir); err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	final := Dir(modelsDir, model.ID)
	staging := final + ".partial"
	if err := os.RemoveAll(staging); err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	lock := Lock{ID: model.ID, Revision: model.Revision, Origin: origin, Files: map[string]string{}}
	cleanup := func(err error) error {
		_ = os.RemoveAll(staging) // staging is ours alone; the real error is returned
		return err
	}
	for _, f := range model.Files {
		sum, err := copyOne(staging, f, open, progress)
		if err != nil {
			return cleanup(err)
		}
		if f.SHA256 != "" && sum != f.SHA256 {
			return cleanup(errs.New(errs.Fetch, op, "model %s: %s has sha256 %s, the manifest pins %s; refusing to install", model.ID, f.Path, sum, f.SHA256))
		}
		lock.Files[f.Path] = sum
	}
	lb, _ := json.MarshalIndent(lock, "", "  ") // a map and strings always marshal
	if err := fsutil.WriteFileAtomic(filepath.Join(staging, lockName), lb, 0o600); err != nil {
		return cleanup(errs.Wrap(errs.Internal, op, err))
	}
	old := final + ".old"
	_ = os.RemoveAll(old) // leftover of an interrupted swap, if any
	if err := os.Rename(final, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cleanup(errs.Wrap(errs.Internal, op, err))
	}
	if err := os.Rename(staging, final); err != nil {
		_ = os.Rename(old, final) // put the previous install back
		return cleanup(errs.Wrap(errs.Internal, op, err))
	}
	if err := os.RemoveAll(old); err != nil {
		return errs.Wrapf(errs.Internal, op, err, "installed, but could not remove %s", old)
	}
	return nil
}

func copyOne(staging string, f File, open func(File) (io.ReadCloser, error), progress func(string, int64)) (string, error) {
	src, err := open(f)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst := filepath.Join(staging, f.Path)
	if err := os.MkdirAll(filepath.Dir(dst), fsutil.PrivateDirMode); err != nil {
		return "", errs.Wrap(errs.Internal, "models.install", err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", errs.Wrap(errs.Internal, "models.install", err)
	}
	h := sha256.New()
	var w io.Writer = io.MultiWriter(out, h)
	if progress != nil {
		w = &progressWriter{w: w, path: f.Path, report: progress}
	}
	if _, err := io.Copy(w, src); err != nil {
		out.Close()
		return "", errs.Wrapf(errs.Fetch, "models.install", err, "copying %s", f.Path)
	}
	if err := out.Close(); err != nil {
		return "", errs.Wrap(errs.Internal, "models.install", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type progressWriter struct {
	w      io.Writer
	path   string
	n      int64
	report func(string, int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += int64(n)
	p.report(p.path, p.n)
	return n, err
}

// InstallFrom copies a model from a local directory (an unpacked package that
// ships the files), verifying checksums exactly as a download would.
func InstallFrom(srcDir, modelsDir string, model Model) error {
	return install(modelsDir, model, srcDir, func(f File) (io.ReadCloser, error) {
		r, err := os.Open(filepath.Join(srcDir, f.Path))
		if err != nil {
			return nil, errs.Wrapf(errs.NotFound, "models.InstallFrom", err, "model %s: %s missing from %s", model.ID, f.Path, srcDir)
		}
		return r, nil
	}, nil)
}
