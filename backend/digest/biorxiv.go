package digest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// DefaultBiorxivURL is the bioRxiv API root.
const DefaultBiorxivURL = "https://api.biorxiv.org"

// biorxivPage is the number of records the details API returns per cursor step.
const biorxivPage = 30

// Biorxiv is a client for the bioRxiv details API:
// /details/biorxiv/{start}/{end}/{cursor}/json[?category=...].
type Biorxiv struct {
	BaseURL string
	HTTP    *http.Client
	Retry   Retry
	Now     func() time.Time
}

// NewBiorxiv returns a client of the official API with default retries.
func NewBiorxiv() *Biorxiv { return NewBiorxivAt(DefaultBiorxivURL) }

// NewBiorxivAt returns a client of the API rooted at root
// (digest.biorxiv_url).
func NewBiorxivAt(root string) *Biorxiv {
	return &Biorxiv{BaseURL: cmp.Or(root, DefaultBiorxivURL), HTTP: &http.Client{Timeout: 60 * time.Second}, Retry: Retry{Attempts: 4, Backoff: 5 * time.Second}}
}

type biorxivResponse struct {
	Messages []struct {
		Status string `json:"status"`
		Total  any    `json:"total"` // the API sends a number or a string
	} `json:"messages"`
	Collection []biorxivRecord `json:"collection"`
}

// biorxivRecord is one version of one preprint; a revised preprint comes
// back once per version, under one DOI.
type biorxivRecord struct {
	DOI       string `json:"doi"`
	Title     string `json:"title"`
	Authors   string `json:"authors"` // "Naka, A.; Shababo, B."
	Date      string `json:"date"`
	Version   string `json:"version"`
	Category  string `json:"category"`
	Abstract  string `json:"abstract"`
	Published string `json:"published"` // the journal version's DOI, or "NA"
}

func (r biorxivRecord) paper() Paper {
	p := Paper{ID: r.DOI, DOI: r.DOI, Title: cleanJATS(r.Title), Abstract: cleanJATS(r.Abstract), Link: "https://doi.org/" + r.DOI, Source: r.Category}
	if c := clean(r.Category); c != "" {
		p.Categories = []string{c}
	}
	for _, a := range strings.Split(r.Authors, ";") {
		if a = clean(a); a != "" {
			p.Authors = append(p.Authors, a)
		}
	}
	if t, err := time.Parse("2006-01-02", r.Date); err == nil {
		p.Published = t
	}
	p.Version, _ = strconv.Atoi(strings.TrimSpace(r.Version))
	if j := clean(r.Published); j != "" && !strings.EqualFold(j, "NA") {
		p.JournalDOI = j
	}
	return p
}

func (b *Biorxiv) window(days int) (string, string) {
	now := time.Now
	if b.Now != nil {
		now = b.Now
	}
	end := now().UTC()
	return end.AddDate(0, 0, -days).Format("2006-01-02"), end.Format("2006-01-02")
}

// walk pages through a window, calling keep for each record until it has
// collected max papers or the window is exhausted. Several versions of one
// DOI make one paper, at its newest version.
func (b *Biorxiv) walk(ctx context.Context, days int, category string, max int, keep func(Paper) (Paper, bool)) ([]Paper, error) {
	start, end := b.window(days)
	var out []Paper
	err := b.Retry.Do(ctx, func() error {
		out = out[:0]
		at := map[string]int{} // DOI -> its paper in out
		for cursor := 0; len(out) < max; cursor += biorxivPage {
			u := fmt.Sprintf("%s/details/biorxiv/%s/%s/%d/json", strings.TrimRight(b.BaseURL, "/"), start, end, cursor)
			if category != "" {
				u += "?category=" + url.QueryEscape(category)
			}
			page, err := b.get(ctx, u)
			if err != nil {
				return err
			}
			if len(page.Collection) == 0 {
				if cursor == 0 {
					return errs.New(errs.Fetch, "biorxiv", "empty first page for %s..%s", start, end)
				}
				break
			}
			for _, r := range page.Collection {
				if r.DOI == "" {
					continue
				}
				p, ok := keep(r.paper())
				if i, seen := at[r.DOI]; seen {
					if ok && p.Version > out[i].Version {
						out[i] = p
					}
					continue
				}
				if ok {
					at[r.DOI] = len(out)
					out = append(out, p)
					if len(out) >= max {
						break
					}
				}
			}
			if total, ok := totalOf(page); ok && cursor+biorxivPage >= total {
				break
			}
			if len(page.Collection) < biorxivPage {
				break
			}
		}
		return nil
	})
	return out, err
}

func totalOf(r biorxivResponse) (int, bool) {
	if len(r.Messages) == 0 {
		return 0, false
	}
	switch t := r.Messages[0].Total.(type) {
	case float64:
		return int(t), true
	case string:
		n, err := strconv.Atoi(t)
		return n, err == nil
	}
	return 0, false
}

func (b *Biorxiv) get(ctx context.Context, u string) (biorxivResponse, error) {
	const op = "biorxiv.get"
	resp, err := get(ctx, b.HTTP, op, "bioRxiv", u)
	if err != nil {
		return biorxivResponse{}, err
	}
	defer resp.Body.Close()
	var r biorxivResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return biorxivResponse{}, errs.Wrapf(errs.Fetch, op, err, "unreadable bioRxiv response")
	}
	return r, nil
}

// FetchCategory returns up to max recent preprints of one server-side
// category.
func (b *Biorxiv) FetchCategory(ctx context.Context, category string, max, days int) ([]Paper, error) {
	return b.walk(ctx, days, category, max, func(p Paper) (Paper, bool) { return p, true })
}

// FetchKeywords walks one uncategorised window and keeps preprints whose
// title or abstract contains any keyword (case-insensitive), tagged
// "bioRxiv:<keyword>" by the first keyword that matched; DOI-deduplicated.
func (b *Biorxiv) FetchKeywords(ctx context.Context, keywords []string, max, days int) ([]Paper, error) {
	return b.walk(ctx, days, "", max, func(p Paper) (Paper, bool) {
		text := strings.ToLower(p.Title + " " + p.Abstract)
		for _, k := range keywords {
			if strings.Contains(text, strings.ToLower(k)) {
				p.Source = "bioRxiv:" + k
				return p, true
			}
		}
		return p, false
	})
}

// FetchDOI returns one preprint by its DOI, at its newest version, from
// the details API (/details/biorxiv/{doi}/na/json).
func (b *Biorxiv) FetchDOI(ctx context.Context, doi string) (Paper, error) {
	doi = strings.TrimSpace(doi)
	if !doiRE.MatchString(doi) {
		return Paper{}, errs.New(errs.Invalid, "biorxiv", "%q is not a DOI", doi)
	}
	var p Paper
	err := b.Retry.Do(ctx, func() error {
		r, err := b.get(ctx, fmt.Sprintf("%s/details/biorxiv/%s/na/json", strings.TrimRight(b.BaseURL, "/"), doi))
		if err != nil {
			return err
		}
		found := false
		for _, rec := range r.Collection {
			if strings.EqualFold(rec.DOI, doi) {
				if q := rec.paper(); !found || q.Version > p.Version {
					p, found = q, true
				}
			}
		}
		if !found {
			return errs.New(errs.NotFound, "biorxiv", "bioRxiv has no preprint %s", doi)
		}
		return nil
	})
	return p, err
}

// doiRE matches a bare DOI.
var doiRE = regexp.MustCompile(`^10\.\d{4,9}/\S+$`)

// ParseDOI extracts a DOI from "10.x/y", "doi:10.x/y" or a doi.org URL
// (https, http, dx.), or returns "".
func ParseDOI(s string) string {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	for _, prefix := range []string{"doi:", "https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/", "doi.org/"} {
		if strings.HasPrefix(low, prefix) {
			s = s[len(prefix):]
			if u, err := url.PathUnescape(s); err == nil {
				s = u
			}
			break
		}
	}
	if doiRE.MatchString(s) {
		return s
	}
	return ""
}
