// Package digesttest is a loopback arXiv for tests: the API answers with a
// recorded page of two papers and the PDF server serves their PDF, as the
// chat tool, the digest, `kb add` and the MCP server's tests all need.
package digesttest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/digest"
)

// paperIDs are the papers in Feed, whose PDFs Arxiv serves.
var paperIDs = []string{"2611.01234", "2611.05678"}

// Feed is the recorded arXiv API page backend/digest/testdata/arxiv_page.xml
// (two cs.LG papers, 2611.01234v2 and 2611.05678v1), found from the
// module root above the test's directory.
func Feed(t testing.TB) []byte {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			feed, err := os.ReadFile(filepath.Join(d, "backend", "digest", "testdata", "arxiv_page.xml"))
			if err != nil {
				t.Fatal(err)
			}
			return feed
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// Arxiv speaks the arXiv API and PDF server: /pdf/<id> of either paper in
// Feed is the PDF, any other /pdf/ path is not found, and every other
// request (a query) is answered with Feed.
type Arxiv struct {
	PDFs atomic.Int32 // PDFs served

	feed, pdf []byte
}

// NewArxiv is an Arxiv serving the PDF at pdfPath (as the test's directory
// sees it) for both papers; with pdfPath "", every PDF is not found.
func NewArxiv(t testing.TB, pdfPath string) *Arxiv {
	t.Helper()
	a := &Arxiv{feed: Feed(t)}
	if pdfPath != "" {
		pdf, err := os.ReadFile(pdfPath)
		if err != nil {
			t.Fatal(err)
		}
		a.pdf = pdf
	}
	return a
}

func (a *Arxiv) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, isPDF := strings.CutPrefix(r.URL.Path, "/pdf/")
	if !isPDF {
		w.Header().Set("Content-Type", "application/atom+xml")
		w.Write(a.feed)
		return
	}
	if !slices.Contains(paperIDs, id) || a.pdf == nil {
		http.NotFound(w, r)
		return
	}
	a.PDFs.Add(1)
	w.Header().Set("Content-Type", "application/pdf")
	w.Write(a.pdf)
}

// ServeArxiv starts NewArxiv(t, pdfPath) on a loopback server, closed when
// the test ends.
func ServeArxiv(t testing.TB, pdfPath string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(NewArxiv(t, pdfPath))
	t.Cleanup(srv.Close)
	return srv
}

// Client is an arXiv client of srv's API (/api/query) and PDFs (/pdf):
// ten results a page, one attempt, no courtesy delay.
func Client(srv *httptest.Server) *digest.Arxiv {
	return &digest.Arxiv{BaseURL: srv.URL + "/api/query", PDFBase: srv.URL + "/pdf", HTTP: srv.Client(),
		PageSize: 10, Retry: digest.Retry{Attempts: 1}}
}
