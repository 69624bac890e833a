package vault

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// Refresher syncs a vault into the knowledge base.
type Refresher struct {
	Root        string
	PrivateDirs []string
	// Exclude lists vault-relative folders or globs never indexed
	// (templates, attachments, archives); notes under them are removed.
	Exclude []string
	Store   *kb.Store
	// Embed, when set, embeds each note as it is stored; nil stores notes
	// with pending vectors for the backfill (the engine's choice: keyword
	// search has them at once and a big vault is not held up by a model).
	Embed        kb.Embedder
	ChunkSize    int
	ChunkOverlap int
	// Progress, when set, is told how many files have been looked at.
	Progress func(done, total int)
	// ReadImage, when set (vault.index_images with OCR present), reads the
	// text of an image in the vault, with OCR's mean confidence; images are
	// then indexed as notes, private in a private folder like any note.
	ReadImage func(ctx context.Context, abs string) (text string, confidence float64, err error)
}

// Result counts what a refresh did.
type Result struct {
	Added, Updated, Deleted int
	Reclassified            int // visibility changed, metadata only
	Migrated                int // meta_schema stamped, metadata only
	// Withdrawn counts public copies of files that are private now (added
	// with kb add or by the inbox before their folder was private).
	Withdrawn int
	Warnings  []string
}

// Refresh adds new notes, re-indexes changed ones (by content hash; files
// whose mtime did not move are skipped without being read), removes notes
// that no longer exist, and re-derives visibility for unchanged notes so a
// change to private_dirs reclassifies them without re-embedding. Each file is
// its own atomic commit, so a stop leaves whole files indexed, never half.
func (r *Refresher) Refresh(ctx context.Context) (Result, error) {
	var res Result
	if st, err := os.Stat(r.Root); err != nil || !st.IsDir() {
		return res, errs.New(errs.NotFound, "vault.Refresh", "vault %s does not exist (set vault.path or VAULT_PATH)", r.Root)
	}
	states, err := r.Store.NoteStates(ctx)
	if err != nil {
		return res, err
	}
	files, outside, err := r.list()
	if err != nil {
		return res, err
	}
	if len(outside) > 0 {
		// One line per refresh, however many links: they are skipped, not
		// broken, and a sync every few minutes must not flood the log.
		res.Warnings = append(res.Warnings, outsideWarning(outside))
	}
	seen := map[string]bool{}
	for i, rel := range files {
		if r.Progress != nil && (i%50 == 0 || i == len(files)-1) {
			r.Progress(i+1, len(files))
		}
		if err := ctx.Err(); err != nil {
			return res, errs.Wrap(errs.Cancelled, "vault.Refresh", err)
		}
		seen[rel] = true
		if err := r.one(ctx, rel, states, &res); err != nil {
			if stopsRefresh(err) {
				return res, err
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v", rel, err))
		}
	}
	gone := make([]string, 0)
	for rel := range states {
		if !seen[rel] {
			gone = append(gone, rel)
		}
	}
	sort.Strings(gone)
	for _, rel := range gone {
		if err := r.Store.CommitReplacing(nil, noteFilter(rel)); err != nil {
			return res, err
		}
		res.Deleted++
	}
	return res, r.withdrawPublicCopies(ctx, &res)
}

// withdrawPublicCopies removes the public documents made of files that
// are private now: a PDF or an image of the vault added with kb add (or
// by the inbox) while its folder was public, once the folder is made
// private or the file is moved into a private one. The vault's own note
// of the file is reclassified above; no public copy may outlive it.
func (r *Refresher) withdrawPublicCopies(ctx context.Context, res *Result) error {
	roots := []string{r.Root}
	if real, err := filepath.EvalSymlinks(r.Root); err == nil && real != r.Root {
		roots = append(roots, real) // copies are stored by their resolved path
	}
	var dirs []string
	for _, root := range roots {
		for _, p := range r.PrivateDirs {
			if p = strings.Trim(strings.TrimSpace(p), "/"); p != "" {
				dirs = append(dirs, filepath.Join(root, filepath.FromSlash(p)))
			}
		}
	}
	copies, err := r.Store.PublicCopiesOfPrivate(ctx, dirs)
	if err != nil {
		return err
	}
	for _, d := range copies {
		if _, err := r.Store.DeleteWhere(ctx, kb.Filter{Source: d.Source, FilePath: d.FilePath, Visibility: []string{kb.Public}}); err != nil {
			return err
		}
		res.Withdrawn++
		res.Warnings = append(res.Warnings, fmt.Sprintf("removed the public copy %q of %s: the file is private now", cmp.Or(d.Title, filepath.Base(d.FilePath)), d.FilePath))
	}
	return nil
}

// stopsRefresh tells store-wide failures (cancelled, the store broken or
// busy) from one note's problem, which is a warning and the refresh goes on.
func stopsRefresh(err error) bool {
	return errs.Is(err, errs.Cancelled) || errs.Is(err, errs.RAG) || errs.Is(err, errs.Conflict)
}

func noteFilter(rel string) *kb.Filter {
	return &kb.Filter{Source: kb.SourceVault, FilePath: rel, DocTypes: []string{kb.DocNote}}
}

// list returns vault-relative paths of .md files, skipping hidden folders
// and files (.obsidian, .trash, dotfiles) and excluded folders and globs.
// Links that resolve outside the vault are returned apart, never read: a
// link named x.md may point at any file on the machine.
func (r *Refresher) list() (files, outside []string, err error) {
	realRoot, err := filepath.EvalSymlinks(r.Root)
	if err != nil {
		return nil, nil, errs.Wrap(errs.NotFound, "vault.list", err)
	}
	err = filepath.WalkDir(r.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(r.Root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if d.IsDir() {
			if p != r.Root && (strings.HasPrefix(name, ".") || Excluded(r.Exclude, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !r.indexes(name) || Excluded(r.Exclude, rel) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // dangling
			}
			if _, inside := within(realRoot, real); !inside {
				outside = append(outside, rel)
				return nil
			}
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return nil // dangling or non-file symlink
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		return nil, nil, errs.Wrap(errs.Internal, "vault.list", err)
	}
	sort.Strings(files)
	return files, outside, nil
}

func outsideWarning(links []string) string {
	return fmt.Sprintf("%d link(s) point outside the vault and are not indexed: %s", len(links), strings.Join(links, ", "))
}

// IsNoteName reports whether a file name is a note the vault indexes:
// Markdown, not hidden.
func IsNoteName(name string) bool {
	return !strings.HasPrefix(name, ".") && strings.EqualFold(filepath.Ext(name), ".md")
}

// IsImageName reports whether a file name is an image OCR can read.
func IsImageName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp":
		return !strings.HasPrefix(name, ".")
	}
	return false
}

// indexes reports whether the refresher indexes a file of this name.
func (r *Refresher) indexes(name string) bool {
	return IsNoteName(name) || r.ReadImage != nil && IsImageName(name)
}

// Excluded reports whether the vault-relative slash path rel falls under
// one of the patterns: a folder (everything under it), a file, or a glob
// matched against the path and each of its parent folders.
func Excluded(patterns []string, rel string) bool {
	for _, pat := range patterns {
		pat = strings.Trim(strings.TrimSpace(pat), "/")
		if pat == "" {
			continue
		}
		for p := rel; p != "." && p != ""; p = path.Dir(p) {
			if p == pat {
				return true
			}
			if ok, _ := path.Match(pat, p); ok { // patterns are validated with the config
				return true
			}
		}
	}
	return false
}

func (r *Refresher) one(ctx context.Context, rel string, states map[string]kb.NoteState, res *Result) error {
	abs := filepath.Join(r.Root, filepath.FromSlash(rel))
	if _, inside := Locate(r.Root, abs); !inside {
		return errs.New(errs.Invalid, "vault", "it links outside the vault; not indexed")
	}
	info, err := os.Stat(abs)
	if err != nil {
		return err
	}
	mtime := info.ModTime().UTC().Format(time.RFC3339Nano)
	vis := Visibility(r.Root, abs, r.PrivateDirs)
	state, known := states[rel]
	// Cheap path: mtime unchanged and schema current — never read the file.
	if known && state.ModifiedAt == mtime && state.MetaSchema >= MetaSchema {
		if state.Visibility != vis {
			if _, err := r.Store.UpdateFields(ctx, *noteFilter(rel), map[string]any{"visibility": vis}); err != nil {
				return err
			}
			res.Reclassified++
		}
		return nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	yamlBlock, _, hasFrontmatter := SplitFrontmatter(string(data))
	// An older schema read the same bytes into other metadata. Where the
	// change is in the columns only, restamp them, keeping the chunks and
	// their vectors; where it adds fields (stored with each chunk, not a
	// column), the note is indexed afresh.
	var migrated Record
	inPlace := false
	if known && state.ContentHash == hash && state.MetaSchema >= 2 && state.MetaSchema < MetaSchema && hasFrontmatter {
		migrated, _ = ParseRecord(yamlBlock) // its warnings are given when the note is indexed afresh
		inPlace = migratesInPlace(state.MetaSchema, migrated)
	}
	if known && state.ContentHash == hash && (state.MetaSchema >= MetaSchema || !hasFrontmatter || inPlace) {
		// Same bytes: stamp what changed without re-embedding.
		fields := map[string]any{"modified_at": mtime}
		reclassified, migrates := state.Visibility != vis, state.MetaSchema < MetaSchema
		if reclassified {
			fields["visibility"] = vis
		}
		if migrates {
			fields["meta_schema"] = MetaSchema
		}
		if inPlace {
			fields["event_date"] = migrated.EventDate
		}
		// Only if the store still holds these bytes: another process may
		// have stored another version since states was read (and the file
		// changed back since), which only indexing afresh replaces.
		n, err := r.Store.UpdateFieldsIf(ctx, *noteFilter(rel), kb.Stored{ContentHash: hash}, fields)
		if err != nil {
			return err
		}
		if n > 0 {
			if reclassified {
				res.Reclassified++
			}
			if migrates {
				res.Migrated++
			}
			return nil
		}
	}
	note := Note{FilePath: rel, Source: kb.SourceVault, Text: string(data), Hash: hash, ModifiedAt: mtime, Visibility: vis}
	var chunks []kb.Chunk
	var warnings []string
	if IsImageName(path.Base(rel)) {
		if chunks, err = r.imageNote(ctx, abs, note); err != nil {
			return err
		}
	} else {
		chunks, warnings = BuildNote(note, r.ChunkSize, r.ChunkOverlap)
	}
	for _, w := range warnings {
		res.Warnings = append(res.Warnings, rel+": "+w)
	}
	// The other long-running process (the tray, the window) watches the
	// vault too: if it stored these bytes since states was read, its chunks
	// and their vectors stay, and this refresh has nothing to count.
	written, err := r.Store.IngestChanged(ctx, r.Embed, chunks, noteFilter(rel), kb.Stored{ContentHash: hash, MetaSchema: MetaSchema, Visibility: vis})
	if err != nil || !written {
		return err
	}
	if known {
		res.Updated++
	} else {
		res.Added++
	}
	return nil
}

// migratesInPlace reports whether a note indexed under schema from, its
// bytes unchanged, is brought up to MetaSchema by restamping its columns:
// from 2 the record's date is read differently (event_date), unless a
// date that is not one moved into a field of its own (x_date, x_applied);
// from 3 (and 2) a field whose value is a date gains its ISO companion,
// which only indexing afresh can add.
func migratesInPlace(from int, rec Record) bool {
	if from < 2 {
		return false
	}
	if from < 3 && (rec.Extra["x_date"] != "" || rec.Extra["x_applied"] != "") {
		return false
	}
	for k := range rec.Extra {
		if IsDateField(k) {
			return false
		}
	}
	return true
}

// imageNote is an image of the vault as a note: the text OCR reads off
// it, marked as recognised. An image without words (a photo) is stored
// by its name alone, so it is not read again on every refresh.
func (r *Refresher) imageNote(ctx context.Context, abs string, n Note) ([]kb.Chunk, error) {
	text, conf, err := r.ReadImage(ctx, abs)
	if err != nil && !errs.Is(err, errs.Conversion) {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	n.Text = "Image: " + name + "\n\n" + text
	chunks, _ := BuildNote(n, r.ChunkSize, r.ChunkOverlap)
	for i := range chunks {
		if strings.TrimSpace(text) != "" {
			chunks[i].Meta.Extra = map[string]string{kb.OCRField: "tesseract", kb.OCRConfidenceField: strconv.Itoa(int(conf + 0.5))}
		}
	}
	return chunks, nil
}

// Note is one Markdown note to be chunked, with the metadata that
// identifies it in the store.
type Note struct {
	FilePath   string // vault-relative for vault notes, absolute otherwise
	Source     string // "local" for vault notes, file://... for standalone files
	Text       string
	Hash       string
	ModifiedAt string
	Visibility string
}

// BuildNote turns a note into chunks without touching the store. Record
// fields go in first; Jarvis's own fields are set after, so they win any
// collision.
func BuildNote(n Note, size, overlap int) ([]kb.Chunk, []string) {
	block, body, ok := SplitFrontmatter(n.Text)
	var rec Record
	var warnings []string
	if ok {
		rec, warnings = ParseRecord(block)
	}
	title := strings.TrimSuffix(filepath.Base(n.FilePath), filepath.Ext(n.FilePath))
	chunks := kb.ChunkMarkdown(body, size, overlap, rec.Header())
	for i := range chunks {
		m := &chunks[i].Meta
		rec.Apply(m)
		m.DocType, m.Visibility, m.Source, m.FilePath = kb.DocNote, n.Visibility, n.Source, n.FilePath
		m.Title, m.ContentHash, m.ModifiedAt, m.MetaSchema = title, n.Hash, n.ModifiedAt, MetaSchema
		m.StorageMode, m.ChunkIndex = "full_text", i
	}
	return chunks, warnings
}

// RefreshFile brings one path of the vault (absolute or vault-relative) in
// line with the disk, exactly as a full refresh would for it: a note is
// (re)indexed, and a path that is gone, excluded, hidden, not a note or a
// link out of the vault is removed from the index if it was there. The
// live watcher calls it for every path an editor touched.
func (r *Refresher) RefreshFile(ctx context.Context, p string) (Result, error) {
	return r.RefreshFiles(ctx, []string{p})
}

// RefreshFiles is RefreshFile for several paths, reading the index's note
// states once. A path outside the vault is refused; a failure on one note
// is a warning and the others go on, like a full refresh.
func (r *Refresher) RefreshFiles(ctx context.Context, paths []string) (Result, error) {
	const op = "vault.RefreshFile"
	var res Result
	states, err := r.Store.NoteStates(ctx)
	if err != nil {
		return res, err
	}
	for _, p := range paths {
		rel := p
		if filepath.IsAbs(p) {
			var err error
			if rel, err = filepath.Rel(r.Root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return res, errs.New(errs.Invalid, op, "%s is not inside the vault %s", p, r.Root)
			}
		}
		rel = filepath.ToSlash(filepath.Clean(rel))
		if err := r.syncPath(ctx, rel, states, &res); err != nil {
			if stopsRefresh(err) {
				return res, err
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v", rel, err))
		}
	}
	return res, nil
}

// syncPath brings one vault-relative path in line with the disk.
func (r *Refresher) syncPath(ctx context.Context, rel string, states map[string]kb.NoteState, res *Result) error {
	abs := filepath.Join(r.Root, filepath.FromSlash(rel))
	keep := r.indexes(path.Base(rel)) && !Excluded(r.Exclude, rel) && !HiddenPath(rel)
	if keep {
		if st, err := os.Stat(abs); err != nil || !st.Mode().IsRegular() {
			keep = false
		} else if realRoot, err := filepath.EvalSymlinks(r.Root); err == nil {
			if target, err := filepath.EvalSymlinks(abs); err != nil {
				keep = false
			} else if _, in := within(realRoot, target); !in {
				res.Warnings = append(res.Warnings, outsideWarning([]string{rel}))
				keep = false
			}
		}
	}
	if !keep {
		if _, known := states[rel]; known {
			if err := r.Store.CommitReplacing(nil, noteFilter(rel)); err != nil {
				return err
			}
			delete(states, rel)
			res.Deleted++
		}
		return nil
	}
	return r.one(ctx, rel, states, res)
}

// HiddenPath reports whether any component of a slash path is hidden
// (.obsidian/, .trash/, dotfiles).
func HiddenPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}
