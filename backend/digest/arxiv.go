package digest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// DefaultArxivURL is the arXiv API query endpoint.
const DefaultArxivURL = "https://export.arxiv.org/api/query"

// Arxiv is an arXiv API client. One client is shared across categories so
// the courtesy delay arXiv's terms ask for (3 s between requests) holds
// across successive fetches, not just within one.
type Arxiv struct {
	BaseURL  string
	PDFBase  string // https://arxiv.org/pdf
	HTTP     *http.Client
	Delay    time.Duration // between requests; 3 s by default
	PageSize int           // results per request; 100 by default
	Retry    Retry

	mu   sync.Mutex
	last time.Time
	now  func() time.Time
}

// NewArxiv returns a client of the official API with arXiv's courtesy
// defaults.
func NewArxiv() *Arxiv { return NewArxivAt(DefaultArxivURL) }

// NewArxivAt returns a client of the API at queryURL (digest.arxiv_url).
// PDFs come from arxiv.org for the official API and from <origin>/pdf of
// any other (a mirror, a test server).
func NewArxivAt(queryURL string) *Arxiv {
	queryURL = cmp.Or(queryURL, DefaultArxivURL)
	pdfBase := "https://arxiv.org/pdf"
	if u, err := url.Parse(queryURL); err == nil && queryURL != DefaultArxivURL && u.Host != "" {
		pdfBase = u.Scheme + "://" + u.Host + "/pdf"
	}
	return &Arxiv{BaseURL: queryURL, PDFBase: pdfBase, HTTP: &http.Client{Timeout: 60 * time.Second},
		Delay: 3 * time.Second, PageSize: 100, Retry: Retry{Attempts: 4, Backoff: 5 * time.Second}}
}

// wait enforces the courtesy delay between any two requests of this client.
func (a *Arxiv) wait(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now
	if a.now != nil {
		now = a.now
	}
	if !a.last.IsZero() {
		if d := a.Delay - now().Sub(a.last); d > 0 {
			sleep := a.Retry.Sleep
			if sleep == nil {
				sleep = sleepCtx
			}
			if err := sleep(ctx, d); err != nil {
				return err
			}
		}
	}
	a.last = now()
	return nil
}

type atomFeed struct {
	Entries []atomEntry `xml:"entry"`
	Total   int         `xml:"totalResults"`
}

type atomEntry struct {
	ID        string `xml:"id"`
	Title     string `xml:"title"`
	Summary   string `xml:"summary"`
	Published string `xml:"published"`
	Authors   []struct {
		Name string `xml:"name"`
	} `xml:"author"`
	Links []struct {
		Href  string `xml:"href,attr"`
		Title string `xml:"title,attr"`
		Type  string `xml:"type,attr"`
	} `xml:"link"`
	Primary struct {
		Term string `xml:"term,attr"`
	} `xml:"primary_category"`
	Categories []struct {
		Term string `xml:"term,attr"`
	} `xml:"category"`
	DOI        string `xml:"doi"`
	Comment    string `xml:"comment"`
	JournalRef string `xml:"journal_ref"`
}

// isError reports arXiv's way of explaining a refused query: an entry
// whose id points into its error documentation.
func (e atomEntry) isError() bool {
	return strings.Contains(e.ID, "/api/errors") || strings.TrimSpace(e.Title) == "Error"
}

func (e atomEntry) paper(source string) Paper {
	id := ParseArxivID(e.ID)
	p := Paper{ID: id, Title: clean(e.Title), Abstract: clean(e.Summary), Link: "https://arxiv.org/abs/" + id, DOI: clean(e.DOI), Source: source,
		Comment: clean(e.Comment), JournalRef: clean(e.JournalRef), Version: arxivVersion(e.ID)}
	terms := []string{e.Primary.Term}
	for _, c := range e.Categories {
		terms = append(terms, c.Term)
	}
	for _, c := range terms {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(p.Categories, c) {
			p.Categories = append(p.Categories, c)
		}
	}
	if t, err := time.Parse(time.RFC3339, e.Published); err == nil {
		p.Published = t
	}
	for _, a := range e.Authors {
		p.Authors = append(p.Authors, clean(a.Name))
	}
	for _, l := range e.Links {
		if l.Title == "pdf" || l.Type == "application/pdf" {
			p.PDFURL = l.Href
		}
	}
	if p.Source == "" {
		p.Source = e.Primary.Term
	}
	return p
}

// query performs one API request and parses the Atom feed. A query arXiv
// refuses (HTTP 400 with an error entry, or an error entry in a 200 feed)
// is Invalid with arXiv's own explanation, and is not retried; other
// failures are Fetch errors, retried by the caller.
func (a *Arxiv) query(ctx context.Context, params url.Values) (atomFeed, error) {
	const op = "arxiv.query"
	if err := a.wait(ctx); err != nil {
		return atomFeed{}, err
	}
	u := a.BaseURL + "?" + params.Encode()
	resp, err := send(ctx, a.HTTP, op, u)
	if err != nil {
		return atomFeed{}, err
	}
	defer resp.Body.Close()
	var feed atomFeed
	decodeErr := xml.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&feed)
	for _, e := range feed.Entries {
		if e.isError() {
			return atomFeed{}, errs.New(errs.Invalid, op, "arXiv refused the query (%s): %s", resp.Status, clean(e.Summary))
		}
	}
	switch {
	case refused(resp.StatusCode):
		return atomFeed{}, errs.New(errs.Invalid, op, "arXiv refused the query: %s for %s", resp.Status, u)
	case resp.StatusCode != http.StatusOK:
		return atomFeed{}, errs.New(errs.Fetch, op, "arXiv answered %s for %s", resp.Status, u)
	case decodeErr != nil:
		return atomFeed{}, errs.Wrapf(errs.Fetch, op, decodeErr, "unreadable Atom feed")
	}
	return feed, nil
}

// refused reports a client error that asking again will not fix: a bad
// request, not a rate limit or a timeout.
func refused(status int) bool {
	return status >= 400 && status < 500 && status != http.StatusTooManyRequests && status != http.StatusRequestTimeout
}

var arxivVersionRE = regexp.MustCompile(`v(\d+)$`)

// arxivVersion is the vN suffix of an entry id (0 when absent).
func arxivVersion(id string) int {
	if m := arxivVersionRE.FindStringSubmatch(strings.TrimSpace(id)); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// FetchCategory returns the newest max papers of a category, paging as
// needed. An empty feed is treated as a transient failure and retried: a
// recent arXiv category is never genuinely empty, and the API is known to
// answer 200 with nothing when it is struggling.
func (a *Arxiv) FetchCategory(ctx context.Context, category string, max int) ([]Paper, error) {
	var out []Paper
	err := a.Retry.Do(ctx, func() error {
		out = out[:0]
		for start := 0; start < max; {
			n := min(a.PageSize, max-start)
			feed, err := a.query(ctx, url.Values{
				"search_query": {"cat:" + category}, "sortBy": {"submittedDate"}, "sortOrder": {"descending"},
				"start": {fmt.Sprint(start)}, "max_results": {fmt.Sprint(n)},
			})
			if err != nil {
				return err
			}
			if len(feed.Entries) == 0 {
				if start == 0 {
					return errs.New(errs.Fetch, "arxiv", "empty feed for %s", category)
				}
				break
			}
			for _, e := range feed.Entries {
				out = append(out, e.paper(category))
			}
			start += len(feed.Entries)
			if len(feed.Entries) < n {
				break
			}
		}
		return nil
	})
	return out, err
}

// FetchPaper returns one paper by id; its source is its primary category.
func (a *Arxiv) FetchPaper(ctx context.Context, id string) (Paper, error) {
	id = ParseArxivID(id)
	if id == "" {
		return Paper{}, errs.New(errs.Invalid, "arxiv", "not an arXiv id or URL")
	}
	var p Paper
	err := a.Retry.Do(ctx, func() error {
		feed, err := a.query(ctx, url.Values{"id_list": {id}})
		if err != nil {
			return err
		}
		if len(feed.Entries) == 0 || strings.TrimSpace(feed.Entries[0].Title) == "" {
			return errs.New(errs.NotFound, "arxiv", "no arXiv paper %s", id)
		}
		p = feed.Entries[0].paper("")
		return nil
	})
	return p, err
}

var (
	newStyleID = regexp.MustCompile(`(\d{4}\.\d{4,5})(v\d+)?`)
	oldStyleID = regexp.MustCompile(`([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?`)
)

// ParseArxivID extracts an arXiv id (without version) from an id or any
// arXiv URL form: abs, pdf (with or without .pdf), html, format, export.,
// www., arxiv: prefixes, old-style archive/NNNNNNN ids.
func ParseArxivID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "arXiv:"), "arxiv:")
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		host := strings.TrimPrefix(strings.TrimPrefix(u.Host, "www."), "export.")
		if host != "arxiv.org" {
			return ""
		}
		s = u.Path
	}
	if m := newStyleID.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if m := oldStyleID.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// DownloadPDF saves an arXiv PDF into destDir and returns its path.
func (a *Arxiv) DownloadPDF(ctx context.Context, id, destDir string) (string, error) {
	const op = "arxiv.DownloadPDF"
	id = ParseArxivID(id)
	if id == "" {
		return "", errs.New(errs.Invalid, op, "not an arXiv id")
	}
	if err := a.wait(ctx); err != nil {
		return "", err
	}
	resp, err := get(ctx, a.HTTP, op, "the PDF server", strings.TrimRight(a.PDFBase, "/")+"/"+id)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 200<<20))
	if err != nil {
		return "", errs.Wrap(errs.Fetch, op, err)
	}
	if !bytes.HasPrefix(body, []byte("%PDF")) {
		return "", errs.New(errs.Fetch, op, "the download for %s is not a PDF", id)
	}
	path := filepath.Join(destDir, strings.ReplaceAll(id, "/", "_")+".pdf")
	if err := fsutil.WriteFileAtomic(path, body, 0o600); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	return path, nil
}

// send performs a GET and returns the response whatever its status;
// transport failures are fetch errors (retryable), a stop is a
// cancellation.
func send(ctx context.Context, client *http.Client, op, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errs.Wrap(errs.Cancelled, op, ctx.Err())
		}
		return nil, errs.Wrap(errs.Fetch, op, err)
	}
	return resp, nil
}

// get performs a GET and returns the response only for 200 OK; any other
// status is a fetch error (retryable).
func get(ctx context.Context, client *http.Client, op, service, u string) (*http.Response, error) {
	resp, err := send(ctx, client, op, u)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, errs.New(errs.Fetch, op, "%s answered %s for %s", service, resp.Status, u)
	}
	return resp, nil
}
