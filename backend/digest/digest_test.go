package digest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noSleep records requested sleeps instead of sleeping.
type noSleep struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (n *noSleep) sleep(_ context.Context, d time.Duration) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.slept = append(n.slept, d)
	return nil
}

func arxivServer(t *testing.T, pages ...[]byte) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var queries []string
	i := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		queries = append(queries, r.URL.RawQuery)
		if strings.HasPrefix(r.URL.Path, "/pdf/") {
			if strings.HasSuffix(r.URL.Path, "2611.01234") {
				w.Write([]byte("%PDF-1.4 fake"))
				return
			}
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/atom+xml")
		w.Write(pages[min(i, len(pages)-1)])
		i++
	}))
	t.Cleanup(srv.Close)
	return srv, &queries
}

func testArxiv(srv *httptest.Server, s *noSleep) *Arxiv {
	return &Arxiv{BaseURL: srv.URL + "/api/query", PDFBase: srv.URL + "/pdf", HTTP: srv.Client(), Delay: 3 * time.Second, PageSize: 100,
		Retry: Retry{Attempts: 3, Backoff: time.Second, Sleep: s.sleep}}
}

func TestArxivFetchCategoryParsesAtom(t *testing.T) {
	srv, queries := arxivServer(t, fixture(t, "arxiv_page.xml"))
	s := &noSleep{}
	a := testArxiv(srv, s)
	papers, err := a.FetchCategory(context.Background(), "cs.LG", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(papers) != 2 {
		t.Fatalf("papers = %+v", papers)
	}
	p := papers[0]
	if p.ID != "2611.01234" || p.Title != "Sparse Mixtures of Experts for Cytometry" || p.Abstract != "We study sparse expert routing for high-dimensional cytometry data." ||
		len(p.Authors) != 2 || p.DOI != "10.1000/example.1" || p.PDFURL != "http://arxiv.org/pdf/2611.01234v2" || p.Source != "cs.LG" || p.Published.Day() != 28 {
		t.Fatalf("paper = %+v", p)
	}
	q := (*queries)[0]
	for _, want := range []string{"search_query=cat%3Acs.LG", "sortBy=submittedDate", "max_results=5"} {
		if !strings.Contains(q, want) {
			t.Fatalf("query %q lacks %s", q, want)
		}
	}
}

func TestArxivCourtesyDelaySharedAcrossCategories(t *testing.T) {
	srv, _ := arxivServer(t, fixture(t, "arxiv_page.xml"))
	s := &noSleep{}
	a := testArxiv(srv, s)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	a.now = func() time.Time { return now }
	a.FetchCategory(context.Background(), "cs.LG", 2)
	a.FetchCategory(context.Background(), "cs.AI", 2)
	if len(s.slept) != 1 || s.slept[0] != 3*time.Second {
		t.Fatalf("the second category must wait the courtesy delay: %v", s.slept)
	}
}

func TestArxivEmptyFeedIsRetriedWithBackoff(t *testing.T) {
	srv, queries := arxivServer(t, fixture(t, "arxiv_empty.xml"), fixture(t, "arxiv_empty.xml"), fixture(t, "arxiv_page.xml"))
	s := &noSleep{}
	a := testArxiv(srv, s)
	a.Delay = 0
	papers, err := a.FetchCategory(context.Background(), "cs.LG", 2)
	if err != nil || len(papers) != 2 || len(*queries) != 3 {
		t.Fatalf("%v %d papers after %d queries", err, len(papers), len(*queries))
	}
	if len(s.slept) != 2 || s.slept[0] < time.Second || s.slept[0] > 1250*time.Millisecond || s.slept[1] < 2*time.Second || s.slept[1] > 2500*time.Millisecond {
		t.Fatalf("backoff with jitter: %v", s.slept)
	}
	srv2, _ := arxivServer(t, fixture(t, "arxiv_empty.xml"))
	a2 := testArxiv(srv2, &noSleep{})
	if _, err := a2.FetchCategory(context.Background(), "cs.LG", 2); !errs.Is(err, errs.Fetch) {
		t.Fatalf("persistently empty feed: %v", err)
	}
}

func TestArxivFetchPaperAndPDF(t *testing.T) {
	srv, queries := arxivServer(t, fixture(t, "arxiv_page.xml"))
	a := testArxiv(srv, &noSleep{})
	p, err := a.FetchPaper(context.Background(), "https://arxiv.org/pdf/2611.01234v2.pdf")
	if err != nil || p.ID != "2611.01234" || p.Source != "cs.LG" {
		t.Fatalf("%v %+v", err, p)
	}
	if !strings.Contains((*queries)[0], "id_list=2611.01234") {
		t.Fatalf("query = %s", (*queries)[0])
	}
	path, err := a.DownloadPDF(context.Background(), "2611.01234", t.TempDir())
	if err != nil || !strings.HasSuffix(path, "2611.01234.pdf") {
		t.Fatalf("%v %s", err, path)
	}
	if _, err := a.DownloadPDF(context.Background(), "2611.09999", t.TempDir()); !errs.Is(err, errs.Fetch) {
		t.Fatalf("404 pdf: %v", err)
	}
}

func TestParseArxivID(t *testing.T) {
	cases := map[string]string{
		"2401.01234":                             "2401.01234",
		"2401.01234v3":                           "2401.01234",
		"arXiv:2401.01234":                       "2401.01234",
		"https://arxiv.org/abs/2401.01234v2":     "2401.01234",
		"https://arxiv.org/pdf/2401.01234":       "2401.01234",
		"https://arxiv.org/pdf/2401.01234v1.pdf": "2401.01234",
		"https://www.arxiv.org/abs/2401.01234":   "2401.01234",
		"http://export.arxiv.org/abs/2401.01234": "2401.01234",
		"https://arxiv.org/html/2401.01234v1":    "2401.01234",
		"https://arxiv.org/format/2401.01234":    "2401.01234",
		"https://arxiv.org/abs/hep-th/9901001v2": "hep-th/9901001",
		"https://arxiv.org/abs/math.GT/0309136":  "math.GT/0309136",
		"0704.0001":                              "0704.0001",
		"https://example.com/abs/2401.01234":     "",
		"not an id":                              "",
	}
	for in, want := range cases {
		if got := ParseArxivID(in); got != want {
			t.Errorf("ParseArxivID(%q) = %q, want %q", in, got, want)
		}
	}
}

func biorxivServer(t *testing.T, body []byte) (*httptest.Server, *[]string) {
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths = append(paths, r.URL.RequestURI())
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &paths
}

func TestBiorxivCategoryAndKeywords(t *testing.T) {
	srv, paths := biorxivServer(t, fixture(t, "biorxiv_page.json"))
	b := &Biorxiv{BaseURL: srv.URL, HTTP: srv.Client(), Retry: Retry{Attempts: 2, Sleep: (&noSleep{}).sleep},
		Now: func() time.Time { return time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC) }}
	papers, err := b.FetchCategory(context.Background(), "bioinformatics", 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(papers) != 2 || papers[0].Link != "https://doi.org/10.1101/2026.11.28.111111" || len(papers[0].Authors) != 2 {
		t.Fatalf("DOI dedupe and mapping: %+v", papers)
	}
	if (*paths)[0] != "/details/biorxiv/2026-11-25/2026-12-02/0/json?category=bioinformatics" {
		t.Fatalf("path = %s", (*paths)[0])
	}
	kw, err := b.FetchKeywords(context.Background(), []string{"Cytometry", "single-cell"}, 10, 7)
	if err != nil || len(kw) != 1 || kw[0].Source != "bioRxiv:Cytometry" {
		t.Fatalf("keywords: %v %+v", err, kw)
	}
	empty, _ := biorxivServer(t, []byte(`{"messages":[{"status":"no posts found"}],"collection":[]}`))
	b.BaseURL = empty.URL
	if _, err := b.FetchCategory(context.Background(), "x", 10, 7); !errs.Is(err, errs.Fetch) {
		t.Fatalf("empty first page is transient: %v", err)
	}
}

type scriptedLLM struct {
	replies []string
	prompts []string
}

func (s *scriptedLLM) CompleteText(_ context.Context, prompt string, _, _ int) (string, error) {
	s.prompts = append(s.prompts, prompt)
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, nil
}

// fastScoreRetry shortens the scoring backoff for a test.
func fastScoreRetry(t *testing.T) {
	old := scoreRetry
	scoreRetry.first, scoreRetry.maxWait = 4*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { scoreRetry = old })
}

func TestScoreParsesRetriesAndRanks(t *testing.T) {
	fastScoreRetry(t)
	papers := []Paper{{Title: "A", Source: "cs.LG"}, {Title: "B"}, {Title: "C"}}
	llm := &scriptedLLM{replies: []string{
		"Sorry, I cannot produce JSON today.",
		"Here you go:\n```json\n[{\"id\": 0, \"score\": 6, \"reason\": \"meh\", \"track\": \"methods\", \"summary\": \"s0\"}," +
			"{\"id\": \"2\", \"score\": 9, \"reason\": \"core\", \"track\": \"apps\", \"summary\": \"s2\"}," +
			"{\"id\": 7, \"score\": 10}, {\"id\": 1, \"score\": 42}]\n```",
	}}
	got, err := Score(context.Background(), llm, "RUBRIC", papers, 5, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(llm.prompts) != 2 || !strings.HasPrefix(llm.prompts[0], "RUBRIC") || !strings.Contains(llm.prompts[0], "[id 2] C") {
		t.Fatalf("prompts: %q", llm.prompts)
	}
	if len(got) != 2 || got[0].Paper.Title != "C" || got[0].Score != 9 || got[1].Summary != "s0" {
		t.Fatalf("scored = %+v", got)
	}
	bad := &scriptedLLM{replies: []string{"no", "still no"}}
	if _, err := Score(context.Background(), bad, "R", papers, 5, 2, nil); !errs.Is(err, errs.LLM) {
		t.Fatalf("unparsable replies: %v", err)
	}
}

func TestFormatTiersAndDedupe(t *testing.T) {
	papers := Deduplicate([]Paper{{Title: "Same Title!"}, {Title: "same title"}, {Title: "Other"}})
	if len(papers) != 2 {
		t.Fatalf("dedupe: %+v", papers)
	}
	gen := time.Date(2026, 12, 1, 5, 7, 0, 0, time.UTC)
	md := Format(gen, gen, []Scored{
		{Paper: Paper{Title: "Top", Link: "https://arxiv.org/abs/1", Authors: []string{"A"}, Source: "cs.LG"}, Score: 9, Summary: "sum", Reason: "why"},
		{Paper: Paper{Title: "Good", Link: "l2"}, Score: 8},
		{Paper: Paper{Title: "Meh", Link: "l3"}, Score: 6},
	}, "ollama:qwen")
	for _, want := range []string{"# Paper Digest — 2026-12-01", "Generated 2026-12-01 05:07", "## Must-Read\n\n### [Top](https://arxiv.org/abs/1)", "## Worth Reading\n\n### [Good]", "## Skim\n\n### [Meh]", "**Why:** why"} {
		if !strings.Contains(md, want) {
			t.Errorf("digest lacks %q:\n%s", want, md)
		}
	}
	if TierOf(10) != TierMustRead || TierOf(8) != TierWorth || TierOf(7) != TierSkim {
		t.Fatal("tiers")
	}
}

func TestParseIsTheInverseOfFormat(t *testing.T) {
	scored := []Scored{
		{Paper: Paper{Title: "Long Context Retrieval", Link: "https://arxiv.org/abs/2401.01234", Authors: []string{"A. One", "B. Two"}, Source: "cs.CL"}, Score: 9, Track: "retrieval", Summary: "Retrieval over long contexts.", Reason: "core topic"},
		{Paper: Paper{Title: "Protein Language Models", Link: "https://doi.org/10.1101/2024.01.01.000001", Source: "bioRxiv:protein"}, Score: 8, Summary: "PLMs.\n\nTwo paragraphs."},
		{Paper: Paper{Title: "Skimmable", Link: "https://arxiv.org/abs/2401.09999", Source: "cs.LG"}, Score: 5, Summary: "Meh."},
	}
	md := Format(time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC), time.Now(), scored, "ollama:m")
	date, got := Parse(md + "\n### [Broken entry](https://x)\n\nno score line\n")
	if date != "2026-12-07" || len(got) != 3 {
		t.Fatalf("date %q, %d entries: %+v", date, len(got), got)
	}
	g := got[0]
	if g.Paper.Title != "Long Context Retrieval" || g.Paper.ID != "2401.01234" || g.Score != 9 || g.Track != "retrieval" ||
		g.Paper.Source != "cs.CL" || g.Summary != "Retrieval over long contexts." || g.Reason != "core topic" || len(g.Paper.Authors) != 2 {
		t.Fatalf("entry 0 = %+v", g)
	}
	if got[1].Summary != "PLMs.\n\nTwo paragraphs." || got[1].Track != "" || got[1].Paper.Source != "bioRxiv:protein" || got[2].Score != 5 {
		t.Fatalf("entries = %+v", got[1:])
	}
}

// arXiv's current API answers a bad request with HTTP 400 and an error
// entry: that is the caller's mistake, reported in arXiv's words, and asking
// again would only be refused again.
func TestArxivRefusalIsInvalidWithItsReasonAndNotRetried(t *testing.T) {
	body := fixture(t, "arxiv_error.xml")
	var calls int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.WriteHeader(http.StatusBadRequest)
		w.Write(body)
	}))
	defer srv.Close()
	s := &noSleep{}
	a := testArxiv(srv, s)
	_, err := a.FetchCategory(context.Background(), "cs.LG", 5)
	if !errs.Is(err, errs.Invalid) || errs.Is(err, errs.Fetch) || !strings.Contains(err.Error(), "max_results must be less than or equal to 2000") {
		t.Fatalf("err = %v", err)
	}
	if calls != 1 || len(s.slept) != 0 {
		t.Fatalf("a refusal was retried: %d calls, slept %v", calls, s.slept)
	}
	// The same error entry in a 200 feed (the API's older habit) too.
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer ok.Close()
	if _, err := testArxiv(ok, &noSleep{}).FetchPaper(context.Background(), "2611.01234"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("error entry with 200: %v", err)
	}
	// A server in trouble is still worth another try.
	var tries int
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries++
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	if _, err := testArxiv(busy, &noSleep{}).FetchCategory(context.Background(), "cs.LG", 5); !errs.Is(err, errs.Fetch) || tries != 3 {
		t.Fatalf("503: %v after %d tries", err, tries)
	}
}

func TestArxivKeepsCategoriesCommentJournalAndVersion(t *testing.T) {
	srv, _ := arxivServer(t, fixture(t, "arxiv_2016.xml"))
	p, err := testArxiv(srv, &noSleep{}).FetchPaper(context.Background(), "cond-mat/0102536")
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "cond-mat/0102536" || p.Version != 3 || p.Title != "Spin Chains Coupled on a Lattice of Nodes" || p.DOI != "10.1103/PhysRevB.00.000001" ||
		strings.Join(p.Categories, ",") != "cond-mat.str-el,cond-mat.supr-con,quant-ph" || p.Source != "cond-mat.str-el" ||
		p.Comment != "8 pages, 3 figures. Published version" || p.JournalRef != "Phys. Rev. B 00, 000001 (2002)" {
		t.Fatalf("paper = %+v", p)
	}
}

func TestBiorxivVersionsAuthorsJATSAndJournalDOI(t *testing.T) {
	srv, _ := biorxivServer(t, fixture(t, "biorxiv_revisions.json"))
	b := &Biorxiv{BaseURL: srv.URL, HTTP: srv.Client(), Retry: Retry{Attempts: 1}}
	papers, err := b.FetchCategory(context.Background(), "", 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(papers) != 2 {
		t.Fatalf("three versions of one DOI are one paper: %+v", papers)
	}
	rev, fresh := papers[0], papers[1]
	if rev.Version != 3 || rev.Abstract != "Third version, revised." || rev.JournalDOI != "10.7554/eLife.00001" || rev.Link != "https://doi.org/10.1101/2025.03.10.600001" {
		t.Fatalf("the newest version wins: %+v", rev)
	}
	if strings.Join(rev.Authors, "|") != "Naka, A.|Shababo, B.|García-Pérez, M. J." {
		t.Fatalf("authors = %q", rev.Authors)
	}
	if fresh.Abstract != "Living in groups offers animals collective wisdom. We test it in Rattus colonies & find gains." {
		t.Fatalf("JATS left in the abstract: %q", fresh.Abstract)
	}
	prompt := BuildScoringPrompt("R", papers)
	if strings.Contains(prompt, "SCPLOW") || strings.Contains(prompt, "FIGDIR") || !strings.Contains(prompt, "Authors: Naka, A.; Shababo, B.; García-Pérez, M. J.") {
		t.Fatalf("prompt:\n%s", prompt)
	}
}

func TestCleanJATSKeepsProse(t *testing.T) {
	for in, want := range map[string]string{
		"AO_SCPLOWBSTRACTC_SCPLOWLiving in groups.": "Living in groups.",
		"Abstract: We show X.":                      "We show X.",
		"Abstract reasoning is hard.":               "Abstract reasoning is hard.",
		"Abstractions help.":                        "Abstractions help.",
		"Cells:O_LIdivideC_LIO_LIgrowC_LI":          "Cells: divide grow",
	} {
		if got := cleanJATS(in); got != want {
			t.Errorf("cleanJATS(%q) = %q, want %q", in, got, want)
		}
	}
}

// The digest file is the hand-off to `kb add-digest`: every field the
// sources gave must come back, authors whose names hold commas included.
func TestDigestRoundTripKeepsAuthorsWithCommasAndDetails(t *testing.T) {
	in := Scored{Paper: Paper{Title: "Subnetworks of interneurons", Link: "https://doi.org/10.1101/2025.03.10.600001", DOI: "10.1101/2025.03.10.600001",
		Authors: []string{"Naka, A.", "Shababo, B.", "García-Pérez, M. J."}, Source: "neuroscience", Categories: []string{"neuroscience"},
		Version: 3, JournalDOI: "10.7554/eLife.00001"}, Score: 9, Summary: "S."}
	arx := Scored{Paper: Paper{Title: "Spin Chains", Link: "https://arxiv.org/abs/cond-mat/0102536", DOI: "10.1103/PhysRevB.00.000001",
		Authors: []string{"Ada Example"}, Source: "cond-mat.str-el", Categories: []string{"cond-mat.str-el", "quant-ph"},
		Comment: "8 pages, 3 figures", JournalRef: "Phys. Rev. B 00, 000001 (2002)", Version: 3}, Score: 8, Summary: "T."}
	md := Format(time.Date(2026, 8, 7, 0, 0, 0, 0, time.UTC), time.Now(), []Scored{in, arx}, "m")
	_, got := Parse(md)
	if len(got) != 2 {
		t.Fatalf("entries: %+v\n%s", got, md)
	}
	for i, want := range []Paper{in.Paper, arx.Paper} {
		g := got[i].Paper
		if strings.Join(g.Authors, "|") != strings.Join(want.Authors, "|") || strings.Join(g.Categories, "|") != strings.Join(want.Categories, "|") ||
			g.Version != want.Version || g.JournalDOI != want.JournalDOI || g.JournalRef != want.JournalRef || g.Comment != want.Comment || g.DOI != want.DOI {
			t.Errorf("entry %d:\n got %+v\nwant %+v\n%s", i, g, want, md)
		}
	}
	if got[0].Summary != "S." || got[1].Summary != "T." {
		t.Fatalf("summaries: %+v", got)
	}
}
