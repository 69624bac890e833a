package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/zotero"
)

// ZoteroSource is the source prefix of every Zotero item: the item's own
// zotero:// link, so a citation of the item opens it in Zotero.
const ZoteroSource = kb.ZoteroScheme + "//select/library/items/"

// Fields every Zotero chunk carries (kb Extra, searchable with x_ filters).
const (
	ZoteroKeyField        = "x_zotero_key"        // the item's key
	ZoteroOpenField       = "x_zotero_open"       // the zotero:// link that opens this chunk's place
	ZoteroAnnotationField = "x_zotero_annotation" // an annotation chunk's annotation key
	ZoteroNoteField       = "x_zotero_note"       // a child note chunk's note key
	ZoteroItemTypeField   = kb.ItemTypeField
)

// zoteroSchema versions the chunks built from Zotero: a change to how an
// item becomes chunks bumps it, and the next sync rebuilds every item.
const zoteroSchema = 2 // 2: each attachment's chunks name its file; empty highlights read from the PDF

// ZoteroSourceFor is the source of the item with key.
func ZoteroSourceFor(key string) string { return ZoteroSource + key }

// ZoteroOpenPDF is the link that opens an attachment in Zotero's reader at
// page (1-based) and, when given, selects the annotation.
func ZoteroOpenPDF(attachmentKey string, page int, annotationKey string) string {
	u := "zotero://open-pdf/library/items/" + attachmentKey
	var q []string
	if page > 0 {
		q = append(q, "page="+strconv.Itoa(page))
	}
	if annotationKey != "" {
		q = append(q, "annotation="+annotationKey)
	}
	if len(q) > 0 {
		u += "?" + strings.Join(q, "&")
	}
	return u
}

// ZoteroSync keeps the store's copy of a Zotero library in step with it:
// new and changed items are (re)built, removed and trashed ones deleted,
// unchanged ones left alone (each item's fingerprint is kept in its
// chunks' content_hash). Every item is committed on its own, so a sync
// stopped half-way resumes where it stopped.
type ZoteroSync struct {
	Store *kb.Store
	Embed kb.Embedder // nil: stored for keyword search, vectors left to the backfill
	Opts  Options
	Dir   string // the Zotero data directory
	// PrivateCollections (zotero.private_collections) make the items filed
	// in them private: the one kind of paper that is not public.
	PrivateCollections []string
	// Progress hears of each item looked at (done of total); may be nil.
	Progress func(done, total int)
}

// ZoteroResult says what a sync did.
type ZoteroResult struct {
	Items, Added, Updated, Deleted, Unchanged int
	Annotations                               int // Zotero annotations stored by this sync
	Private                                   int // items in a private collection (stored private)
	Withdrawn                                 int // public copies of private items' files removed
	Warnings                                  []string
}

// Sync reads the library and applies what changed.
func (z *ZoteroSync) Sync(ctx context.Context) (ZoteroResult, error) {
	const op = "ingest.ZoteroSync"
	var res ZoteroResult
	lib, err := zotero.Read(ctx, z.Dir)
	if err != nil {
		return res, err
	}
	stored, err := z.Store.SourceHashes(ctx, ZoteroSource)
	if err != nil {
		return res, err
	}
	res.Items = len(lib.Items)
	seen := map[string]bool{}
	for i, it := range lib.Items {
		if err := ctx.Err(); err != nil {
			return res, errs.Wrap(errs.Cancelled, op, err)
		}
		source := ZoteroSourceFor(it.Key)
		seen[source] = true
		vis := z.visibility(it)
		if vis == kb.Private {
			res.Private++
		}
		print := zoteroFingerprint(it, vis)
		old, had := stored[source]
		switch {
		case had && (old == print || old == print+zoteroUnreadMark && z.Opts.OCR == nil):
			res.Unchanged++
		default:
			chunks, warnings, err := z.build(ctx, it, vis, print)
			for _, w := range warnings {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s (%s): %s", it.Title, it.Key, w))
			}
			if err != nil {
				if errs.Is(err, errs.Cancelled) {
					return res, err
				}
				// One unreadable item must not stop the library.
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s (%s) not indexed: %v", it.Title, it.Key, err))
				break
			}
			if err := z.Store.Ingest(ctx, z.Embed, chunks, &kb.Filter{Source: source}); err != nil {
				return res, err
			}
			for _, c := range chunks {
				if c.Meta.Extra[ZoteroAnnotationField] != "" {
					res.Annotations++
				}
			}
			if had {
				res.Updated++
			} else {
				res.Added++
			}
		}
		if vis == kb.Private {
			removed, err := z.withdrawPublicCopies(ctx, it)
			if err != nil {
				return res, err
			}
			for _, title := range removed {
				res.Warnings = append(res.Warnings, fmt.Sprintf("removed the public copy %q of a file of %s (%s): the item is in a private collection now", title, it.Title, it.Key))
			}
			res.Withdrawn += len(removed)
		}
		if z.Progress != nil {
			z.Progress(i+1, len(lib.Items))
		}
	}
	for source := range stored {
		if seen[source] {
			continue
		}
		if _, err := z.Store.DeleteWhere(ctx, kb.Filter{Source: source}); err != nil {
			return res, err
		}
		res.Deleted++
	}
	return res, nil
}

// zoteroUnreadMark ends the fingerprint of an item whose scanned pages
// were left unread for want of OCR.
const zoteroUnreadMark = "+unread"

// zoteroFingerprint changes whenever anything Jarvis stores of the item
// does: the item, its attachments (and their files), annotations and
// notes, or the way Jarvis builds chunks from them.
func zoteroFingerprint(it zotero.Item, visibility string) string {
	h := sha256.New()
	fmt.Fprintf(h, "schema %d\nitem %s %d %s %s\n", zoteroSchema, it.Key, it.Version, it.Modified.UTC().Format(time.RFC3339Nano), visibility)
	// Collections hold items without editing them: their names count.
	fmt.Fprintf(h, "collections %q\n", it.Collections)
	for _, a := range it.Attachments {
		fmt.Fprintf(h, "attachment %s %d %s %s", a.Key, a.Version, a.Modified.UTC().Format(time.RFC3339Nano), a.Path)
		if st, err := os.Stat(a.Path); err == nil && a.Path != "" {
			fmt.Fprintf(h, " %d %d", st.Size(), st.ModTime().UnixNano())
		}
		fmt.Fprintln(h)
		for _, an := range a.Annotations {
			fmt.Fprintf(h, "annotation %s %d %s\n", an.Key, an.Version, an.Modified.UTC().Format(time.RFC3339Nano))
		}
	}
	for _, n := range it.Notes {
		fmt.Fprintf(h, "note %s %d %s\n", n.Key, n.Version, n.Modified.UTC().Format(time.RFC3339Nano))
	}
	return "zotero:" + hex.EncodeToString(h.Sum(nil))
}

// visibility is private for an item in a private collection: a change to
// the setting or to the item's collections rebuilds it (the fingerprint
// holds the visibility), so it never keeps the class it had.
func (z *ZoteroSync) visibility(it zotero.Item) string {
	if it.InCollection(z.PrivateCollections) {
		return kb.Private
	}
	return kb.Public
}

// Authors in the paper convention: "Last, First; Last, First".
func zoteroAuthors(cs []zotero.Creator) string {
	var names []string
	for _, c := range cs {
		if c.Type != "" && c.Type != "author" {
			continue
		}
		switch {
		case c.Name != "":
			names = append(names, c.Name)
		case c.First != "":
			names = append(names, c.Last+", "+c.First)
		case c.Last != "":
			names = append(names, c.Last)
		}
	}
	return strings.Join(names, "; ")
}

// build turns one item into chunks: a record of the item (title,
// creators, publication, abstract), each Zotero annotation, each child
// note, and the text of each PDF attachment through the PDF pipeline
// (whose own in-file annotations are kept unless Zotero holds the same).
func (z *ZoteroSync) build(ctx context.Context, it zotero.Item, visibility, print string) ([]kb.Chunk, []string, error) {
	var warnings []string
	source := ZoteroSourceFor(it.Key)
	authors := zoteroAuthors(it.Creators)
	base := kb.Metadata{DocType: kb.DocPaper, Visibility: visibility, Source: source, Title: it.Title, Authors: authors,
		DOI: it.DOI, StorageMode: FullText, ContentHash: print, Tags: kb.EncodeTags(it.Tags), MetaSchema: zoteroSchema,
		DateAdded: it.Added.UTC().Format(time.RFC3339), ModifiedAt: it.Modified.UTC().Format(time.RFC3339)}
	extra := map[string]string{ZoteroKeyField: it.Key, ZoteroOpenField: source, ZoteroItemTypeField: it.Type}
	if it.Year != "" {
		extra[YearField] = it.Year
	}
	if it.Publication != "" {
		extra["x_publication"] = it.Publication
	}
	if len(it.Collections) > 0 {
		extra[kb.CollectionsField] = strings.Join(it.Collections, kb.CollectionSep)
	}
	for _, a := range it.Attachments {
		if isPDF(a) && a.Path != "" {
			base.FilePath = realPath(a.Path) // the viewer's fallback when Zotero is not installed
			break
		}
	}
	header := it.Title
	if authors != "" {
		header += " — " + authors
	}
	var chunks []kb.Chunk
	unreadScans := false // scanned pages left unread for want of OCR
	add := func(content string, m kb.Metadata, more map[string]string) {
		m.Extra = maps.Clone(extra)
		maps.Copy(m.Extra, more)
		m.ChunkIndex = len(chunks)
		chunks = append(chunks, kb.Chunk{Content: content, EmbedText: header + "\n\n" + content, Meta: m})
	}

	// The item itself, so an item with no PDF is still found.
	var rec strings.Builder
	rec.WriteString(it.Title)
	if authors != "" {
		rec.WriteString("\n" + authors)
	}
	if line := strings.TrimSpace(strings.Join(nonEmpty(it.Publication, it.Year, it.DOI), " · ")); line != "" {
		rec.WriteString("\n" + line)
	}
	if len(it.Tags) > 0 {
		rec.WriteString("\nTags: " + strings.Join(it.Tags, ", "))
	}
	if it.Abstract != "" {
		rec.WriteString("\n\n" + it.Abstract)
	}
	for i, part := range kb.SplitSize(rec.String(), z.Opts.ChunkSize, z.Opts.ChunkOverlap) {
		m := base
		if i == 0 || it.Abstract != "" {
			m.Section = "Abstract"
		}
		add(part, m, nil)
	}

	for _, a := range it.Attachments {
		// Every chunk of an attachment names its own file (links resolved):
		// that is how kb add and the inbox know a private item's files.
		file := base.FilePath
		if a.Path != "" {
			file = realPath(a.Path)
		}
		// A highlight Zotero saved without its text (made on a page whose
		// text Zotero could not read then) takes the words under its rects.
		under, err := z.textUnder(ctx, a)
		if err != nil {
			if errs.Is(err, errs.Cancelled) {
				return nil, warnings, err
			}
			warnings = append(warnings, fmt.Sprintf("attachment %s: the text under its highlights could not be read: %v", a.Key, err))
		}
		// Zotero's own annotations first: they are what the user marked.
		zoteroMarks := map[string]bool{}
		for _, an := range a.Annotations {
			if an.Text == "" && under[an.Key] != "" {
				an.Text = under[an.Key]
			}
			mk := zoteroMark(an)
			if mk.Text == "" && mk.Comment == "" {
				continue // an ink stroke or an empty box says nothing searchable
			}
			zoteroMarks[markKey(mk)] = true
			m := base
			m.FilePath = file
			m.AnnotationKind, m.Page, m.NoteText = mk.Kind, mk.Page, mk.Comment
			more := map[string]string{ZoteroAnnotationField: an.Key, ZoteroOpenField: ZoteroOpenPDF(a.Key, mk.Page, an.Key)}
			if an.Color != "" {
				more["x_color"] = an.Color
			}
			if an.PageLabel != "" {
				more["x_page_label"] = an.PageLabel
			}
			add(mk.String(), m, more)
		}
		if !isPDF(a) || a.Path == "" {
			continue
		}
		if _, err := os.Stat(a.Path); err != nil {
			warnings = append(warnings, fmt.Sprintf("attachment %s is not on disk (%s): only its Zotero annotations are indexed", a.Key, a.Path))
			continue
		}
		no := false
		opts := z.Opts
		opts.Model = nil // a Zotero sync makes no model requests
		// The same mark in the file and in Zotero's database is stored once.
		skip := func(mk pdf.Marked) bool { return zoteroMarks[markKey(mk)] }
		doc, err := BuildPaper(ctx, Paper{Path: a.Path, Source: source, Title: it.Title, Authors: authors, DOI: it.DOI, Mode: FullText, Figures: &no, SkipMark: skip}, opts)
		warnings = append(warnings, doc.Warnings...)
		if err != nil {
			if errs.Is(err, errs.Cancelled) {
				return nil, warnings, err
			}
			warnings = append(warnings, fmt.Sprintf("attachment %s: %v", a.Key, err))
			unreadScans = unreadScans || doc.NeedsOCR && z.Opts.OCR == nil // a scan, read once Tesseract is here
			continue
		}
		for _, c := range doc.Chunks {
			m := base
			m.FilePath = file
			m.AnnotationKind, m.Page, m.NoteText, m.Section = c.Meta.AnnotationKind, c.Meta.Page, c.Meta.NoteText, c.Meta.Section
			more := map[string]string{ZoteroOpenField: ZoteroOpenPDF(a.Key, c.Meta.Page, "")}
			// Recognised text stays marked as recognised, and pages left
			// unread say so, as for any paper.
			for _, k := range []string{kb.OCRField, kb.OCRConfidenceField, UnreadField} {
				if v := c.Meta.Extra[k]; v != "" {
					more[k] = v
				}
			}
			if c.Meta.Extra[UnreadField] != "" && z.Opts.OCR == nil {
				unreadScans = true
			}
			add(c.Content, m, more)
		}
	}

	for _, n := range it.Notes {
		text := strings.TrimSpace(n.Markdown)
		if text == "" {
			continue
		}
		for _, part := range kb.SplitSize(text, z.Opts.ChunkSize, z.Opts.ChunkOverlap) {
			m := base
			m.AnnotationKind, m.Section = pdf.KindNote, firstNonEmpty(n.Title, "Note")
			add("[ZOTERO NOTE] "+part, m, map[string]string{ZoteroNoteField: n.Key})
		}
	}
	if unreadScans {
		// Marked in the stored fingerprint, so the item is read again
		// once Tesseract is installed although nothing of it changed.
		for i := range chunks {
			chunks[i].Meta.ContentHash = print + zoteroUnreadMark
		}
	}
	return chunks, warnings, nil
}

// textUnder reads, from the attachment's PDF, the words under each
// highlight and underline that Zotero stored without text, by annotation
// key. The PDF is read only when there is one.
func (z *ZoteroSync) textUnder(ctx context.Context, a zotero.Attachment) (map[string]string, error) {
	var want []zotero.Annotation
	for _, an := range a.Annotations {
		if (an.Type == zotero.Highlight || an.Type == zotero.Underline) && strings.TrimSpace(an.Text) == "" && len(an.Rects) > 0 {
			want = append(want, an)
		}
	}
	if len(want) == 0 || !isPDF(a) || a.Path == "" {
		return nil, nil
	}
	doc, err := pdf.Read(ctx, a.Path, pdf.Options{Limits: z.Opts.PDFLimits, OCR: z.Opts.OCR})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, an := range want {
		if an.PageIndex < 0 || an.PageIndex >= len(doc.Pages) {
			continue
		}
		out[an.Key] = doc.TextUnder(an.PageIndex+1, PageRects(doc.Pages[an.PageIndex], an.Rects))
	}
	return out, nil
}

// PageRects turns Zotero's rects (PDF points, origin at the page's bottom
// left) into the page's own coordinates (origin at the top left), in which
// the PDF pipeline places characters.
func PageRects(p pdf.Page, rects [][4]float64) []pdf.Rect {
	out := make([]pdf.Rect, 0, len(rects))
	for _, r := range rects {
		out = append(out, pdf.Rect{X0: min(r[0], r[2]), X1: max(r[0], r[2]), Y0: p.Height - max(r[1], r[3]), Y1: p.Height - min(r[1], r[3])})
	}
	return out
}

// withdrawPublicCopies removes the public documents made from a private
// item's files before the item was private (added with kb add, or by the
// inbox): once the user files the item in a private collection, no public
// copy of its PDFs may stay. It returns what it removed.
func (z *ZoteroSync) withdrawPublicCopies(ctx context.Context, it zotero.Item) ([]string, error) {
	var removed []string
	for _, a := range it.Attachments {
		if a.Path == "" {
			continue
		}
		for _, p := range pathForms(a.Path) {
			docs, err := z.Store.List(ctx, kb.Filter{FilePath: p, Visibility: []string{kb.Public}}, 0)
			if err != nil {
				return removed, err
			}
			for _, d := range docs {
				if strings.HasPrefix(d.Source, kb.ZoteroScheme) {
					continue // another Zotero item linking the same file answers for itself
				}
				if _, err := z.Store.DeleteWhere(ctx, kb.Filter{Source: d.Source, FilePath: p, Visibility: []string{kb.Public}}); err != nil {
					return removed, err
				}
				removed = append(removed, d.Title)
			}
		}
	}
	return removed, nil
}

func isPDF(a zotero.Attachment) bool {
	return a.ContentType == "application/pdf" || strings.HasSuffix(strings.ToLower(a.Path), ".pdf")
}

// zoteroMark reads a Zotero annotation as the PDF pipeline reads a mark in
// the file, so both kinds look and are found alike: marked text with the
// comment beside it, and a note's own words as its text.
func zoteroMark(an zotero.Annotation) pdf.Marked {
	text, comment := strings.Join(strings.Fields(an.Text), " "), strings.TrimSpace(an.Comment)
	mk := pdf.Marked{Page: an.PageIndex + 1, Text: text, Comment: comment}
	switch an.Type {
	case zotero.Highlight:
		mk.Kind, mk.Subtype = pdf.KindHighlight, "Highlight"
	case zotero.Underline:
		mk.Kind, mk.Subtype = pdf.KindHighlight, "Underline"
	case zotero.Text:
		mk.Kind, mk.Subtype = pdf.KindNote, "FreeText"
		mk.Text, mk.Comment = strings.Join(nonEmpty(text, comment), "\n"), ""
	default: // note, image, ink: the comment is all there is
		mk.Kind, mk.Subtype = pdf.KindNote, "Text"
		mk.Text, mk.Comment = strings.Join(nonEmpty(text, comment), "\n"), ""
	}
	return mk
}

// markKey identifies a mark across the file and Zotero's database: kind,
// page and its words, case and spacing aside.
func markKey(mk pdf.Marked) string {
	return mk.Kind + "|" + strconv.Itoa(mk.Page) + "|" + strings.ToLower(strings.Join(strings.Fields(firstNonEmpty(mk.Text, mk.Comment)), " "))
}

func nonEmpty(vs ...string) []string {
	return slices.DeleteFunc(vs, func(s string) bool { return strings.TrimSpace(s) == "" })
}
