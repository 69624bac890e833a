// Package zotero reads a Zotero data directory (zotero.sqlite and
// storage/) without ever writing it: items with their fields, creators,
// tags and collections, PDF attachments, the annotations made in Zotero's
// reader (stored in the database, not in the PDF) and child notes.
//
// Zotero keeps its database locked and rewrites it while it runs, so the
// reader never opens the live file: it copies it (with any -wal/-journal
// beside it) into a private temporary folder, checks that the file did not
// change while it copied, and reads the copy.
package zotero

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

// Annotation types as Jarvis names them (Zotero stores 1..6).
const (
	Highlight = "highlight" // 1
	Note      = "note"      // 2: a sticky note, comment only
	Image     = "image"     // 3: a rectangle over a figure, comment only
	Ink       = "ink"       // 4
	Underline = "underline" // 5
	Text      = "text"      // 6: a text box on the page
)

// Library is what one read of zotero.sqlite found. Trashed items
// (deletedItems) and everything under them are left out.
type Library struct {
	Dir         string // the data directory
	Items       []Item // regular items (not attachments, notes or annotations), by key
	Collections []Collection
	// Fingerprint changes whenever the database file does (size and
	// modification time of zotero.sqlite and its WAL), so a caller can skip
	// a read of an unchanged library.
	Fingerprint string
}

// Collection is one collection; Path is its name under its parents
// ("Thesis/Chapter 2").
type Collection struct {
	Key, Name, Path string
	ParentKey       string
}

// Item is one regular Zotero item.
type Item struct {
	ID       int64
	Key      string    // the 8-character key (zotero://select/library/items/KEY)
	Version  int       // items.version (server sync version; 0 for local-only)
	Modified time.Time // items.clientDateModified, UTC
	Added    time.Time // items.dateAdded, UTC
	Type     string    // itemTypes.typeName: journalArticle, preprint, book ...

	Title       string
	Date        string // as Zotero stores it ("2021-03-00 March 2021"): see Year
	Year        string // four digits, or ""
	DOI         string
	Publication string // publicationTitle (or proceedingsTitle, bookTitle, repository, websiteTitle)
	Abstract    string
	URL         string
	// Fields holds every field by Zotero's field name (title, date, DOI,
	// extra, volume ...), for filters and for what the others leave out.
	Fields map[string]string

	Creators    []Creator // in Zotero's order
	Tags        []string
	Collections []string // Collection.Path of each collection holding the item

	Attachments []Attachment // children, in key order
	Notes       []ChildNote  // child notes, in key order
}

// Creator is one author, editor ...; Name is set for single-field creators
// (an institution), First/Last otherwise.
type Creator struct {
	First, Last, Name string
	Type              string // creatorTypes.creatorType: author, editor ...
}

// Attachment link modes (itemAttachments.linkMode).
const (
	ImportedFile = 0 // a copy in storage/KEY/
	ImportedURL  = 1 // a web snapshot in storage/KEY/
	LinkedFile   = 2 // a file elsewhere on disk
	LinkedURL    = 3 // a link, no file
)

// Attachment is one child attachment with the annotations made on it.
type Attachment struct {
	ID          int64
	Key         string
	Version     int
	Modified    time.Time
	Title       string
	ContentType string // application/pdf, text/html ...
	LinkMode    int
	// Path is the file's absolute path: storage/KEY/<name> for stored
	// files, the linked path (resolved against the base directory when
	// Zotero stored it as "attachments:…") for linked files; "" for links.
	Path        string
	Annotations []Annotation // in Zotero's sortIndex order
}

// Annotation is one mark made in Zotero's reader.
type Annotation struct {
	ID        int64
	Key       string
	Version   int
	Modified  time.Time
	Type      string // Highlight, Underline, Note, Text, Image, Ink
	Text      string // the marked text (highlight, underline), as Zotero captured it
	Comment   string
	Color     string // "#ffd400"
	PageLabel string // the page's printed label ("iv", "12")
	PageIndex int    // 0-based page of the PDF
	// Rects are the marked areas in PDF points, [x1 y1 x2 y2] with the
	// origin at the page's bottom left (Zotero's "rects").
	Rects     [][4]float64
	SortIndex string
}

// ChildNote is a note attached to an item; Markdown is its HTML converted.
type ChildNote struct {
	ID       int64
	Key      string
	Version  int
	Modified time.Time
	Title    string
	HTML     string
	Markdown string
}

// InCollection reports whether the item is filed in one of the collections
// named by path ("Grants", "Lab/Reviews") or in a collection under one.
func (it Item) InCollection(paths []string) bool {
	return slices.ContainsFunc(it.Collections, func(c string) bool { return Under(c, paths) })
}

// Under reports whether the collection at path is one of parents or lies
// under one. Paths compare by CollectionKey, so one typed into the config
// by hand still matches.
func Under(path string, parents []string) bool {
	have := CollectionKey(path)
	for _, p := range parents {
		if want := CollectionKey(p); want != "" && (have == want || strings.HasPrefix(have, want+"/")) {
			return true
		}
	}
	return false
}

// CleanCollection is a collection path without the spaces and slashes
// around it.
func CleanCollection(path string) string {
	return strings.TrimFunc(path, func(r rune) bool { return r == '/' || unicode.IsSpace(r) })
}

// CollectionKey is a collection path as paths are compared: cleaned, its
// letters lowered.
func CollectionKey(path string) string { return strings.ToLower(CleanCollection(path)) }

// Ancestors are the paths of the collection at path and of every
// collection above it, outermost first: "A/B" gives "A", "A/B".
func Ancestors(path string) []string {
	parts := strings.Split(CleanCollection(path), "/")
	out := make([]string, len(parts))
	for i := range parts {
		out[i] = strings.Join(parts[:i+1], "/")
	}
	return out
}
