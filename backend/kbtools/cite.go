package kbtools

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// Citation is one piece of evidence a caller was handed, as an answer
// cites it and the window opens it.
type Citation struct {
	Source   string `json:"source"`
	Title    string `json:"title,omitempty"`
	Page     int    `json:"page,omitempty"`
	ChunkID  int64  `json:"chunk_id,omitempty"`
	FilePath string `json:"file_path,omitempty"`
	// Wikilink is the vault note's Obsidian link ([[Note#Heading]]), for
	// copying an answer into a note; empty for papers and chats.
	Wikilink string `json:"wikilink,omitempty"`
	// Link is the application link that opens the cited place in the
	// program that holds it: a Zotero item, or the PDF in Zotero's reader
	// at the page and annotation. Empty for everything Jarvis opens itself.
	Link string `json:"link,omitempty"`
}

// Place is what a citation points at, document and page: two citations of
// one place are one (a reply's, or a task's parts').
func (c Citation) Place() string { return fmt.Sprintf("%s#%d", c.Source, c.Page) }

// File is the file on this machine a citation names: a file:// source, an
// absolute path, or a vault note under vaultRoot — that last only when it
// resolves (links and ".." followed) inside the vault, so a citation can
// never open a file elsewhere. Papers from a server and chats have none.
func (c Citation) File(vaultRoot string) (string, error) {
	const op = "kbtools.File"
	switch {
	case strings.HasPrefix(c.Source, "file://"):
		return strings.TrimPrefix(c.Source, "file://"), nil
	case c.FilePath != "" && filepath.IsAbs(c.FilePath):
		return c.FilePath, nil
	case c.FilePath != "" || !strings.Contains(c.Source, ":"):
		rel := cmp.Or(c.FilePath, c.Source)
		p := filepath.Join(vaultRoot, filepath.FromSlash(rel))
		if _, inside := vault.Locate(vaultRoot, p); !inside || filepath.IsAbs(filepath.FromSlash(rel)) {
			return "", errs.New(errs.Invalid, op, "%q is not a path inside the vault", rel)
		}
		return p, nil
	}
	return "", errs.New(errs.NotFound, op, "%s is not a file on this machine", c.Source)
}

// CiteName is how a chunk is cited: local files (vault notes share one
// source; added files have file:// sources) by their path, the rest by source.
func CiteName(m kb.Metadata) string {
	if m.Source == kb.SourceVault || strings.HasPrefix(m.Source, "file://") {
		return m.FilePath
	}
	return m.Source
}

// SummaryCiteName is CiteName for a listed document.
func SummaryCiteName(d kb.DocumentSummary) string {
	return CiteName(kb.Metadata{Source: d.Source, FilePath: d.FilePath})
}

// CiteLabel is the citation marker an answer uses: [source: X] or
// [source: X, p.N].
func CiteLabel(m kb.Metadata) string {
	src := CiteName(m)
	if m.Page > 0 {
		return fmt.Sprintf("[source: %s, p.%d]", src, m.Page)
	}
	return "[source: " + src + "]"
}

// CitationOf is a chunk's citation.
func CitationOf(c kb.Chunk) Citation {
	m := c.Meta
	cite := Citation{Source: CiteName(m), Title: m.Title, Page: m.Page, ChunkID: c.ID, FilePath: m.FilePath}
	if m.Source == kb.SourceVault && m.FilePath != "" {
		cite.Wikilink = vault.Wikilink(m.FilePath, m.Section)
	}
	cite.Link = m.Extra[ingest.ZoteroOpenField]
	return cite
}

// paperYear is a paper's year: stored from its source's metadata, or read
// from an arXiv id (YYMM.NNNNN) or a bioRxiv DOI (10.1101/YYYY.MM.DD...).
func paperYear(m kb.Metadata) string {
	if y := m.Extra[ingest.YearField]; y != "" {
		return y
	}
	if y := arxivYear.FindStringSubmatch(m.Source); y != nil {
		return "20" + y[1]
	}
	if y := biorxivYear.FindStringSubmatch(m.DOI + " " + m.Source); y != nil {
		return y[1]
	}
	return ""
}

var (
	arxivYear   = regexp.MustCompile(`arxiv\.org/(?:abs|pdf)/(\d{2})\d{2}\.\d{4,5}`)
	biorxivYear = regexp.MustCompile(`10\.1101/((?:19|20)\d{2})\.\d{2}\.\d{2}\.`)
)

// Identity is the line of identifying fields a hit shows: for a paper its
// authors, year, DOI, track and score; for a record its category, status,
// entity and date. Empty fields are left out.
func Identity(m kb.Metadata) string {
	var parts []string
	add := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, label+": "+v)
		}
	}
	switch {
	case m.DocType == kb.DocPaper || m.DocType == kb.DocDigest:
		add("authors", m.Authors)
		add("year", paperYear(m))
		if m.DOI != "" && m.Extra[ingest.DOIGuessField] != "" {
			add("DOI", m.DOI+" (guessed by a model, not printed in the paper)")
		} else {
			add("DOI", m.DOI)
		}
		add("track", m.Track)
		add("Zotero item", m.Extra[ingest.ZoteroKeyField])
		if m.Score != nil {
			add("score", fmt.Sprintf("%d/10", *m.Score))
		}
	case m.Category != "" || m.Status != "" || m.Entity != "" || m.EventDate != "":
		add("category", m.Category)
		add("status", m.Status)
		add("entity", m.Entity)
		add("date", m.EventDate)
	}
	// Recognised words may be misread (a scan, a photo, an image in the
	// vault): the model and the user are told.
	add("text", kb.OCRNote(m.Extra))
	return strings.Join(parts, " · ")
}

// SummaryLine is one listed document with its identifying fields.
func SummaryLine(d kb.DocumentSummary) string {
	line := d.String()
	if id := SummaryIdentity(d); id != "" {
		line += " — " + id
	}
	return line
}

// RecordLine is SummaryLine led by the record's date.
func RecordLine(d kb.DocumentSummary) string {
	date := d.EventDate
	if date == "" {
		date = "(no date)"
	}
	return date + "  " + SummaryLine(d)
}

// SummaryIdentity is Identity for a listed document.
func SummaryIdentity(d kb.DocumentSummary) string {
	if d.DocType == kb.DocPaper || d.DocType == kb.DocDigest {
		return Identity(kb.Metadata{DocType: d.DocType, Authors: d.Authors, DOI: d.DOI, Source: d.Source})
	}
	return Identity(kb.Metadata{Category: d.Category, Status: d.Status, Entity: d.Entity})
}
