package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strings"
	gosync "sync"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/drafts/render"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/pdf"
)

// Library serves the library modal: documents, search, metadata edits and
// two-step removal.
type Library struct {
	ag  *agent.Agent
	ops *ops.Tracker

	mu      gosync.Mutex
	removal map[string]string // token -> source awaiting the second click
	// Open and Reveal hand a file (or its folder) to the desktop; tests
	// replace them.
	Open, Reveal func(path string) error
}

func (l *Library) store() (*kb.Store, error) {
	if l.ag.Engine == nil {
		return nil, errs.WithHint(errs.New(errs.NotFound, "library", "the knowledge base is not available: %v", l.ag.EngineErr),
			"install the models (jarvis-cli models fetch) and restart Jarvis")
	}
	return l.ag.Engine.Store, nil
}

var kindTypes = map[string][]string{"papers": {kb.DocPaper, kb.DocDigest}, "notes": {kb.DocNote}, "chat": {kb.DocChat}, "": nil, "all": nil}

// Documents lists documents of a kind (papers, notes, chat, all), narrowed
// by a case-insensitive title/key filter.
func (l *Library) Documents(kind, filter string) ([]kb.DocumentSummary, error) {
	s, err := l.store()
	if err != nil {
		return nil, err
	}
	types, ok := kindTypes[kind]
	if !ok {
		return nil, errs.New(errs.Invalid, "library", "unknown kind %q", kind)
	}
	docs, err := s.List(context.Background(), kb.Filter{DocTypes: types}, 5000)
	if err != nil {
		return nil, err
	}
	out := []kb.DocumentSummary{}
	f := strings.ToLower(strings.TrimSpace(filter))
	for _, d := range docs {
		if f == "" || strings.Contains(strings.ToLower(d.Title+" "+d.Key), f) {
			out = append(out, d)
		}
	}
	return out, nil
}

// HitView is one search result.
type HitView struct {
	Citation chat.Citation `json:"citation"`
	DocType  string        `json:"docType"`
	Private  bool          `json:"private"`
	Section  string        `json:"section"`
	Text     string        `json:"text"`
	Score    float64       `json:"score"`
}

// Search runs the retrieval pipeline locally (private notes included: the
// results stay on this machine).
func (l *Library) Search(query string, n int) ([]HitView, error) {
	if l.ag.Engine == nil {
		_, err := l.store()
		return nil, err
	}
	res, err := l.ag.Engine.Searcher.Search(context.Background(), query, n, kb.Filter{})
	if err != nil {
		return nil, err
	}
	out := []HitView{}
	for _, h := range res.Hits {
		m := h.Chunk.Meta
		cit := chat.Citation{Source: m.Source, Title: m.Title, Page: m.Page, ChunkID: h.Chunk.ID, FilePath: m.FilePath}
		out = append(out, HitView{Citation: cit, DocType: m.DocType, Private: m.Visibility == kb.Private, Section: m.Section, Text: h.Chunk.Content, Score: h.Score})
	}
	return out, nil
}

// Stats are the counts.
func (l *Library) Stats() (kb.Counts, error) {
	s, err := l.store()
	if err != nil {
		return kb.Counts{}, err
	}
	return s.Count(context.Background())
}

// SetMeta corrects a paper's title, authors or DOI.
func (l *Library) SetMeta(source, title, authors, doi string) (int, error) {
	s, err := l.store()
	if err != nil {
		return 0, err
	}
	return s.SetPaperMeta(context.Background(), source, title, authors, doi)
}

// RemovalPreview is the first click of a removal.
type RemovalPreview struct {
	Token  string `json:"token"`
	Key    string `json:"key"`
	Title  string `json:"title"`
	Chunks int    `json:"chunks"`
	Notice string `json:"notice"`
}

// PrepareRemove is the first step: what would go, and a token for the second.
func (l *Library) PrepareRemove(key string) (RemovalPreview, error) {
	s, err := l.store()
	if err != nil {
		return RemovalPreview{}, err
	}
	docs, err := s.List(context.Background(), chat.DocFilter(key), 1)
	if err != nil {
		return RemovalPreview{}, err
	}
	if len(docs) == 0 {
		return RemovalPreview{}, errs.New(errs.NotFound, "library", "no document %q", key)
	}
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return RemovalPreview{}, errs.Wrap(errs.Internal, "library", err)
	}
	token := hex.EncodeToString(b)
	l.mu.Lock()
	if l.removal == nil {
		l.removal = map[string]string{}
	}
	l.removal[token] = key
	l.mu.Unlock()
	return RemovalPreview{Token: token, Key: docs[0].Key, Title: docs[0].Title, Chunks: docs[0].Chunks, Notice: chat.RemoveNotice}, nil
}

// Remove is the second step; the token is single-use.
func (l *Library) Remove(token string) (int, error) {
	l.mu.Lock()
	key, ok := l.removal[token]
	delete(l.removal, token)
	l.mu.Unlock()
	if !ok {
		return 0, errs.New(errs.NotFound, "library", "this removal was already done or cancelled")
	}
	s, err := l.store()
	if err != nil {
		return 0, err
	}
	f := chat.DocFilter(key)
	if f.FilePath != "" {
		return s.DeleteBy(context.Background(), "file_path", f.FilePath)
	}
	return s.DeleteBy(context.Background(), "source", f.Source)
}

// Locate turns a citation into a file on disk (a vault note or a local PDF).
func (l *Library) Locate(c chat.Citation) (string, error) {
	switch {
	case strings.HasPrefix(c.Source, "file://"):
		return strings.TrimPrefix(c.Source, "file://"), nil
	case c.FilePath != "" && filepath.IsAbs(c.FilePath):
		return c.FilePath, nil
	case c.FilePath != "" || !strings.Contains(c.Source, ":"):
		rel := c.FilePath
		if rel == "" {
			rel = c.Source
		}
		if clean := filepath.Clean(filepath.FromSlash(rel)); filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return "", errs.New(errs.Invalid, "library", "%q is not a path inside the vault", rel)
		}
		return filepath.Join(l.ag.Cfg.Vault.Path, filepath.FromSlash(rel)), nil
	}
	return "", errs.New(errs.NotFound, "library", "%s is not a file on this machine", c.Source)
}

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
	return func(path string) error { return exec.Command("xdg-open", path).Start() }
}

// RevealCitation shows the cited file in the file manager.
func (l *Library) RevealCitation(c chat.Citation) error {
	p, err := l.Locate(c)
	if err != nil {
		return err
	}
	reveal := l.Reveal
	if reveal == nil {
		reveal = func(path string) error { return exec.Command("xdg-open", filepath.Dir(path)).Start() }
	}
	return reveal(p)
}

// SourceView is a cited source shown inside the app: a PDF page as an
// image, or the document's stored text.
type SourceView struct {
	Title string `json:"title"`
	Path  string `json:"path,omitempty"`
	Page  int    `json:"page,omitempty"`
	Pages int    `json:"pages,omitempty"`
	Image string `json:"image,omitempty"` // base64 PNG of the page
	HTML  string `json:"html,omitempty"`  // the text, rendered (raw HTML escaped)
}

// ViewSource opens a citation in the app: the cited page of a local PDF,
// else the text the knowledge base holds for that document.
func (l *Library) ViewSource(c chat.Citation, page int) (SourceView, error) {
	v := SourceView{Title: c.Title, Page: max(page, c.Page, 1)}
	if p, err := l.Locate(c); err == nil && strings.EqualFold(filepath.Ext(p), ".pdf") {
		if png, n, err := pdf.PagePNG(p, v.Page, 110); err == nil {
			v.Path, v.Pages, v.Image = p, n, base64.StdEncoding.EncodeToString(png)
			return v, nil
		}
	}
	s, err := l.store()
	if err != nil {
		return v, err
	}
	chunks, err := s.Document(context.Background(), chat.DocFilter(c.Source))
	if err == nil && len(chunks) == 0 && c.FilePath != "" {
		chunks, err = s.Document(context.Background(), kb.Filter{FilePath: c.FilePath})
	}
	if err != nil {
		return v, err
	}
	if len(chunks) == 0 {
		return v, errs.New(errs.NotFound, "library", "%s is no longer in the knowledge base", c.Source)
	}
	var b strings.Builder
	for _, ch := range chunks {
		b.WriteString(ch.Content + "\n\n")
	}
	if v.Title == "" {
		v.Title = chunks[0].Meta.Title
	}
	v.Page = 0
	v.HTML, err = render.MarkdownToHTML(b.String())
	return v, err
}
