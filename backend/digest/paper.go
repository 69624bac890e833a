// Package digest is the opt-in weekly paper digest: fetch recent preprints
// from arXiv and bioRxiv, score them against the user's research context with
// one LLM call, write a tiered Markdown digest, and index by score tier.
package digest

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Paper is one fetched preprint, whatever the server.
type Paper struct {
	ID        string    `json:"id"` // arXiv id or bioRxiv DOI
	Title     string    `json:"title"`
	Abstract  string    `json:"abstract"`
	Authors   []string  `json:"authors"`
	Link      string    `json:"link"`    // abs page or https://doi.org/<doi>
	PDFURL    string    `json:"pdf_url"` // empty when not derivable (bioRxiv)
	DOI       string    `json:"doi,omitempty"`
	Published time.Time `json:"published"`
	Source    string    `json:"source"` // category, or "bioRxiv:<keyword>"
	// Categories are all the paper's subject classes, the primary first
	// (arXiv lists secondary ones too; bioRxiv has one).
	Categories []string `json:"categories,omitempty"`
	Comment    string   `json:"comment,omitempty"`     // the authors' note: "8 pages, 3 figures"
	JournalRef string   `json:"journal_ref,omitempty"` // where it was published
	JournalDOI string   `json:"journal_doi,omitempty"` // the published version's DOI, when not DOI itself
	// Version is the preprint's revision (arXiv vN, bioRxiv version); a
	// stored paper at an older version is updated, not duplicated.
	Version int `json:"version,omitempty"`
}

var spaceRun = regexp.MustCompile(`\s+`)

func clean(s string) string { return strings.TrimSpace(spaceRun.ReplaceAllString(s, " ")) }

var nonWord = regexp.MustCompile(`[^\p{L}\p{N}]+`)

func titleKey(t string) string {
	return strings.TrimSpace(nonWord.ReplaceAllString(strings.ToLower(t), " "))
}

// Deduplicate drops papers whose normalised title was already seen (the same
// preprint listed in two categories), keeping the first.
func Deduplicate(papers []Paper) []Paper {
	seen := map[string]bool{}
	var out []Paper
	for _, p := range papers {
		k := titleKey(p.Title)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// Retry is the outer retry policy for whole fetches: exponential backoff
// (Backoff * 2^(attempt-1)) with up to 25% random jitter, so repeated
// failures don't hammer a struggling service in lockstep.
type Retry struct {
	Attempts int
	Backoff  time.Duration
	Sleep    func(context.Context, time.Duration) error // injectable for tests
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errs.Wrap(errs.Cancelled, "digest", ctx.Err())
	}
}

// Do runs fn until it succeeds, fails with a non-fetch error, or the
// attempts run out. Only errs.Fetch errors are retried.
func (r Retry) Do(ctx context.Context, fn func() error) error {
	attempts := max(r.Attempts, 1)
	sleep := r.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	var err error
	for i := 1; i <= attempts; i++ {
		if err = fn(); err == nil || !errs.Is(err, errs.Fetch) {
			return err
		}
		if i == attempts {
			break
		}
		d := r.Backoff * time.Duration(1<<(i-1))
		d += time.Duration(rand.Float64() * 0.25 * float64(d))
		if serr := sleep(ctx, d); serr != nil {
			return serr
		}
	}
	return errs.Wrapf(errs.Fetch, "digest", err, "giving up after %d attempts", attempts)
}
