package app

import (
	"cmp"
	"context"
	"encoding/base64"
	"runtime"
	"strings"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/analysis"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/ocr"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/reveal"
)

// Library serves the library modal: documents, search, metadata edits and
// two-step removal.
type Library struct {
	core *core

	pending kbtools.Pending // removals awaiting the second click
	// Open and Reveal hand a file (or its folder) to the desktop; tests
	// replace them.
	Open, Reveal func(path string) error
	// Pick asks the human for files with the desktop's file dialog (nil
	// where there is none); the window wires it to the Wails runtime.
	Pick func(title string) ([]string, error)

	// locating cancels the marking of the page shown before: a user
	// flipping through a scan must not queue one recognition per page.
	locating struct {
		sync.Mutex
		cancel context.CancelFunc
	}
}

// locateContext is the context of marking the page now shown; it cancels
// the one before.
func (l *Library) locateContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	l.locating.Lock()
	if l.locating.cancel != nil {
		l.locating.cancel()
	}
	l.locating.cancel = cancel
	l.locating.Unlock()
	return ctx, cancel
}

func (l *Library) store() (*kb.Store, error) {
	eng := l.core.agent().Engine
	if eng == nil {
		return nil, l.core.noStore("library")
	}
	return eng.Store, nil
}

// DocumentRow is one line of the Library: the document, and how often its
// text went to a cloud model (nil when never), from the cloud ledger.
type DocumentRow struct {
	kb.DocumentSummary
	// Cited is the name the document is cited and recorded by in the
	// ledger; the window filters the ledger with it.
	Cited string       `json:"cited"`
	Sent  *ledger.Sent `json:"sent,omitempty"`
}

// LibraryMax is how many documents the Library lists at once: every one
// of a large library (the window's list is virtualised).
const LibraryMax = 100_000

// Documents lists documents of a kind (papers, notes, chat, all), narrowed
// by a case-insensitive title/key filter, each with what the ledger says
// was sent of it.
func (l *Library) Documents(kind, filter string) ([]DocumentRow, error) {
	docs, err := l.documents(kind, filter)
	if err != nil {
		return nil, err
	}
	cfg := l.core.cfg
	book, err := ledger.Shared(cfg.LedgerDir(), cfg.Ledger.KeepDays)
	if err != nil {
		return nil, err
	}
	sent, err := book.SentByDocument(context.Background())
	if err != nil {
		return nil, err
	}
	out := make([]DocumentRow, 0, len(docs))
	for _, d := range docs {
		row := DocumentRow{DocumentSummary: d, Cited: kbtools.SummaryCiteName(d)}
		if s, ok := sent[row.Cited]; ok {
			row.Sent = &s
		}
		out = append(out, row)
	}
	return out, nil
}

func (l *Library) documents(kind, filter string) ([]kb.DocumentSummary, error) {
	t, err := l.tools()
	if err != nil {
		return nil, err
	}
	k, err := kb.ParseKind(kind)
	if err != nil {
		return nil, errs.New(errs.Invalid, "library", "unknown kind %q", kind)
	}
	// tag:, collection:, year:, type:, has:highlights … words filter in
	// the store; the rest of the text filters titles.
	args, o, err := kbtools.SplitListFilters(filter)
	if err != nil {
		return nil, err
	}
	sf, err := args.Filter("library")
	if err != nil {
		return nil, err
	}
	sf.DocTypes = k.DocTypes()
	o.Limit = LibraryMax
	docs, err := t.Query(context.Background(), window, sf, o)
	if err != nil {
		return nil, err
	}
	return append([]kb.DocumentSummary{}, docs...), nil // [] rather than null for the window
}

// HitView is one search result.
type HitView struct {
	Citation chat.Citation `json:"citation"`
	DocType  string        `json:"docType"`
	Private  bool          `json:"private"`
	Section  string        `json:"section"`
	Text     string        `json:"text"`
	// Excerpt is the part of Text where the query matched, the matches
	// marked, cut at whole characters in every script.
	Excerpt []analysis.Segment `json:"excerpt"`
	Score   float64            `json:"score"`
	// OCR says the text was recognised off a scan or an image ("recognised
	// by OCR, 93% confidence"), so misread words are expected.
	OCR string `json:"ocr,omitempty"`
}

// hitExcerptWidth is how many characters of a hit the Library shows.
const hitExcerptWidth = 240

// SearchView is a search's hits and how they were found.
type SearchView struct {
	Hits   []HitView `json:"hits"`
	Mode   string    `json:"mode"`   // keyword | hybrid (keyword + dense), + rerank
	Detail string    `json:"detail"` // the mode with how far the vectors cover the pool
}

// Search runs the retrieval pipeline locally (private notes included: the
// results stay on this machine). Filter words (tag:, collection:, year:,
// type: …, see kbtools.SplitFilters) narrow it.
func (l *Library) Search(query string, n int) (SearchView, error) {
	t, err := l.tools()
	if err != nil {
		return SearchView{}, err
	}
	args, query, err := kbtools.SplitFilters(query)
	if err != nil {
		return SearchView{}, err
	}
	f, err := args.Filter("library.Search")
	if err != nil {
		return SearchView{}, err
	}
	if strings.TrimSpace(query) == "" {
		return SearchView{}, errs.WithHint(errs.New(errs.Invalid, "library.Search", "nothing to search for besides the filters"), "add words to search for, e.g. collection:Thesis attention")
	}
	res, err := t.Search(context.Background(), window, kbtools.SearchArgs{Query: query, N: n, Filter: f})
	if err != nil {
		return SearchView{}, err
	}
	out := []HitView{}
	marks := analysis.NewHighlighter(query)
	for _, h := range res.Hits {
		m := h.Chunk.Meta
		cit := kbtools.CitationOf(h.Chunk)
		out = append(out, HitView{Citation: cit, DocType: m.DocType, Private: m.Visibility == kb.Private, Section: m.Section, Text: h.Chunk.Content,
			Excerpt: marks.Excerpt(h.Chunk.Content, hitExcerptWidth), Score: h.Score, OCR: kb.OCRNote(m.Extra)})
	}
	return SearchView{Hits: out, Mode: res.Mode.Kind(), Detail: res.Mode.String()}, nil
}

// SearchStatus is the knowledge base's search mode at a glance.
type SearchStatus struct {
	Mode    string `json:"mode"`    // keyword | hybrid (keyword + dense), + rerank
	Summary string `json:"summary"` // the mode with the chunks still waiting for vectors
	Chunks  int    `json:"chunks"`
	Pending int    `json:"pending"`
}

// Status says how search works right now.
func (l *Library) Status() (SearchStatus, error) { return l.core.searchStatus(context.Background()) }

func (c *core) searchStatus(ctx context.Context) (SearchStatus, error) {
	eng := c.agent().Engine
	if eng == nil {
		return SearchStatus{}, c.noStore("library.Status")
	}
	st, err := eng.Status(ctx)
	if err != nil {
		return SearchStatus{}, err
	}
	mode := kb.Mode{Keyword: true, Dense: st.Embed.Loaded, Rerank: st.Rerank.Loaded}.Kind()
	return SearchStatus{Mode: mode, Summary: st.Mode(), Chunks: st.Chunks, Pending: st.Pending}, nil
}

// Stats are the counts.
func (l *Library) Stats() (kb.Counts, error) {
	t, err := l.tools()
	if err != nil {
		return kb.Counts{}, err
	}
	return t.Stats(context.Background(), window)
}

// window is who the Library calls the knowledge-base tools as: the human
// at this machine, who sees everything and gets listings as long as asked.
var window = kbtools.Caller{Who: "window", Person: true}

// tools are the knowledge-base operations over the open store.
func (l *Library) tools() (*kbtools.KB, error) {
	eng := l.core.agent().Engine
	if eng == nil {
		return nil, l.core.noStore("library")
	}
	return eng.Tools(), nil
}

// SetMeta corrects a paper's title, authors or DOI; key is the document's
// key as Documents lists it.
func (l *Library) SetMeta(key, title, authors, doi string) (int, error) {
	k, err := l.tools()
	if err != nil {
		return 0, err
	}
	d, err := k.Find(context.Background(), window, "library.SetMeta", key)
	if err != nil {
		return 0, err
	}
	return k.UpdatePaperMeta(context.Background(), window, kbtools.PaperMeta{Source: d.Source, Title: title, Authors: authors, DOI: doi})
}

// RemovalPreview is the first click of a removal.
type RemovalPreview struct {
	Token  string `json:"token"`
	Key    string `json:"key"`
	Title  string `json:"title"`
	Chunks int    `json:"chunks"`
	Notice string `json:"notice"`
	// Exclude is the vault-relative path a vault note can be excluded under
	// (vault.exclude), so the next vault sync does not index it again;
	// empty for documents that do not come from the vault.
	Exclude string `json:"exclude,omitempty"`
}

// PickFiles opens the desktop's file dialog for PDFs and notes to add.
func (l *Library) PickFiles() ([]string, error) {
	if l.Pick == nil {
		return nil, errs.WithHint(errs.New(errs.NotFound, "library.PickFiles", "no file dialog is available here"), "type the file's full path instead")
	}
	paths, err := l.Pick("Add PDFs, notes or images to the knowledge base")
	if paths == nil {
		paths = []string{}
	}
	return paths, err
}

// PrepareRemove is the first step: what would go, and a token for the second.
func (l *Library) PrepareRemove(key string) (RemovalPreview, error) {
	k, err := l.tools()
	if err != nil {
		return RemovalPreview{}, err
	}
	r, err := k.PrepareRemove(context.Background(), window, key)
	if err != nil {
		return RemovalPreview{}, err
	}
	token, err := l.pending.Hold(r)
	if err != nil {
		return RemovalPreview{}, err
	}
	d := r.Doc
	return RemovalPreview{Token: token, Key: d.Key, Title: d.Title, Chunks: d.Chunks, Notice: kbtools.RemoveLine(kbtools.LocalPath(k.VaultRoot, d)),
		Exclude: r.VaultPath()}, nil
}

// Remove is the second step; the token is single-use. With exclude, a
// vault note is also added to vault.exclude in config.toml (every other
// line of the file kept as it was), so the next sync does not bring it back.
func (l *Library) Remove(token string, exclude bool) (int, error) {
	r, err := l.pending.Take(token)
	if err != nil {
		return 0, err
	}
	k, err := l.tools()
	if err != nil {
		return 0, err
	}
	if rel := r.VaultPath(); exclude && rel != "" {
		if err := l.core.cfg.ExcludeFromVault(rel); err != nil {
			return 0, err
		}
	}
	return k.Remove(context.Background(), r)
}

// Locate turns a citation into a file on disk (a vault note or a local PDF).
func (l *Library) Locate(c chat.Citation) (string, error) { return c.File(l.core.cfg.Vault.Path) }

// OpenCitation opens the cited file in its default application.
func (l *Library) OpenCitation(c chat.Citation) error {
	p, err := l.Locate(c)
	if err != nil {
		return err
	}
	return l.opener()(p)
}

func (l *Library) opener() func(string) error {
	if l.Open != nil {
		return l.Open
	}
	return func(path string) error {
		argv, err := reveal.OpenCommand(runtime.GOOS, path)
		if err != nil {
			return err
		}
		return l.core.launch(argv)
	}
}

// RevealCitation shows the cited file in the file manager.
func (l *Library) RevealCitation(c chat.Citation) error {
	p, err := l.Locate(c)
	if err != nil {
		return err
	}
	if l.Reveal != nil {
		return l.Reveal(p)
	}
	return l.core.reveal(p)
}

// SourceView is a cited source shown inside the app: a PDF page as an
// image with the cited passage's boxes, or the document's stored text with
// the cited chunk named.
type SourceView struct {
	Title string `json:"title"`
	Path  string `json:"path,omitempty"`
	Page  int    `json:"page,omitempty"`
	Pages int    `json:"pages,omitempty"`
	Image string `json:"image,omitempty"` // base64 PNG of the page
	// Marks are the cited passage's boxes on the page image, as fractions
	// of the page's width and height (0..1).
	Marks  []Mark        `json:"marks,omitempty"`
	Chunks []SourceChunk `json:"chunks,omitempty"` // the stored text, in order
	Cited  int64         `json:"cited,omitempty"`  // the cited chunk's id
}

// Mark is one highlighted box on a page image.
type Mark struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// SourceChunk is one stored chunk of a document (Markdown).
type SourceChunk struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
}

// ViewSource opens a citation in the app: the cited page of a local PDF
// with the cited passage marked, else the text the knowledge base holds for
// that document.
func (l *Library) ViewSource(c chat.Citation, page int) (SourceView, error) {
	v := SourceView{Title: c.Title, Page: max(page, c.Page, 1), Cited: c.ChunkID}
	if p, err := l.Locate(c); err == nil && pdf.Viewable(p) {
		if png, n, err := pdf.PagePNG(p, v.Page, 110); err == nil {
			v.Path, v.Pages, v.Image = p, n, base64.StdEncoding.EncodeToString(png)
			v.Marks = l.marks(p, v.Page, c.ChunkID)
			return v, nil
		}
	}
	k, err := l.tools()
	if err != nil {
		return v, err
	}
	// The chat's own lookup order, then the file the citation names.
	chunks, err := k.FindDocument(context.Background(), window, "library", cmp.Or(c.Source, c.FilePath))
	if errs.Is(err, errs.NotFound) && c.Source != "" && c.FilePath != "" {
		chunks, err = k.FindDocument(context.Background(), window, "library", c.FilePath)
	}
	if errs.Is(err, errs.NotFound) {
		return v, errs.New(errs.NotFound, "library", "%s is no longer in the knowledge base", cmp.Or(c.Source, c.FilePath))
	}
	if err != nil {
		return v, err
	}
	for _, ch := range chunks {
		v.Chunks = append(v.Chunks, SourceChunk{ID: ch.ID, Text: ch.Content})
	}
	if v.Title == "" {
		v.Title = chunks[0].Meta.Title
	}
	v.Page = 0
	return v, nil
}

// marks locates the cited chunk on a PDF page. A passage that cannot be
// found (another page, a stale chunk) just leaves the page unmarked.
func (l *Library) marks(path string, page int, chunkID int64) []Mark {
	s, err := l.store()
	if chunkID == 0 || err != nil {
		return nil
	}
	chunks, err := s.Chunks(context.Background(), []int64{chunkID})
	if err != nil || len(chunks) == 0 {
		return nil
	}
	var eng *ocr.Engine
	if e := l.core.agent().Engine; e != nil {
		eng, _ = e.OCR() // without OCR a scanned page just shows unmarked
	}
	ctx, cancel := l.locateContext()
	defer cancel()
	found, err := pdf.LocateContext(ctx, path, page, chunks[0].Content, eng)
	if err != nil || found.Width <= 0 || found.Height <= 0 {
		return nil
	}
	var out []Mark
	for _, b := range found.Boxes {
		out = append(out, Mark{X: b.X0 / found.Width, Y: b.Y0 / found.Height, W: (b.X1 - b.X0) / found.Width, H: (b.Y1 - b.Y0) / found.Height})
	}
	return out
}
