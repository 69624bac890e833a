// Package ingest turns papers (local PDFs) into knowledge-base chunks: the
// reader's annotations first, then the body (full text or an LLM summary),
// then optional figure captions, all staged in memory so the caller commits
// one document in one transaction. It also holds the metadata policy every
// add path shares.
package ingest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/pdf"
)

// Storage modes.
const (
	FullText = "full_text"
	Summary  = "summary"
)

// Annotation kinds stored on chunks beyond the PDF's own.
const KindFigure = "figure"

// Model is the part of an LLM provider ingestion uses; nil disables the
// steps that need one (summary mode, metadata inference, captions).
type Model interface {
	Complete(ctx context.Context, messages []llm.Message, maxTokens, contextLength int) (string, error)
	Summarize(ctx context.Context, title, text, pdfPath string, maxTokens int) (string, error)
	DescribeImage(ctx context.Context, image []byte, context string) (string, error)
}

// Paper is one PDF to add. Title, Authors and DOI override inference.
type Paper struct {
	Path    string
	Source  string // default file://<abs path>
	Title   string
	Authors string
	DOI     string
	Mode    string // FullText or Summary (default Summary, as the seed)
	Figures *bool  // nil follows Options.FiguresDefault
	Score   *int
	Track   string
	// SkipMark, when set, leaves out the file's annotations it accepts:
	// marks already stored from elsewhere (Zotero's database).
	SkipMark func(pdf.Marked) bool
	// Image is a picture (screenshot, photo, scanned page) read by OCR:
	// titled by its file name, with no model asked about its metadata.
	Image bool
	// Password opens an encrypted PDF. It is used for this read only and
	// stored nowhere: not in the chunks, the config or any log.
	Password string
}

// UnreadField counts a document's pages left unread for want of OCR.
const UnreadField = "x_unread_pages"

// Options are the configured limits.
type Options struct {
	ChunkSize, ChunkOverlap int
	FiguresDefault          bool
	FigureMaxPerDoc         int
	FigureMinPixels         int
	SummaryTokens           int
	Model                   Model
	PDFLimits               pdf.Limits // zero: pdf.DefaultLimits
	// ImagesDir keeps PNG copies of images MuPDF cannot show (WebP).
	ImagesDir string
	// OCR reads scanned pages and images; nil when Tesseract is missing or
	// turned off, and NoOCR says why.
	OCR   *ocr.Engine
	NoOCR error
	// Progress hears how far a document's pages are (may be nil).
	Progress func(pdf.Progress)
}

// OptionsFrom reads the limits from [rag] and finds OCR as [pdf] asks;
// Model is left to the caller.
func OptionsFrom(cfg *config.Config) Options {
	r := cfg.RAG
	o := Options{ChunkSize: r.ChunkSize, ChunkOverlap: r.ChunkOverlap, FiguresDefault: r.FigureCaptions,
		FigureMaxPerDoc: r.FigureMaxPerDoc, FigureMinPixels: r.FigureMinPixels}
	o.OCR, o.NoOCR = OCRFor(cfg.PDF)
	o.ImagesDir = cfg.ImagesDir()
	return o
}

// OCRFor is the OCR engine [pdf] asks for: nil with the reason when it is
// turned off or Tesseract (or a language asked for) is missing.
func OCRFor(c config.PDF) (*ocr.Engine, error) {
	if !c.OCR {
		return nil, errs.WithHint(errs.New(errs.NotFound, "ingest.OCR", "OCR is turned off"), "set pdf.ocr = true to read scans and images")
	}
	return ocr.Lookup(c.OCRLanguages)
}

// Result is a staged paper.
type Result struct {
	Chunks   []kb.Chunk
	Source   string
	Title    string
	Authors  string
	DOI      string
	Marks    int
	Figures  int
	OCRPages int  // pages whose text was recognised
	NeedsOCR bool // pages were left unread for want of OCR (set on failure too)
	Image    bool
	Warnings []string
}

// SourceFor is the source a local PDF is stored under.
func SourceFor(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", errs.Wrap(errs.Invalid, "ingest", err)
	}
	return "file://" + filepath.ToSlash(abs), nil
}

// BuildPaper reads and stages a paper. Annotations come before the body, so
// a scanned PDF still keeps its highlights: with no text layer and no
// annotations it is a Conversion error and nothing is staged. Local PDFs are
// always public papers.
func BuildPaper(ctx context.Context, p Paper, o Options) (Result, error) {
	const op = "ingest.Paper"
	var res Result
	abs, err := filepath.Abs(p.Path)
	if err != nil {
		return res, errs.Wrap(errs.Invalid, op, err)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return res, errs.Wrap(errs.NotFound, op, err)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	figures := o.FiguresDefault
	if p.Figures != nil {
		figures = *p.Figures
	}
	if figures && o.Model == nil {
		res.Warnings = append(res.Warnings, "figure captions skipped: no model is available to describe them")
		figures = false
	}
	doc, err := pdf.Read(ctx, abs, pdf.Options{Images: figures, MinPixels: o.FigureMinPixels, Limits: o.PDFLimits,
		Password: p.Password, OCR: o.OCR, Progress: o.Progress})
	if err != nil {
		return res, err
	}
	if doc.Repaired {
		res.Warnings = append(res.Warnings, pdf.RepairedWarning)
	}
	res.Warnings = append(res.Warnings, doc.Warnings...)
	res.OCRPages = doc.OCRPages()
	if doc.Unread > 0 && o.OCR == nil && doc.HasText() {
		res.Warnings = append(res.Warnings, unreadWarning(doc.Unread, o.NoOCR))
	}
	res.Source = p.Source
	if res.Source == "" {
		if res.Source, err = SourceFor(abs); err != nil {
			return res, err
		}
	}
	// What the cloud ledger records for this paper's model requests.
	sent := ledger.Source{Key: res.Source, Title: p.Title}
	if strings.HasPrefix(sent.Key, "file://") {
		sent.Key = abs // how a local file is cited
	}
	var guessed bool
	res.Image = p.Image
	if p.Image {
		res.Title, res.Authors = cmp.Or(p.Title, strings.TrimSuffix(filepath.Base(p.Source), filepath.Ext(p.Source))), p.Authors
	} else {
		res.Title, res.Authors, res.DOI, guessed = resolveMeta(ledger.WithAbout(ctx, ledger.About{Purpose: ledger.PurposeMetadata, Sources: ledger.These(sent)}), doc, p, o.Model, &res.Warnings)
	}
	sent.Title = res.Title
	mode := p.Mode
	if mode == "" {
		mode = Summary
	}
	if mode != Summary && mode != FullText {
		return res, errs.New(errs.Invalid, op, "unknown storage mode %q (summary or full_text)", mode)
	}

	base := kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: res.Source, Title: res.Title, Authors: res.Authors,
		DOI: res.DOI, Score: p.Score, Track: p.Track, StorageMode: mode, FilePath: abs, ContentHash: hash}
	if guessed {
		base.Extra = map[string]string{DOIGuessField: "model"}
	}
	if doc.Unread > 0 && o.OCR == nil {
		// Remembered so the inbox reads the file again once OCR is there.
		res.NeedsOCR = true
		base.Extra = maps.Clone(base.Extra)
		if base.Extra == nil {
			base.Extra = map[string]string{}
		}
		base.Extra[UnreadField] = strconv.Itoa(doc.Unread)
	}
	header := res.Title
	if res.Authors != "" {
		header += " — " + res.Authors
	}
	add := func(content string, m kb.Metadata) {
		m = markOCR(doc, m, m.Page, m.Page)
		m.ChunkIndex = len(res.Chunks)
		embed := content
		if header != "" {
			embed = header + "\n\n" + content
		}
		res.Chunks = append(res.Chunks, kb.Chunk{Content: content, EmbedText: embed, Meta: m})
	}

	for _, mk := range doc.Marks() {
		if p.SkipMark != nil && p.SkipMark(mk) {
			continue
		}
		m := base
		m.AnnotationKind, m.Page, m.NoteText = mk.Kind, mk.Page, mk.Comment
		add(mk.String(), m)
		res.Marks++
	}

	md, bodyErr := doc.Markdown()
	switch {
	case bodyErr != nil && res.Marks == 0:
		return res, bodyErr
	case bodyErr != nil:
		res.Warnings = append(res.Warnings, fmt.Sprintf("body not indexed (%v); %d annotations kept", bodyErr, res.Marks))
	case mode == FullText:
		for _, c := range kb.ChunkMarkdown(md, o.ChunkSize, o.ChunkOverlap, header) {
			m := base
			m.Section, m.Page = c.Meta.Section, pageOf(md, c.Content)
			c.Meta = markOCR(doc, m, m.Page, lastPage(m.Page, c.Content))
			c.Meta.ChunkIndex = len(res.Chunks)
			c.Content, c.EmbedText = stripMarkers(c.Content), stripMarkers(c.EmbedText)
			if strings.TrimSpace(c.Content) == "" {
				continue
			}
			res.Chunks = append(res.Chunks, c)
		}
	default:
		if o.Model == nil {
			return res, errs.WithHint(errs.New(errs.LLM, op, "summary mode needs a model"), "use full-text mode, or configure a provider")
		}
		sctx := ledger.WithAbout(ctx, ledger.About{Purpose: ledger.PurposeSummary, Sources: ledger.These(sent)})
		summary, err := o.Model.Summarize(sctx, res.Title, stripMarkers(md), "", max(o.SummaryTokens, 1500))
		if err != nil {
			return res, errs.Wrap(errs.LLM, op, err)
		}
		for _, part := range kb.SplitSize(summary, o.ChunkSize, o.ChunkOverlap) {
			add(part, base)
		}
	}

	if figures {
		ctx := ledger.WithAbout(ctx, ledger.About{Purpose: ledger.PurposeCaption, Sources: ledger.These(sent)})
		for _, f := range doc.Figures(o.FigureMaxPerDoc) {
			if err := ctx.Err(); err != nil {
				return res, errs.Wrap(errs.Cancelled, op, err)
			}
			caption, err := o.Model.DescribeImage(ctx, f.PNG, res.Title)
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("figure on p.%d not captioned: %v", f.Page, err))
				continue
			}
			m := base
			m.AnnotationKind, m.Page = KindFigure, f.Page
			add(fmt.Sprintf("[FIGURE p.%d] %s", f.Page, strings.TrimSpace(caption)), m)
			res.Figures++
		}
	}
	if len(res.Chunks) == 0 {
		return res, errs.New(errs.Conversion, op, "%s produced no text to index", p.Path)
	}
	return res, nil
}

// markOCR adds the OCR fields to a chunk holding text of a recognised
// page among pages first..last (a copy of Extra: chunks share base's map).
// A chunk that runs from a typed page into a scanned one holds recognised
// words too; its confidence is that of the least confident page it holds.
func markOCR(doc *pdf.Document, m kb.Metadata, first, last int) kb.Metadata {
	conf, recognised := 100.0, false
	for n := max(first, 1); n <= min(last, len(doc.Pages)); n++ {
		if p := doc.Pages[n-1]; p.OCR {
			conf, recognised = min(conf, p.OCRConfidence), true
		}
	}
	if !recognised {
		return m
	}
	extra := maps.Clone(m.Extra)
	if extra == nil {
		extra = map[string]string{}
	}
	extra[kb.OCRField] = "tesseract"
	extra[kb.OCRConfidenceField] = strconv.Itoa(int(math.Round(conf)))
	m.Extra = extra
	return m
}

// lastPage is the last page a body chunk starting on page first holds
// text of: the highest page marker inside it (a chunk is cut from the
// Markdown with its markers), or first.
func lastPage(first int, content string) int {
	last := first
	for _, l := range strings.Split(content, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "<!-- page "); ok {
			if v, err := strconv.Atoi(strings.TrimSuffix(n, " -->")); err == nil {
				last = max(last, v)
			}
		}
	}
	return last
}

// unreadWarning says that n scanned pages were left out, and why.
func unreadWarning(n int, why error) string {
	msg := fmt.Sprintf("%d page(s) have no usable text layer and were not read", n)
	if why != nil {
		msg += ": " + why.Error()
		if h := errs.HintOf(why); h != "" && !strings.Contains(msg, h) {
			msg += " (" + h + ")"
		}
	}
	return msg
}

// pageOf finds the page a chunk starts on from the page markers before it.
func pageOf(md, content string) int {
	probe := stripMarkers(content)
	if len(probe) > 60 {
		probe = probe[:60]
	}
	at := strings.Index(md, strings.TrimSpace(probe))
	if at < 0 {
		at = len(md)
	}
	page := 1
	for n := 1; ; n++ {
		i := strings.Index(md, pdf.PageMarker(n))
		if i < 0 || i > at {
			break
		}
		page = n
	}
	return page
}

func stripMarkers(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "<!-- page ") && strings.HasSuffix(l, " -->") {
			continue
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// DOIGuessField marks, among a paper's extra fields, a DOI the model
// guessed (the text printed none): it may be wrong.
const DOIGuessField = "x_doi_guess"

// doiPattern is what a DOI looks like; a model's guess must at least match.
var doiPattern = regexp.MustCompile(`^10\.\d{4,9}/\S+$`)

// resolveMeta applies the metadata policy: explicit values win, then what
// the file says (DOI from the text by regex, title/authors from the info),
// then one small LLM call for whatever is still missing — a local PDF's DOI
// included, which is then only a guess (guessed). A failed call only
// leaves them empty, with a warning.
func resolveMeta(ctx context.Context, doc *pdf.Document, p Paper, model Model, warnings *[]string) (title, authors, doi string, guessed bool) {
	title, authors, doi = p.Title, p.Authors, p.DOI
	if title != "" && authors != "" && doi != "" {
		return
	}
	g := doc.Guess()
	doi = firstNonEmpty(doi, g.DOI)
	title, authors = firstNonEmpty(title, g.Title), firstNonEmpty(authors, g.Authors)
	// A paper from a server comes with its own identity: only a local file
	// needs its DOI guessed.
	askDOI := doi == "" && p.Source == ""
	if model == nil || title != "" && authors != "" && !askDOI {
		return title, authors, doi, false
	}
	fields, rule := `"title": "...", "authors": "A. One; B. Two"`, "Use empty strings for what the page does not show."
	if askDOI {
		fields += `, "doi": "10...."`
		rule += " The page prints no DOI: give one only if you know this paper's DOI."
	}
	prompt := "Below is the first page of a research paper. Reply with JSON only: {" + fields + "}. " + rule + "\n\n" + trim(g.FirstPage, 4000)
	reply, err := model.Complete(ctx, []llm.Message{llm.Text(llm.RoleUser, prompt)}, 300, 0)
	var got struct{ Title, Authors, DOI string }
	if err == nil {
		if i, j := strings.Index(reply, "{"), strings.LastIndex(reply, "}"); i >= 0 && j > i {
			err = json.Unmarshal([]byte(reply[i:j+1]), &got)
		} else {
			err = fmt.Errorf("no JSON in the reply")
		}
	}
	if err != nil {
		*warnings = append(*warnings, "metadata inference failed: "+err.Error())
	}
	if got.DOI = strings.TrimSpace(got.DOI); askDOI && doiPattern.MatchString(got.DOI) {
		doi, guessed = got.DOI, true
		*warnings = append(*warnings, "DOI "+doi+" was guessed by the model, not read from the paper; check it (and correct it with kb set-meta --doi)")
	}
	return firstNonEmpty(title, got.Title), firstNonEmpty(authors, got.Authors), doi, guessed
}

func trim(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// ConvertFile is pdf -> Markdown for callers that only want text (the LLM
// summariser's local conversion, jarvis-cli convert-pdf).
func ConvertFile(path string) (string, error) {
	doc, err := pdf.Read(context.Background(), path, pdf.Options{})
	if err != nil {
		return "", err
	}
	return doc.Markdown()
}
