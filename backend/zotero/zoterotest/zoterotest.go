// Package zoterotest builds Zotero data directories for tests: a
// zotero.sqlite with the tables and columns Zotero itself uses, and the
// storage/ folder its attachments live in. New uses a small schema of our
// own (same table and column names as Zotero's, only the tables Jarvis
// reads); NewReal builds the database with Zotero's own schema SQL and
// global schema from ../shared/fixtures/zotero (read at test time, never
// copied into the repository), and skips when they are absent.
package zoterotest

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/jarvis-kb/jarvis/backend/zotero"
)

// TB is what the builder needs of a test: *testing.T and *testing.B have
// it, and so can a demo program that seeds a library (the e2e bridge).
type TB interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
}

// DB is a Zotero database under construction.
type DB struct {
	tb    TB
	Dir   string
	db    *sql.DB
	clock time.Time
	keys  int
}

// New creates <dir>/zotero.sqlite (with our own minimal schema) and
// <dir>/storage.
func New(tb TB, dir string) *DB {
	tb.Helper()
	d := open(tb, dir)
	d.exec(ownSchema)
	d.seedTypes(ownTypes, ownFields, []string{"author", "editor", "contributor"})
	return d
}

// NewReal is New on Zotero's own schema (schema version 129, global schema
// 41); it skips the test when the fixture files are not there.
func NewReal(tb TB, dir string) *DB {
	tb.Helper()
	fx := FixtureDir()
	if fx == "" {
		tb.Skip("Zotero's schema files (../shared/fixtures/zotero) are not here: the real-schema variant is skipped; New covers the same paths")
	}
	d := open(tb, dir)
	for _, f := range []string{"system.sql", "userdata.sql", "triggers.sql"} {
		sqlText, err := os.ReadFile(filepath.Join(fx, f))
		if err != nil {
			tb.Fatal(err)
		}
		d.exec(string(sqlText))
	}
	var global struct {
		ItemTypes []struct {
			ItemType string `json:"itemType"`
			Fields   []struct {
				Field string `json:"field"`
			} `json:"fields"`
			CreatorTypes []struct {
				CreatorType string `json:"creatorType"`
			} `json:"creatorTypes"`
		} `json:"itemTypes"`
	}
	data, err := os.ReadFile(filepath.Join(fx, "schema.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, &global); err != nil {
		tb.Fatal(err)
	}
	var types, fields, creators []string
	seen := map[string]bool{}
	for _, t := range global.ItemTypes {
		types = append(types, t.ItemType)
		for _, f := range t.Fields {
			if !seen["f:"+f.Field] {
				seen["f:"+f.Field] = true
				fields = append(fields, f.Field)
			}
		}
		for _, c := range t.CreatorTypes {
			if !seen["c:"+c.CreatorType] {
				seen["c:"+c.CreatorType] = true
				creators = append(creators, c.CreatorType)
			}
		}
	}
	for _, t := range []string{"attachment", "note", "annotation"} {
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	d.seedTypes(types, fields, creators)
	d.exec(`INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1);
		INSERT INTO version (schema, version) VALUES ('userdata', 129)`)
	return d
}

// FixtureDir is ../shared/fixtures/zotero seen from the module root, or "".
func FixtureDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "fixtures", "zotero")
		if _, err := os.Stat(filepath.Join(p, "userdata.sql")); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

func open(tb TB, dir string) *DB {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "storage"), 0o755); err != nil {
		tb.Fatal(err)
	}
	// A rollback journal, as Zotero runs it: after each statement the file
	// on disk is whole. No fsync: a test library need not survive a crash.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, zotero.DBName)+"?_pragma=journal_mode(DELETE)&_pragma=synchronous(OFF)")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return &DB{tb: tb, Dir: dir, db: db, clock: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
}

// Close closes the database (the files stay).
func (d *DB) Close() { d.db.Close() }

func (d *DB) exec(q string, args ...any) sql.Result {
	d.tb.Helper()
	res, err := d.db.Exec(q, args...)
	if err != nil {
		d.tb.Fatalf("zoterotest: %v\n%s", err, firstLine(q))
	}
	return res
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i > 0 {
		return s[:i]
	}
	return s
}

func (d *DB) seedTypes(types, fields, creators []string) {
	for i, t := range types {
		d.exec(`INSERT INTO itemTypes (itemTypeID, typeName) VALUES (?, ?)`, i+1, t)
	}
	for i, f := range fields {
		d.exec(`INSERT INTO fields (fieldID, fieldName) VALUES (?, ?)`, i+1, f)
	}
	for i, c := range creators {
		d.exec(`INSERT INTO creatorTypes (creatorTypeID, creatorType) VALUES (?, ?)`, i+1, c)
	}
}

// now is the database's clock: every write is a second after the last,
// as Zotero's clientDateModified would be.
func (d *DB) now() string {
	d.clock = d.clock.Add(time.Second)
	return d.clock.Format("2006-01-02 15:04:05")
}

const alphabet = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"

func (d *DB) key(k string) string {
	if k != "" {
		return k
	}
	d.keys++
	n, out := d.keys, []byte("ZT000000")
	for i := 7; i >= 2; i-- {
		out[i] = alphabet[n%len(alphabet)]
		n /= len(alphabet)
	}
	return string(out)
}

func (d *DB) id(table, col, nameCol, name string) int64 {
	d.tb.Helper()
	var id int64
	if err := d.db.QueryRow(fmt.Sprintf(`SELECT %s FROM %s WHERE %s = ?`, col, table, nameCol), name).Scan(&id); err != nil {
		d.tb.Fatalf("zoterotest: no %s %q: %v", table, name, err)
	}
	return id
}

func (d *DB) insertItem(typ, key string) int64 {
	now := d.now()
	res := d.exec(`INSERT INTO items (itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key, version) VALUES (?, ?, ?, ?, 1, ?, 1)`,
		d.id("itemTypes", "itemTypeID", "typeName", typ), now, now, now, key)
	id, _ := res.LastInsertId()
	return id
}

func (d *DB) setField(item int64, name, value string) {
	var vid int64
	if err := d.db.QueryRow(`SELECT valueID FROM itemDataValues WHERE value = ?`, value).Scan(&vid); err != nil {
		res := d.exec(`INSERT INTO itemDataValues (value) VALUES (?)`, value)
		vid, _ = res.LastInsertId()
	}
	d.exec(`INSERT OR REPLACE INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)`, item, d.id("fields", "fieldID", "fieldName", name), vid)
}

func (d *DB) itemID(key string) int64 { return d.id("items", "itemID", "key", key) }

// AddItem writes a regular item with its fields, creators, tags,
// collections (created by path, nested), attachments (an ImportedFile's
// Path is the file to copy into storage/KEY/; a LinkedFile's is stored as
// it is), their annotations and the child notes.
func (d *DB) AddItem(it zotero.Item) string {
	d.tb.Helper()
	key := d.key(it.Key)
	id := d.insertItem(it.Type, key)
	fields := map[string]string{}
	for k, v := range it.Fields {
		fields[k] = v
	}
	if it.Title != "" && fields["title"] == "" {
		fields["title"] = it.Title
	}
	for k, v := range fields {
		d.setField(id, k, v)
	}
	for i, c := range it.Creators {
		mode, first, last := 0, c.First, c.Last
		if c.Name != "" {
			mode, first, last = 1, "", c.Name
		}
		var cid int64
		if err := d.db.QueryRow(`SELECT creatorID FROM creators WHERE firstName = ? AND lastName = ? AND fieldMode = ?`, first, last, mode).Scan(&cid); err != nil {
			res := d.exec(`INSERT INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, ?)`, first, last, mode)
			cid, _ = res.LastInsertId()
		}
		typ := c.Type
		if typ == "" {
			typ = "author"
		}
		d.exec(`INSERT INTO itemCreators (itemID, creatorID, creatorTypeID, orderIndex) VALUES (?, ?, ?, ?)`, id, cid, d.id("creatorTypes", "creatorTypeID", "creatorType", typ), i)
	}
	for _, t := range it.Tags {
		var tid int64
		if err := d.db.QueryRow(`SELECT tagID FROM tags WHERE name = ?`, t).Scan(&tid); err != nil {
			res := d.exec(`INSERT INTO tags (name) VALUES (?)`, t)
			tid, _ = res.LastInsertId()
		}
		d.exec(`INSERT INTO itemTags (itemID, tagID, type) VALUES (?, ?, 0)`, id, tid)
	}
	for _, path := range it.Collections {
		d.exec(`INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)`, d.collection(path), id)
	}
	for _, a := range it.Attachments {
		d.addAttachment(id, a)
	}
	for _, n := range it.Notes {
		nid := d.insertItem("note", d.key(n.Key))
		d.exec(`INSERT INTO itemNotes (itemID, parentItemID, note, title) VALUES (?, ?, ?, ?)`, nid, id, n.HTML, n.Title)
	}
	return key
}

// collection returns the id of the collection at path, creating it and its
// parents.
func (d *DB) collection(path string) int64 {
	var parent sql.NullInt64
	var id int64
	for _, name := range strings.Split(path, "/") {
		err := d.db.QueryRow(`SELECT collectionID FROM collections WHERE collectionName = ? AND parentCollectionID IS ?`, name, parent).Scan(&id)
		if err != nil {
			res := d.exec(`INSERT INTO collections (collectionName, parentCollectionID, clientDateModified, libraryID, key) VALUES (?, ?, ?, 1, ?)`,
				name, parent, d.now(), d.key(""))
			id, _ = res.LastInsertId()
		}
		parent = sql.NullInt64{Int64: id, Valid: true}
	}
	return id
}

func (d *DB) addAttachment(parent int64, a zotero.Attachment) {
	d.tb.Helper()
	key := d.key(a.Key)
	id := d.insertItem("attachment", key)
	if a.Title != "" {
		d.setField(id, "title", a.Title)
	}
	path := ""
	switch a.LinkMode {
	case zotero.ImportedFile, zotero.ImportedURL:
		if a.Path != "" {
			data, err := os.ReadFile(a.Path)
			if err != nil {
				d.tb.Fatal(err)
			}
			dst := filepath.Join(d.Dir, "storage", key, filepath.Base(a.Path))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				d.tb.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				d.tb.Fatal(err)
			}
			path = "storage:" + filepath.Base(a.Path)
		}
	case zotero.LinkedFile:
		path = a.Path
	}
	d.exec(`INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)`, id, parent, a.LinkMode, a.ContentType, path)
	for _, an := range a.Annotations {
		d.addAnnotation(id, an)
	}
}

var annotationTypes = map[string]int{zotero.Highlight: 1, zotero.Note: 2, zotero.Image: 3, zotero.Ink: 4, zotero.Underline: 5, zotero.Text: 6}

func (d *DB) addAnnotation(attachment int64, an zotero.Annotation) {
	id := d.insertItem("annotation", d.key(an.Key))
	pos, _ := json.Marshal(map[string]any{"pageIndex": an.PageIndex, "rects": an.Rects})
	if an.Type == zotero.Ink {
		pos, _ = json.Marshal(map[string]any{"pageIndex": an.PageIndex, "width": 2, "paths": [][]float64{{10, 10, 20, 20}}})
	}
	sortIndex := an.SortIndex
	if sortIndex == "" {
		sortIndex = fmt.Sprintf("%05d|000000|00000", an.PageIndex)
	}
	var text, comment any = an.Text, an.Comment
	if an.Text == "" {
		text = nil // Zotero stores no text for comment-only kinds
	}
	if an.Comment == "" {
		comment = nil
	}
	d.exec(`INSERT INTO itemAnnotations (itemID, parentItemID, type, text, comment, color, pageLabel, sortIndex, position, isExternal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
		id, attachment, annotationTypes[an.Type], text, comment, an.Color, an.PageLabel, sortIndex, string(pos))
}

// AddAnnotation adds an annotation to the attachment with attachmentKey, as
// Zotero's reader does when the user marks the PDF.
func (d *DB) AddAnnotation(attachmentKey string, an zotero.Annotation) {
	d.tb.Helper()
	d.addAnnotation(d.itemID(attachmentKey), an)
}

// RemoveAnnotation deletes an annotation outright (Zotero deletes them,
// they do not go to the trash).
func (d *DB) RemoveAnnotation(key string) {
	d.tb.Helper()
	id := d.itemID(key)
	d.exec(`DELETE FROM itemAnnotations WHERE itemID = ?`, id)
	d.exec(`DELETE FROM items WHERE itemID = ?`, id)
}

// Trash moves an item to Zotero's trash.
func (d *DB) Trash(key string) {
	d.tb.Helper()
	d.exec(`INSERT INTO deletedItems (itemID, dateDeleted) VALUES (?, ?)`, d.itemID(key), d.now())
}

// File puts an item in the collection at path (created with its parents
// when new), as dragging it there in Zotero does.
func (d *DB) File(key, path string) {
	d.tb.Helper()
	d.exec(`INSERT INTO collectionItems (collectionID, itemID) VALUES (?, ?)`, d.collection(path), d.itemID(key))
}

// Unfile takes an item out of the collection at path, as dragging it out
// in Zotero does (the item itself is not edited).
func (d *DB) Unfile(key, path string) {
	d.tb.Helper()
	d.exec(`DELETE FROM collectionItems WHERE collectionID = ? AND itemID = ?`, d.collection(path), d.itemID(key))
}

// Touch marks an item edited: a later clientDateModified and version.
func (d *DB) Touch(key string) {
	d.tb.Helper()
	d.exec(`UPDATE items SET clientDateModified = ?, version = version + 1 WHERE itemID = ?`, d.now(), d.itemID(key))
}

// SetField changes one field of an item and touches it, as an edit in
// Zotero's item pane does.
func (d *DB) SetField(key, field, value string) {
	d.tb.Helper()
	d.setField(d.itemID(key), field, value)
	d.Touch(key)
}
