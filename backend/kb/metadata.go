package kb

import (
	"sort"
	"strings"
)

// Document types.
const (
	DocPaper  = "paper"
	DocNote   = "note"
	DocChat   = "chat"
	DocDigest = "digest"
)

// SourceVault is the source of every vault note (they are told apart by
// file_path, relative to the vault).
const SourceVault = "local"

// ZoteroScheme begins the source of every item read from a Zotero library.
const ZoteroScheme = "zotero:"

// Visibility values. Papers are public, except the Zotero items the user
// filed in a private collection (their sources begin with ZoteroScheme).
const (
	Public  = "public"
	Private = "private"
)

// Metadata is a chunk's schema. Record fields come from frontmatter; every
// other frontmatter key lives in Extra under an "x_" name so it can never
// overwrite one of Jarvis's own fields.
type Metadata struct {
	DocType     string `json:"doc_type"`
	Visibility  string `json:"visibility"`
	Source      string `json:"source"`
	Title       string `json:"title,omitempty"`
	Authors     string `json:"authors,omitempty"`
	DOI         string `json:"doi,omitempty"`
	Score       *int   `json:"score,omitempty"`
	Track       string `json:"track,omitempty"`
	StorageMode string `json:"storage_mode,omitempty"`
	FilePath    string `json:"file_path,omitempty"`
	ContentHash string `json:"content_hash,omitempty"`
	ChunkIndex  int    `json:"chunk_index"`
	Section     string `json:"section,omitempty"`
	ModifiedAt  string `json:"modified_at,omitempty"`
	MetaSchema  int    `json:"meta_schema,omitempty"`
	DateAdded   string `json:"date_added,omitempty"`

	Category  string `json:"category,omitempty"`
	Status    string `json:"status,omitempty"`
	Entity    string `json:"entity,omitempty"`
	EventDate string `json:"event_date,omitempty"`
	Tags      string `json:"tags,omitempty"` // "|a|b|c|"

	AnnotationKind string `json:"annotation_kind,omitempty"` // highlight | comment | figure
	Page           int    `json:"page,omitempty"`
	NoteText       string `json:"note_text,omitempty"`

	Extra map[string]string `json:"extra,omitempty"` // x_<key> -> value
}

// Chunk is one indexed piece of text. EmbedText is what was embedded (the
// content with its section breadcrumb and record header); Content is what
// is returned to readers.
type Chunk struct {
	ID        int64
	Content   string
	EmbedText string
	Meta      Metadata
	Vector    []float32
}

// EncodeTags stores tags as "|a|b|": membership is then a substring test,
// and the separators stop |remote| from matching |remote-first|.
func EncodeTags(tags []string) string {
	var clean []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(strings.ReplaceAll(t, "|", ""))
		if t != "" && !seen[t] {
			seen[t] = true
			clean = append(clean, t)
		}
	}
	if len(clean) == 0 {
		return ""
	}
	sort.Strings(clean)
	return "|" + strings.Join(clean, "|") + "|"
}

// DecodeTags reverses EncodeTags.
func DecodeTags(s string) []string {
	var out []string
	for _, t := range strings.Split(strings.Trim(s, "|"), "|") {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}
