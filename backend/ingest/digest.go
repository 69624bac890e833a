package ingest

import (
	"context"
	"fmt"
	"path/filepath"
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

// Known reports whether the paper is stored already, by source or by
// normalised title (a paper can arrive via arXiv and bioRxiv).
func (d *DigestIndexer) Known(ctx context.Context, p digest.Paper) (bool, error) {
	dups, err := d.Store.FindDuplicates(ctx, p.Link, p.Title)
	return len(dups) > 0, err
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

// SummaryChunk is a paper's summary entry.
func SummaryChunk(s digest.Scored) kb.Chunk {
	p := s.Paper
	authors := strings.Join(p.Authors, "; ")
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", p.Title)
	if authors != "" {
		fmt.Fprintf(&b, "Authors: %s\n", authors)
	}
	fmt.Fprintf(&b, "Link: %s\nScore: %d/10", p.Link, s.Score)
	if s.Track != "" {
		fmt.Fprintf(&b, " (%s)", s.Track)
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
	return kb.Chunk{Content: text, EmbedText: text, Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public,
		Source: p.Link, Title: p.Title, Authors: authors, DOI: p.DOI, Score: &score, Track: s.Track, StorageMode: Summary}}
}

// ImportOutcome counts what ImportDigest did.
type ImportOutcome struct {
	Summaries, Skipped, Low int
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
		known, err := d.Known(ctx, s.Paper)
		if err != nil {
			return out, err
		}
		if known {
			out.Skipped++
			continue
		}
		fresh = append(fresh, s)
	}
	out.Summaries = len(fresh)
	return out, d.IndexSummaries(ctx, fresh)
}
