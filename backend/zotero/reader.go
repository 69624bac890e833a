package zotero

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// The files of a data directory.
const (
	DBName  = "zotero.sqlite"
	journal = DBName + "-journal" // a rollback journal: Zotero is mid-transaction
	wal     = DBName + "-wal"
)

// copyRetry is how often and how long apart Read tries for a copy that did
// not change under it; tests shorten it.
var copyRetry = struct {
	attempts int
	wait     time.Duration
}{attempts: 5, wait: 400 * time.Millisecond}

// Stat returns the library's fingerprint (size and modification time of
// zotero.sqlite and of its WAL) without reading it: it changes whenever
// Zotero writes.
func Stat(dir string) (string, error) {
	const op = "zotero.Stat"
	st, err := os.Stat(filepath.Join(dir, DBName))
	if err != nil {
		return "", errs.WithHint(errs.Wrapf(errs.NotFound, op, err, "no %s in %s", DBName, dir),
			"choose Zotero's data folder: the one holding zotero.sqlite and storage/ (Zotero → Settings → Advanced → Files and Folders)")
	}
	print := fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
	if w, err := os.Stat(filepath.Join(dir, wal)); err == nil {
		print += fmt.Sprintf("+%d:%d", w.Size(), w.ModTime().UnixNano())
	}
	return print, nil
}

// Read reads the library in dir from a private copy of its database.
func Read(ctx context.Context, dir string) (*Library, error) {
	const op = "zotero.Read"
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, op, err)
	}
	tmp, err := os.MkdirTemp("", "jarvis-zotero-")
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	defer os.RemoveAll(tmp)
	print, err := copyConsistent(ctx, dir, tmp)
	if err != nil {
		return nil, err
	}
	// Our own copy: opened read-write only so SQLite can apply a copied WAL.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(tmp, DBName)+"?_pragma=query_only(1)")
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	r := &reader{db: db, dir: dir}
	lib, err := r.read(ctx)
	if err != nil {
		return nil, err
	}
	lib.Dir, lib.Fingerprint = dir, print
	return lib, nil
}

// copyConsistent copies the database (and its WAL) into tmp and returns
// the fingerprint the copy was taken at; a copy during which the file
// changed, or taken while a rollback journal says Zotero is writing, is
// thrown away and taken again.
func copyConsistent(ctx context.Context, dir, tmp string) (string, error) {
	const op = "zotero.Read"
	for attempt := 0; ; attempt++ {
		before, err := Stat(dir)
		if err != nil {
			return "", err
		}
		_, jerr := os.Stat(filepath.Join(dir, journal))
		busy := jerr == nil
		if !busy {
			// A retry starts from an empty folder: no part of an earlier copy stays.
			os.Remove(filepath.Join(tmp, DBName))
			os.Remove(filepath.Join(tmp, wal))
			if err := fsutil.CopyNew(filepath.Join(dir, DBName), filepath.Join(tmp, DBName)); err != nil {
				return "", errs.Wrapf(errs.NotFound, op, err, "cannot read %s", DBName)
			}
			if _, err := os.Stat(filepath.Join(dir, wal)); err == nil {
				if err := fsutil.CopyNew(filepath.Join(dir, wal), filepath.Join(tmp, wal)); err != nil {
					return "", errs.Wrapf(errs.NotFound, op, err, "cannot read %s", wal)
				}
			}
			after, err := Stat(dir)
			if err != nil {
				return "", err
			}
			if after == before {
				return before, nil
			}
		}
		if attempt+1 >= copyRetry.attempts {
			return "", errs.WithHint(errs.New(errs.Conflict, op, "%s kept changing while it was read", DBName),
				"Zotero is saving; Jarvis tries again at the next sync")
		}
		select {
		case <-ctx.Done():
			return "", errs.Wrap(errs.Cancelled, op, ctx.Err())
		case <-time.After(copyRetry.wait):
		}
	}
}

type reader struct {
	db  *sql.DB
	dir string
}

// row is one item of any kind, before it is sorted into its place.
type row struct {
	id, parent      int64
	key, typ        string
	version         int
	modified, added time.Time
}

func (r *reader) read(ctx context.Context) (*Library, error) {
	const op = "zotero.Read"
	for _, t := range []string{"items", "itemAnnotations", "itemAttachments", "itemData", "deletedItems"} {
		if !r.hasTable(ctx, t) {
			return nil, errs.WithHint(errs.New(errs.Invalid, op, "%s is not a Zotero database (no %s table)", DBName, t),
				"Jarvis reads the databases of Zotero 6 and newer")
		}
	}
	types, err := r.names(ctx, "itemTypes", "itemTypeID", "typeName")
	if err != nil {
		return nil, err
	}
	fields, err := r.names(ctx, "fields", "fieldID", "fieldName")
	if err != nil {
		return nil, err
	}
	rows := map[int64]*row{}
	q, err := r.db.QueryContext(ctx, `SELECT itemID, itemTypeID, key, version, clientDateModified, dateAdded FROM items`)
	if err != nil {
		return nil, r.fail(err)
	}
	for q.Next() {
		var x row
		var typeID int64
		var modified, added any
		if err := q.Scan(&x.id, &typeID, &x.key, &x.version, &modified, &added); err != nil {
			q.Close()
			return nil, r.fail(err)
		}
		x.typ, x.modified, x.added = types[typeID], zoteroTime(modified), zoteroTime(added)
		rows[x.id] = &x
	}
	q.Close()
	if err := ctx.Err(); err != nil {
		return nil, errs.Wrap(errs.Cancelled, op, err)
	}
	trashed, err := r.ids(ctx, `SELECT itemID FROM deletedItems`)
	if err != nil {
		return nil, err
	}
	values, err := r.itemData(ctx, fields)
	if err != nil {
		return nil, err
	}
	lib := &Library{}
	byID := map[int64]*Item{}
	for id, x := range rows {
		if trashed[id] || x.typ == "attachment" || x.typ == "note" || x.typ == "annotation" {
			continue
		}
		it := &Item{ID: id, Key: x.key, Version: x.version, Modified: x.modified, Added: x.added, Type: x.typ, Fields: values[id]}
		if it.Fields == nil {
			it.Fields = map[string]string{}
		}
		fillFields(it)
		byID[id] = it
	}
	if err := r.creators(ctx, byID); err != nil {
		return nil, err
	}
	if err := r.tags(ctx, byID); err != nil {
		return nil, err
	}
	if lib.Collections, err = r.collections(ctx, byID); err != nil {
		return nil, err
	}
	atts, err := r.attachments(ctx, rows, trashed, values, byID)
	if err != nil {
		return nil, err
	}
	if err := r.annotations(ctx, rows, trashed, atts); err != nil {
		return nil, err
	}
	if err := r.notes(ctx, rows, trashed, byID); err != nil {
		return nil, err
	}
	for _, it := range byID {
		sort.Slice(it.Attachments, func(i, j int) bool { return it.Attachments[i].Key < it.Attachments[j].Key })
		sort.Slice(it.Notes, func(i, j int) bool { return it.Notes[i].Key < it.Notes[j].Key })
		lib.Items = append(lib.Items, *it)
	}
	sort.Slice(lib.Items, func(i, j int) bool { return lib.Items[i].Key < lib.Items[j].Key })
	return lib, nil
}

func (r *reader) fail(err error) error {
	return errs.Wrapf(errs.Invalid, "zotero.Read", err, "cannot read %s", DBName)
}

func (r *reader) hasTable(ctx context.Context, name string) bool {
	var n int
	err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	return err == nil && n > 0
}

// names reads an id → name table, preferring Zotero's "…Combined" copy
// (the global schema plus custom types, filled at start-up) when it holds rows.
func (r *reader) names(ctx context.Context, table, idCol, nameCol string) (map[int64]string, error) {
	out := map[int64]string{}
	for _, t := range []string{table + "Combined", table} {
		if !r.hasTable(ctx, t) {
			continue
		}
		q, err := r.db.QueryContext(ctx, fmt.Sprintf(`SELECT %s, %s FROM %s`, idCol, nameCol, t))
		if err != nil {
			return nil, r.fail(err)
		}
		for q.Next() {
			var id int64
			var name sql.NullString
			if err := q.Scan(&id, &name); err != nil {
				q.Close()
				return nil, r.fail(err)
			}
			out[id] = name.String
		}
		q.Close()
		if len(out) > 0 {
			return out, nil
		}
	}
	return out, nil
}

func (r *reader) ids(ctx context.Context, query string) (map[int64]bool, error) {
	q, err := r.db.QueryContext(ctx, query)
	if err != nil {
		return nil, r.fail(err)
	}
	defer q.Close()
	out := map[int64]bool{}
	for q.Next() {
		var id int64
		if err := q.Scan(&id); err != nil {
			return nil, r.fail(err)
		}
		out[id] = true
	}
	return out, r.failIf(q.Err())
}

func (r *reader) failIf(err error) error {
	if err != nil {
		return r.fail(err)
	}
	return nil
}

func (r *reader) itemData(ctx context.Context, fields map[int64]string) (map[int64]map[string]string, error) {
	q, err := r.db.QueryContext(ctx, `SELECT d.itemID, d.fieldID, v.value FROM itemData d JOIN itemDataValues v ON v.valueID = d.valueID`)
	if err != nil {
		return nil, r.fail(err)
	}
	defer q.Close()
	out := map[int64]map[string]string{}
	for q.Next() {
		var id, field int64
		var v any
		if err := q.Scan(&id, &field, &v); err != nil {
			return nil, r.fail(err)
		}
		if out[id] == nil {
			out[id] = map[string]string{}
		}
		if name := fields[field]; name != "" {
			out[id][name] = fmt.Sprint(v)
		}
	}
	return out, r.failIf(q.Err())
}

var (
	yearRe   = regexp.MustCompile(`\b([12]\d{3})\b`)
	doiInRe  = regexp.MustCompile(`(?im)^\s*DOI:\s*(10\.\S+)\s*$`)
	pubNames = []string{"publicationTitle", "proceedingsTitle", "bookTitle", "repository", "websiteTitle", "publisher"}
)

// fillFields lifts the fields every paper has out of the item's fields.
func fillFields(it *Item) {
	f := it.Fields
	it.Title = firstOf(f, "title", "caseName", "nameOfAct", "subject")
	it.Date = f["date"]
	if m := yearRe.FindStringSubmatch(it.Date); m != nil {
		it.Year = m[1]
	}
	it.DOI = f["DOI"]
	if it.DOI == "" {
		if m := doiInRe.FindStringSubmatch(f["extra"]); m != nil {
			it.DOI = m[1]
		}
	}
	it.Publication = firstOf(f, pubNames...)
	it.Abstract, it.URL = f["abstractNote"], f["url"]
}

func firstOf(f map[string]string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(f[n]); v != "" {
			return v
		}
	}
	return ""
}

func (r *reader) creators(ctx context.Context, byID map[int64]*Item) error {
	types, err := r.names(ctx, "creatorTypes", "creatorTypeID", "creatorType")
	if err != nil {
		return err
	}
	q, err := r.db.QueryContext(ctx, `SELECT ic.itemID, ic.creatorTypeID, c.firstName, c.lastName, c.fieldMode
		FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID ORDER BY ic.itemID, ic.orderIndex`)
	if err != nil {
		return r.fail(err)
	}
	defer q.Close()
	for q.Next() {
		var id, typ int64
		var first, last sql.NullString
		var mode sql.NullInt64
		if err := q.Scan(&id, &typ, &first, &last, &mode); err != nil {
			return r.fail(err)
		}
		it := byID[id]
		if it == nil {
			continue
		}
		c := Creator{Type: types[typ]}
		if mode.Int64 == 1 {
			c.Name = last.String
		} else {
			c.First, c.Last = first.String, last.String
		}
		it.Creators = append(it.Creators, c)
	}
	return r.failIf(q.Err())
}

func (r *reader) tags(ctx context.Context, byID map[int64]*Item) error {
	q, err := r.db.QueryContext(ctx, `SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID`)
	if err != nil {
		return r.fail(err)
	}
	defer q.Close()
	for q.Next() {
		var id int64
		var name string
		if err := q.Scan(&id, &name); err != nil {
			return r.fail(err)
		}
		if it := byID[id]; it != nil {
			it.Tags = append(it.Tags, name)
		}
	}
	for _, it := range byID {
		sort.Strings(it.Tags)
	}
	return r.failIf(q.Err())
}

func (r *reader) collections(ctx context.Context, byID map[int64]*Item) ([]Collection, error) {
	type coll struct {
		key, name string
		parent    sql.NullInt64
	}
	all := map[int64]coll{}
	q, err := r.db.QueryContext(ctx, `SELECT collectionID, key, collectionName, parentCollectionID FROM collections`)
	if err != nil {
		return nil, r.fail(err)
	}
	for q.Next() {
		var id int64
		var c coll
		if err := q.Scan(&id, &c.key, &c.name, &c.parent); err != nil {
			q.Close()
			return nil, r.fail(err)
		}
		all[id] = c
	}
	q.Close()
	var path func(id int64, depth int) string
	path = func(id int64, depth int) string {
		c, ok := all[id]
		if !ok || depth > 64 { // a loop in a damaged database ends here
			return ""
		}
		if c.parent.Valid {
			if p := path(c.parent.Int64, depth+1); p != "" {
				return p + "/" + c.name
			}
		}
		return c.name
	}
	var out []Collection
	paths := map[int64]string{}
	for id, c := range all {
		paths[id] = path(id, 0)
		col := Collection{Key: c.key, Name: c.name, Path: paths[id]}
		if c.parent.Valid {
			col.ParentKey = all[c.parent.Int64].key
		}
		out = append(out, col)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	q, err = r.db.QueryContext(ctx, `SELECT collectionID, itemID FROM collectionItems`)
	if err != nil {
		return nil, r.fail(err)
	}
	defer q.Close()
	for q.Next() {
		var cid, id int64
		if err := q.Scan(&cid, &id); err != nil {
			return nil, r.fail(err)
		}
		if it := byID[id]; it != nil && paths[cid] != "" {
			it.Collections = append(it.Collections, paths[cid])
		}
	}
	for _, it := range byID {
		sort.Strings(it.Collections)
	}
	return out, r.failIf(q.Err())
}

// attachments places each live attachment under its live parent and
// returns them by id, for their annotations.
func (r *reader) attachments(ctx context.Context, rows map[int64]*row, trashed map[int64]bool, values map[int64]map[string]string, byID map[int64]*Item) (map[int64]*Attachment, error) {
	base := r.basePath()
	type found struct {
		parent int64
		a      Attachment
	}
	var list []found
	q, err := r.db.QueryContext(ctx, `SELECT itemID, parentItemID, linkMode, contentType, path FROM itemAttachments`)
	if err != nil {
		return nil, r.fail(err)
	}
	for q.Next() {
		var id int64
		var parent, mode sql.NullInt64
		var ctype, p sql.NullString
		if err := q.Scan(&id, &parent, &mode, &ctype, &p); err != nil {
			q.Close()
			return nil, r.fail(err)
		}
		x := rows[id]
		if x == nil || trashed[id] || !parent.Valid || byID[parent.Int64] == nil {
			continue // standalone or under a trashed item
		}
		a := Attachment{ID: id, Key: x.key, Version: x.version, Modified: x.modified, Title: values[id]["title"],
			ContentType: ctype.String, LinkMode: int(mode.Int64)}
		a.Path = r.resolve(a, p.String, base)
		list = append(list, found{parent.Int64, a})
	}
	q.Close()
	out := map[int64]*Attachment{}
	for _, f := range list {
		it := byID[f.parent]
		it.Attachments = append(it.Attachments, f.a)
	}
	// Pointers into the items' final slices.
	for _, it := range byID {
		for i := range it.Attachments {
			out[it.Attachments[i].ID] = &it.Attachments[i]
		}
	}
	return out, nil
}

// resolve turns itemAttachments.path into a file path.
func (r *reader) resolve(a Attachment, p, base string) string {
	switch {
	case p == "" || a.LinkMode == LinkedURL:
		return ""
	case strings.HasPrefix(p, "storage:"):
		return filepath.Join(r.dir, "storage", a.Key, filepath.Base(filepath.FromSlash(strings.TrimPrefix(p, "storage:"))))
	case strings.HasPrefix(p, "attachments:"):
		if base == "" {
			return ""
		}
		return filepath.Join(base, filepath.FromSlash(strings.TrimPrefix(p, "attachments:")))
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return ""
}

// basePath is the linked-attachment base directory, when Zotero set one
// (kept in the database's settings, or in the profile's prefs.js).
func (r *reader) basePath() string {
	var v sql.NullString
	if err := r.db.QueryRow(`SELECT value FROM settings WHERE setting = 'globalSettings' AND key = 'baseAttachmentPath'`).Scan(&v); err == nil && v.String != "" {
		return v.String
	}
	return ""
}

// position is the part of an annotation's position Jarvis reads.
type position struct {
	PageIndex int          `json:"pageIndex"`
	Rects     [][4]float64 `json:"rects"`
}

var annotationTypes = map[int]string{1: Highlight, 2: Note, 3: Image, 4: Ink, 5: Underline, 6: Text}

func (r *reader) annotations(ctx context.Context, rows map[int64]*row, trashed map[int64]bool, atts map[int64]*Attachment) error {
	q, err := r.db.QueryContext(ctx, `SELECT itemID, parentItemID, type, text, comment, color, pageLabel, sortIndex, position FROM itemAnnotations ORDER BY sortIndex, itemID`)
	if err != nil {
		return r.fail(err)
	}
	defer q.Close()
	for q.Next() {
		var id, parent int64
		var typ int
		var text, comment, color, label, sortIndex, pos sql.NullString
		if err := q.Scan(&id, &parent, &typ, &text, &comment, &color, &label, &sortIndex, &pos); err != nil {
			return r.fail(err)
		}
		x, a := rows[id], atts[parent]
		if x == nil || a == nil || trashed[id] {
			continue
		}
		an := Annotation{ID: id, Key: x.key, Version: x.version, Modified: x.modified, Type: annotationTypes[typ],
			Text: text.String, Comment: comment.String, Color: color.String, PageLabel: label.String, SortIndex: sortIndex.String}
		var p position
		if json.Unmarshal([]byte(pos.String), &p) == nil {
			an.PageIndex, an.Rects = p.PageIndex, p.Rects
		}
		a.Annotations = append(a.Annotations, an)
	}
	return r.failIf(q.Err())
}

func (r *reader) notes(ctx context.Context, rows map[int64]*row, trashed map[int64]bool, byID map[int64]*Item) error {
	q, err := r.db.QueryContext(ctx, `SELECT itemID, parentItemID, note, title FROM itemNotes WHERE parentItemID IS NOT NULL`)
	if err != nil {
		return r.fail(err)
	}
	defer q.Close()
	for q.Next() {
		var id, parent int64
		var note, title sql.NullString
		if err := q.Scan(&id, &parent, &note, &title); err != nil {
			return r.fail(err)
		}
		x, it := rows[id], byID[parent]
		if x == nil || it == nil || trashed[id] || x.typ != "note" {
			continue // an attachment's own note, or a trashed one
		}
		it.Notes = append(it.Notes, ChildNote{ID: id, Key: x.key, Version: x.version, Modified: x.modified,
			Title: title.String, HTML: note.String, Markdown: Markdown(note.String)})
	}
	return r.failIf(q.Err())
}

// zoteroTime reads Zotero's "YYYY-MM-DD HH:MM:SS" (UTC); the driver hands
// columns declared TIMESTAMP over as times already.
func zoteroTime(v any) time.Time {
	switch x := v.(type) {
	case time.Time:
		return x.UTC()
	case string:
		for _, layout := range []string{"2006-01-02 15:04:05", time.RFC3339Nano} {
			if t, err := time.Parse(layout, x); err == nil {
				return t.UTC()
			}
		}
	case []byte:
		return zoteroTime(string(x))
	}
	return time.Time{}
}
