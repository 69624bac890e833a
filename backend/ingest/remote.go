package ingest

import (
	"context"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/digest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ledger"
)

// Papers named by an arXiv id or URL or by a DOI, rather than a local
// file: the one set of rules `jarvis-cli kb add`, `jarvis-cli convert-pdf`
// and the chat's add_document share.

// Servers a RemoteRef can name.
const (
	ServerArxiv   = "arxiv"
	ServerBiorxiv = "biorxiv"
)

// RemoteRef names a paper on a preprint server.
type RemoteRef struct {
	Server string // ServerArxiv or ServerBiorxiv
	ID     string // arXiv id (no version) or bioRxiv DOI
}

// arxivDOI is the DOI arXiv gives every paper: 10.48550/arXiv.<id>.
const arxivDOI = "10.48550/arxiv."

// biorxivPrefix is the DOI prefix of bioRxiv (and medRxiv) preprints.
const biorxivPrefix = "10.1101/"

var (
	bareArxivID = regexp.MustCompile(`^(\d{4}\.\d{4,5}|[a-z\-]+(\.[A-Z]{2})?/\d{7})(v\d+)?$`)
	yearOf      = regexp.MustCompile(`^(?:19|20)\d{2}$`)
)

// ParseRemote reads what names a paper on a server: an arXiv URL (abs,
// pdf, html; versioned or not; www. and export. hosts), "arXiv:<id>" or a
// bare id, arXiv's own DOI, or a DOI ("10.x/y", "doi:10.x/y", a doi.org
// URL). ok is false for anything else, such as a path to a local file. A
// DOI outside arXiv and bioRxiv is refused: Jarvis can fetch neither its
// metadata nor its PDF.
func ParseRemote(s string) (RemoteRef, bool, error) {
	s = strings.TrimSpace(s)
	if doi := digest.ParseDOI(s); doi != "" {
		low := strings.ToLower(doi)
		switch {
		case strings.HasPrefix(low, arxivDOI):
			if id := digest.ParseArxivID(doi[len(arxivDOI):]); id != "" {
				return RemoteRef{Server: ServerArxiv, ID: id}, true, nil
			}
		case strings.HasPrefix(low, biorxivPrefix):
			return RemoteRef{Server: ServerBiorxiv, ID: doi}, true, nil
		}
		return RemoteRef{}, true, errs.WithHint(errs.New(errs.Invalid, "ingest.Remote", "%s is not an arXiv or bioRxiv DOI; Jarvis fetches papers from those two only", doi),
			"download the PDF and add the file, giving its DOI (kb add FILE --doi "+doi+")")
	}
	isURL := false
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && u.Host != "" {
		isURL = true
	}
	arxivForm := isURL || bareArxivID.MatchString(strings.TrimPrefix(strings.TrimPrefix(s, "arXiv:"), "arxiv:")) && !strings.ContainsAny(s, `\`)
	if id := digest.ParseArxivID(s); id != "" && arxivForm {
		return RemoteRef{Server: ServerArxiv, ID: id}, true, nil
	}
	if isURL {
		return RemoteRef{}, true, errs.WithHint(errs.New(errs.Invalid, "ingest.Remote", "%s is neither an arXiv nor a DOI address", s),
			"give an arXiv link (https://arxiv.org/abs/…), a DOI (https://doi.org/10.…), or a local PDF")
	}
	return RemoteRef{}, false, nil
}

// Remote fetches papers from arXiv and bioRxiv.
type Remote struct {
	Arxiv   *digest.Arxiv
	Biorxiv *digest.Biorxiv
}

// NewRemote is a client of the configured servers (digest.arxiv_url and
// digest.biorxiv_url; "" for the official ones).
func NewRemote(arxivURL, biorxivURL string) *Remote {
	return &Remote{Arxiv: digest.NewArxivAt(arxivURL), Biorxiv: digest.NewBiorxivAt(biorxivURL)}
}

// RemotePaper is what a server says about a paper.
type RemotePaper struct {
	Ref      RemoteRef
	Source   string // the link it is filed under (the unversioned abs page, or doi.org)
	Title    string
	Authors  string
	DOI      string
	Abstract string
	Year     int
	// HasPDF is false for bioRxiv, which serves no PDF to programs: such a
	// paper can only be stored as a summary of its abstract.
	HasPDF bool
}

// Lookup fetches a paper's metadata.
func (r *Remote) Lookup(ctx context.Context, ref RemoteRef) (RemotePaper, error) {
	var p digest.Paper
	var err error
	switch ref.Server {
	case ServerArxiv:
		if r.Arxiv == nil {
			return RemotePaper{}, errs.New(errs.Fetch, "ingest.Remote", "arXiv is not reachable from here")
		}
		p, err = r.Arxiv.FetchPaper(ctx, ref.ID)
	case ServerBiorxiv:
		if r.Biorxiv == nil {
			return RemotePaper{}, errs.New(errs.Fetch, "ingest.Remote", "bioRxiv is not reachable from here")
		}
		p, err = r.Biorxiv.FetchDOI(ctx, ref.ID)
	default:
		return RemotePaper{}, errs.New(errs.Invalid, "ingest.Remote", "unknown server %q", ref.Server)
	}
	if err != nil {
		return RemotePaper{}, err
	}
	rp := RemotePaper{Ref: ref, Source: p.Link, Title: p.Title, Authors: strings.Join(p.Authors, "; "), DOI: p.DOI,
		Abstract: p.Abstract, HasPDF: ref.Server == ServerArxiv}
	if !p.Published.IsZero() {
		rp.Year = p.Published.Year()
	}
	return rp, nil
}

// Download saves the paper's PDF into dir.
func (r *Remote) Download(ctx context.Context, rp RemotePaper, dir string) (string, error) {
	if !rp.HasPDF {
		return "", errs.WithHint(errs.New(errs.Fetch, "ingest.Remote", "bioRxiv serves no PDF of %s to programs", rp.Ref.ID),
			"download the PDF in a browser and give Jarvis the file")
	}
	return r.Arxiv.DownloadPDF(ctx, rp.Ref.ID, dir)
}

// YearField holds a paper's publication year among a chunk's extra fields.
const YearField = kb.YearField

// BuildRemote stages a remote paper: from its downloaded PDF (pdfPath) like
// any PDF, filed under its link and with no local path (the download is a
// temporary file); or, with no PDF, as a summary of its abstract (full
// text is then impossible, and refused). p carries the mode, figures and
// any title/authors/DOI overrides.
func BuildRemote(ctx context.Context, rp RemotePaper, pdfPath string, p Paper, o Options) (Result, error) {
	const op = "ingest.Remote"
	p.Source = rp.Source
	p.Title = firstNonEmpty(p.Title, rp.Title)
	p.Authors = firstNonEmpty(p.Authors, rp.Authors)
	p.DOI = firstNonEmpty(p.DOI, rp.DOI)
	var res Result
	var err error
	if pdfPath != "" {
		p.Path = pdfPath
		if res, err = BuildPaper(ctx, p, o); err != nil {
			return res, err
		}
	} else {
		if p.Mode == FullText {
			return res, errs.WithHint(errs.New(errs.Invalid, op, "no full text of %s can be fetched", rp.Ref.ID),
				"add it as a summary of its abstract (the default), or download the PDF and add the file")
		}
		if o.Model == nil {
			return res, errs.WithHint(errs.New(errs.LLM, op, "a summary needs a model"), "configure a chat provider")
		}
		sctx := ledger.WithAbout(ctx, ledger.About{Purpose: ledger.PurposeSummary, Sources: ledger.These(ledger.Source{Key: p.Source, Title: p.Title})})
		summary, err := o.Model.Summarize(sctx, p.Title, rp.Abstract, "", max(o.SummaryTokens, 1500))
		if err != nil {
			return res, errs.Wrap(errs.LLM, op, err)
		}
		res = Result{Source: p.Source, Title: p.Title, Authors: p.Authors, DOI: p.DOI}
		header := p.Title
		if p.Authors != "" {
			header += " — " + p.Authors
		}
		for i, part := range kb.SplitSize(summary, o.ChunkSize, o.ChunkOverlap) {
			res.Chunks = append(res.Chunks, kb.Chunk{Content: part, EmbedText: header + "\n\n" + part, Meta: kb.Metadata{
				DocType: kb.DocPaper, Visibility: kb.Public, Source: p.Source, Title: p.Title, Authors: p.Authors, DOI: p.DOI,
				Score: p.Score, Track: p.Track, StorageMode: Summary, ChunkIndex: i}})
		}
	}
	for i := range res.Chunks {
		res.Chunks[i].Meta.FilePath = "" // the download was a temporary file
	}
	WithYear(res.Chunks, rp.Year)
	if len(res.Chunks) == 0 {
		return res, errs.New(errs.Conversion, op, "%s produced no text to index", rp.Ref.ID)
	}
	return res, nil
}

// AddRemote adds a paper named by an arXiv id or URL or a DOI, with the
// rules of a local PDF: a duplicate (same source or title) is added only
// when req.Duplicate agrees, and then a same-source entry is replaced in
// the same commit — which is how a paper stored as a summary is re-added
// with its full text and figures.
func (a *Adder) AddRemote(ctx context.Context, ref RemoteRef, req AddRequest) (AddResult, error) {
	if req.Private {
		return AddResult{}, errs.New(errs.Invalid, "ingest.Add", "papers are always public; --private applies to notes")
	}
	if a.Remote == nil {
		return AddResult{}, errs.New(errs.Fetch, "ingest.Add", "no paper server is configured here")
	}
	req.report("looking the paper up")
	rp, err := a.Remote.Lookup(ctx, ref)
	if err != nil {
		return AddResult{}, err
	}
	title := firstNonEmpty(req.Paper.Title, rp.Title)
	replace, skip, err := a.checkDuplicates(ctx, req, rp.Source, title)
	if err != nil {
		return AddResult{}, err
	}
	if skip {
		return AddResult{Message: "skipped (duplicate)", Skipped: true}, nil
	}
	pdfPath := ""
	if rp.HasPDF {
		dir, err := os.MkdirTemp("", "jarvis-add-")
		if err != nil {
			return AddResult{}, errs.Wrap(errs.Internal, "ingest.Add", err)
		}
		defer os.RemoveAll(dir)
		req.report("downloading the PDF")
		if pdfPath, err = a.Remote.Download(ctx, rp, dir); err != nil {
			return AddResult{}, err
		}
	}
	req.report("reading the paper")
	res, err := BuildRemote(ctx, rp, pdfPath, req.Paper, a.Opts)
	if err != nil {
		return AddResult{}, err
	}
	req.report("embedding")
	if err := a.Store.Ingest(ctx, a.Embed, res.Chunks, replace); err != nil {
		return AddResult{}, err
	}
	return paperAdded(replace != nil, req.Paper.Mode, res), nil
}

// WithYear records a paper's year on every chunk (digest papers know it).
func WithYear(chunks []kb.Chunk, year int) {
	if !yearOf.MatchString(strconv.Itoa(year)) {
		return
	}
	for i := range chunks {
		m := &chunks[i].Meta
		if m.Extra == nil {
			m.Extra = map[string]string{}
		}
		m.Extra[YearField] = strconv.Itoa(year)
	}
}
