package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

// DigestIndexer is digest.Indexer over the knowledge base.
type DigestIndexer struct {
	Store *kb.Store
	Embed kb.Embedder
	Opts  Options
}

var _ digest.Indexer = (*DigestIndexer)(nil)

// IndexDigest indexes the digest file as one doc_type "digest" document
// under its file:// source, so every paper it lists (the < 8 tier too) is
// searchable. Re-indexing the same file replaces it.
func (d *DigestIndexer) IndexDigest(ctx context.Context, path, title, markdown string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	source := "file://" + filepath.ToSlash(abs)
	chunks := kb.ChunkMarkdown(markdown, d.Opts.ChunkSize, d.Opts.ChunkOverlap, title)
	for i := range chunks {
		m := &chunks[i].Meta
		m.DocType, m.Visibility, m.Source, m.Title, m.FilePath = kb.DocDigest, kb.Public, source, title, abs
		m.StorageMode, m.ChunkIndex = FullText, i
	}
	return d.Store.Ingest(ctx, d.Embed, chunks, &kb.Filter{Source: source})
}

// versionKey holds a preprint's stored version among a chunk's extra fields.
const versionKey = "x_version"

// Stored reports whether the paper is stored already, by source or by
// normalised title (a paper can arrive via arXiv and bioRxiv). An entry
// under the paper's own source at an older version is Stale: the revision
// replaces it rather than being skipped or added beside it.
func (d *DigestIndexer) Stored(ctx context.Context, p digest.Paper) (digest.Presence, error) {
	dups, err := d.Store.FindDuplicates(ctx, p.Link, p.Title)
	if err != nil || len(dups) == 0 {
		return digest.Absent, err
	}
	for _, dup := range dups {
		if dup.Reason != "source" || p.Version == 0 {
			return digest.Current, nil
		}
	}
	chunks, err := d.Store.Document(ctx, kb.Filter{Source: p.Link})
	if err != nil || len(chunks) == 0 {
		return digest.Current, err
	}
	if stored, _ := strconv.Atoi(chunks[0].Meta.Extra[versionKey]); stored < p.Version {
		return digest.Stale, nil
	}
	return digest.Current, nil
}

// withVersion records the paper's version on every chunk.
func withVersion(chunks []kb.Chunk, p digest.Paper) {
	if p.Version == 0 {
		return
	}
	for i := range chunks {
		m := &chunks[i].Meta
		if m.Extra == nil {
			m.Extra = map[string]string{}
		}
		m.Extra[versionKey] = strconv.Itoa(p.Version)
	}
}

// IndexFullText ingests a downloaded PDF as a full-text paper, filed under
// the paper's own link with its score and track.
func (d *DigestIndexer) IndexFullText(ctx context.Context, s digest.Scored, pdfPath string) error {
	score := s.Score
	res, err := BuildPaper(ctx, Paper{Path: pdfPath, Source: s.Paper.Link, Title: s.Paper.Title,
		Authors: strings.Join(s.Paper.Authors, "; "), DOI: s.Paper.DOI, Mode: FullText, Score: &score, Track: s.Track}, d.Opts)
	if err != nil {
		return err
	}
	for i := range res.Chunks {
		res.Chunks[i].Meta.FilePath = "" // the download is a temp file
	}
	withVersion(res.Chunks, s.Paper)
	WithYear(res.Chunks, s.Paper.Published.Year())
	return d.Store.Ingest(ctx, d.Embed, res.Chunks, &kb.Filter{Source: s.Paper.Link})
}

// IndexSummaries adds one summary entry per paper from the scoring run's own
// text: no further LLM call. Each entry is its own commit.
func (d *DigestIndexer) IndexSummaries(ctx context.Context, entries []digest.Scored) error {
	for _, s := range entries {
		if err := d.Store.Ingest(ctx, d.Embed, []kb.Chunk{SummaryChunk(s)}, &kb.Filter{Source: s.Paper.Link}); err != nil {
			return err
		}
	}
	return nil
}

// SummaryChunk is a paper's summary entry: what the source said about it
// (categories, journal, comment, version) and the scoring run's text.
func SummaryChunk(s digest.Scored) kb.Chunk {
	p := s.Paper
	authors := strings.Join(p.Authors, "; ")
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", p.Title)
	line := func(label, value string) {
		if value != "" {
			fmt.Fprintf(&b, "%s: %s\n", label, value)
		}
	}
	line("Authors", authors)
	line("Categories", strings.Join(p.Categories, ", "))
	line("Journal", p.JournalRef)
	line("Journal DOI", p.JournalDOI)
	line("Comment", p.Comment)
	if p.Version > 1 {
		line("Version", strconv.Itoa(p.Version))
	}
	fmt.Fprintf(&b, "Link: %s\nScore: %d/10", p.Link, s.Score)
	if s.Track != "" {
		fmt.Fprintf(&b, " (%s)", s.Track)
	}
	if s.Vetted {
		b.WriteString("\nVetted: its claims were checked beyond the authors (venue, released code and data, or reproduction)")
	}
	if s.Slop {
		b.WriteString("\nLikely slop: the scoring found little substance behind the claims")
	}
	b.WriteString("\n\n")
	if s.Summary != "" {
		b.WriteString(s.Summary + "\n")
	} else if p.Abstract != "" {
		b.WriteString(p.Abstract + "\n")
	}
	if s.Reason != "" {
		b.WriteString("Why it matters: " + s.Reason + "\n")
	}
	text := strings.TrimSpace(b.String())
	score := s.Score
	chunks := []kb.Chunk{{Content: text, EmbedText: text, Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public,
		Source: p.Link, Title: p.Title, Authors: authors, DOI: p.DOI, Score: &score, Track: s.Track, StorageMode: Summary}}}
	withVersion(chunks, p)
	WithYear(chunks, p.Published.Year())
	return chunks[0]
}

// ImportOutcome counts what ImportDigest did.
type ImportOutcome struct {
	Summaries, Skipped, Updated, Low int
}

// ImportDigest is `kb add-digest`: it indexes a digest file as a document
// and adds a summary entry for every paper scored 8 or more that is not
// stored yet (papers below 8 stay reachable through the digest document).
func (d *DigestIndexer) ImportDigest(ctx context.Context, path, markdown string) (ImportOutcome, error) {
	var out ImportOutcome
	date, entries := digest.Parse(markdown)
	title := "Paper Digest"
	if date != "" {
		title += " — " + date
	}
	if err := d.IndexDigest(ctx, path, title, markdown); err != nil {
		return out, err
	}
	var fresh []digest.Scored
	for _, s := range entries {
		if s.Score < 8 {
			out.Low++
			continue
		}
		presence, err := d.Stored(ctx, s.Paper)
		if err != nil {
			return out, err
		}
		switch presence {
		case digest.Current:
			out.Skipped++
			continue
		case digest.Stale:
			out.Updated++
		}
		fresh = append(fresh, s)
	}
	out.Summaries = len(fresh)
	return out, d.IndexSummaries(ctx, fresh)
}
