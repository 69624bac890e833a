package digest

import (
	"fmt"
	"strings"
	"time"
)

// Tier names, by score.
const (
	TierMustRead = "Must-Read"     // >= 9
	TierWorth    = "Worth Reading" // 8 to < 9
	TierSkim     = "Skim"          // below 8
)

// TierOf places a score.
func TierOf(score int) string {
	switch {
	case score >= 9:
		return TierMustRead
	case score >= 8:
		return TierWorth
	default:
		return TierSkim
	}
}

// Format renders the digest as Markdown, one section per non-empty tier.
func Format(date time.Time, generated time.Time, scored []Scored, model string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Paper Digest — %s\n\n", date.Format("2006-01-02"))
	fmt.Fprintf(&b, "Generated %s · %d papers · scored by %s\n", generated.Format("2006-01-02 15:04"), len(scored), model)
	for _, tier := range []string{TierMustRead, TierWorth, TierSkim} {
		var in []Scored
		for _, s := range scored {
			if TierOf(s.Score) == tier {
				in = append(in, s)
			}
		}
		if len(in) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n", tier)
		for _, s := range in {
			p := s.Paper
			fmt.Fprintf(&b, "\n### [%s](%s)\n\n", p.Title, p.Link)
			fmt.Fprintf(&b, "**Score:** %d/10", s.Score)
			if s.Track != "" {
				fmt.Fprintf(&b, " · **Track:** %s", s.Track)
			}
			fmt.Fprintf(&b, " · **Source:** %s\n\n", p.Source)
			if len(p.Authors) > 0 {
				fmt.Fprintf(&b, "*%s*\n\n", authorLine(p.Authors))
			}
			if d := detailLine(p); d != "" {
				fmt.Fprintf(&b, "%s\n\n", d)
			}
			if a := assessment(s); a != "" {
				fmt.Fprintf(&b, "%s %s\n\n", assessmentKey, a)
			}
			if s.Summary != "" {
				fmt.Fprintf(&b, "%s\n\n", s.Summary)
			}
			if s.Reason != "" {
				fmt.Fprintf(&b, "**Why:** %s\n", s.Reason)
			}
		}
	}
	return b.String()
}

// authorLine joins names with semicolons: bioRxiv writes "Naka, A.", so a
// comma cannot separate authors.
func authorLine(a []string) string {
	if len(a) > 6 {
		return strings.Join(a[:6], "; ") + " et al."
	}
	return strings.Join(a, "; ")
}

// Detail keys, in the order detailLine writes them.
const (
	keyCategories = "Categories"
	keyVersion    = "Version"
	keyJournal    = "Journal"
	keyJournalDOI = "Journal DOI"
	keyDOI        = "DOI"
	keyComment    = "Comment"
)

// detailLine is what the source says beyond title, authors and abstract,
// as "**Key:** value" pairs: all categories, the revision, the journal
// reference and DOIs, the authors' comment. "" when there is none.
func detailLine(p Paper) string {
	var parts []string
	add := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, "**"+k+":** "+v)
		}
	}
	add(keyCategories, strings.Join(p.Categories, ", "))
	if p.Version > 1 {
		add(keyVersion, fmt.Sprint(p.Version))
	}
	add(keyJournal, p.JournalRef)
	add(keyJournalDOI, p.JournalDOI)
	if !strings.HasSuffix(p.Link, "/"+p.DOI) {
		add(keyDOI, p.DOI)
	}
	add(keyComment, p.Comment)
	return strings.Join(parts, detailSep)
}

const detailSep = " · "

// assessmentKey heads the line with the scoring's slop and vetted flags.
const assessmentKey = "**Assessment:**"

// Assessment words for the flags.
const (
	wordVetted = "vetted"
	wordSlop   = "likely slop"
)

// assessment is the flags the model set, in words ("" when none).
func assessment(s Scored) string {
	var parts []string
	if s.Vetted {
		parts = append(parts, wordVetted)
	}
	if s.Slop {
		parts = append(parts, wordSlop)
	}
	return strings.Join(parts, detailSep)
}
