package digest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// Indexer puts digest output into the knowledge base. The pipeline decides
// what goes in by score; the indexer decides how (chunking, embedding).
type Indexer interface {
	// IndexDigest indexes the digest file itself as doc_type "digest".
	IndexDigest(ctx context.Context, path, title, markdown string) error
	// Stored reports whether a paper is already stored (by source or
	// title), and whether at an older version than p.
	Stored(ctx context.Context, p Paper) (Presence, error)
	// IndexFullText ingests a downloaded PDF as a full-text paper.
	IndexFullText(ctx context.Context, s Scored, pdfPath string) error
	// IndexSummaries adds summary entries built from the scoring run's own
	// text: no further LLM call.
	IndexSummaries(ctx context.Context, entries []Scored) error
}

// Presence is what the knowledge base holds of a paper.
type Presence int

const (
	Absent  Presence = iota // not stored
	Current                 // stored at this version or newer
	Stale                   // stored at an older version: a revision updates it
)

// Pipeline runs one digest.
type Pipeline struct {
	Cfg       config.Digest
	Arxiv     *Arxiv
	Biorxiv   *Biorxiv
	LLM       Completer
	ModelName string
	Prompt    func() (string, error) // the user's scoring prompt, read fresh
	Index     Indexer                // nil: write the digest file only
	Now       func() time.Time
	Log       func(format string, args ...any)
}

// Outcome counts what a run did.
type Outcome struct {
	Fetched         int      `json:"fetched"`
	Unique          int      `json:"unique"`
	Selected        int      `json:"selected"`
	DigestPath      string   `json:"digest_path"`
	FullText        int      `json:"full_text"`
	SummaryFallback int      `json:"summary_fallback"`
	Summaries       int      `json:"summaries"`
	Skipped         int      `json:"skipped"` // already in the knowledge base
	Updated         int      `json:"updated"` // revisions that replaced an older stored version
	Warnings        []string `json:"warnings,omitempty"`
}

func (p *Pipeline) logf(format string, args ...any) {
	if p.Log != nil {
		p.Log(format, args...)
	}
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// Run fetches, scores, writes and indexes one digest.
func (p *Pipeline) Run(ctx context.Context) (Outcome, error) {
	var out Outcome
	warn := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		out.Warnings = append(out.Warnings, msg)
		p.logf("warning: %s", msg)
	}
	// One source failing is a warning, not the end of the digest; a stop is.
	var all []Paper
	collect := func(label string, fetch func() ([]Paper, error)) error {
		papers, err := fetch()
		if err != nil {
			if errs.Is(err, errs.Cancelled) {
				return err
			}
			warn("%s: %v", label, err)
			return nil
		}
		p.logf("%s: %d papers", label, len(papers))
		all = append(all, papers...)
		return nil
	}
	for _, c := range p.Cfg.ArxivCategories {
		if err := collect("arXiv "+c.Name, func() ([]Paper, error) { return p.Arxiv.FetchCategory(ctx, c.Name, c.Limit) }); err != nil {
			return out, err
		}
	}
	if p.Biorxiv != nil {
		for _, c := range p.Cfg.BiorxivCategories {
			if err := collect("bioRxiv "+c.Name, func() ([]Paper, error) {
				return p.Biorxiv.FetchCategory(ctx, c.Name, c.Limit, p.Cfg.BiorxivDays)
			}); err != nil {
				return out, err
			}
		}
		for _, k := range p.Cfg.BiorxivKeywords {
			if err := collect("bioRxiv keyword "+k.Name, func() ([]Paper, error) {
				return p.Biorxiv.FetchKeywords(ctx, []string{k.Name}, k.Limit, p.Cfg.BiorxivDays)
			}); err != nil {
				return out, err
			}
		}
	}
	out.Fetched = len(all)
	unique := Deduplicate(all)
	out.Unique = len(unique)
	if len(unique) == 0 {
		return out, errs.New(errs.Fetch, "digest", "no papers could be fetched (%d warnings)", len(out.Warnings))
	}
	prompt, err := p.Prompt()
	if err != nil {
		return out, err
	}
	scored, err := Score(ctx, p.LLM, prompt, unique, p.Cfg.MaxResults, 3, func(err error, wait time.Duration) {
		p.logf("scoring failed (%v); retrying in %s", err, wait.Round(time.Second))
	})
	if err != nil {
		return out, err
	}
	out.Selected = len(scored)

	now := p.now()
	md := Format(now, now, scored, p.ModelName)
	if err := os.MkdirAll(p.Cfg.OutputDir, 0o755); err != nil {
		return out, errs.Wrapf(errs.Internal, "digest", err, "cannot create %s", p.Cfg.OutputDir)
	}
	out.DigestPath = filepath.Join(p.Cfg.OutputDir, "digest-"+now.Format("2006-01-02")+".md")
	if err := fsutil.WriteFileAtomic(out.DigestPath, []byte(md), 0o644); err != nil {
		return out, errs.Wrap(errs.Internal, "digest", err)
	}
	p.logf("digest written to %s", out.DigestPath)
	if p.Index == nil {
		warn("knowledge-base indexing skipped: no indexer available")
		return out, nil
	}
	if err := p.Index.IndexDigest(ctx, out.DigestPath, "Paper Digest — "+now.Format("2006-01-02"), md); err != nil {
		return out, err
	}
	return out, p.indexTiers(ctx, scored, &out, warn)
}

// indexTiers: >= 9 full text (fallback to a summary entry), 8 to < 9 summary
// entries, below 8 only through the digest document.
func (p *Pipeline) indexTiers(ctx context.Context, scored []Scored, out *Outcome, warn func(string, ...any)) error {
	var summaries []Scored
	tmp, err := os.MkdirTemp("", "jarvis-digest-")
	if err != nil {
		return errs.Wrap(errs.Internal, "digest", err)
	}
	defer os.RemoveAll(tmp)
	for _, s := range scored {
		if s.Score < 8 {
			continue
		}
		presence, err := p.Index.Stored(ctx, s.Paper)
		if err != nil {
			return err
		}
		switch presence {
		case Current:
			out.Skipped++
			continue
		case Stale:
			out.Updated++ // indexed below, replacing the stored entry
		}
		if s.Score < 9 {
			summaries = append(summaries, s)
			out.Summaries++
			continue
		}
		if err := p.fullText(ctx, s, tmp); err != nil {
			if errs.Is(err, errs.Cancelled) {
				return err
			}
			warn("%s: full text unavailable (%v); indexed as a summary", s.Paper.Title, err)
			summaries = append(summaries, s)
			out.SummaryFallback++
			continue
		}
		out.FullText++
	}
	if len(summaries) > 0 {
		return p.Index.IndexSummaries(ctx, summaries)
	}
	return nil
}

func (p *Pipeline) fullText(ctx context.Context, s Scored, dir string) error {
	if s.Paper.PDFURL == "" || ParseArxivID(s.Paper.Link) == "" {
		return errs.New(errs.Fetch, "digest", "no PDF can be derived for this source")
	}
	path, err := p.Arxiv.DownloadPDF(ctx, s.Paper.ID, dir)
	if err != nil {
		return err
	}
	return p.Index.IndexFullText(ctx, s, path)
}
