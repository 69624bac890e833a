package mcpserver

import (
	"context"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
)

// Filters narrow a tool to some documents; every knowledge-base tool
// takes them.
type Filters struct {
	Kind     string            `json:"kind,omitempty" jsonschema:"which documents: all (default), papers, notes or chat (past conversations)"`
	Category string            `json:"category,omitempty" jsonschema:"record type from a note's frontmatter, e.g. job_application or meeting"`
	Status   string            `json:"status,omitempty" jsonschema:"record status from a note's frontmatter, e.g. rejected"`
	Entity   string            `json:"entity,omitempty" jsonschema:"record entity: the organisation or person a record is about"`
	Tags     []string          `json:"tags,omitempty" jsonschema:"tags that must all be present"`
	Fields   map[string]string `json:"fields,omitempty" jsonschema:"other frontmatter fields that must match exactly, keyed x_<field>, e.g. {\"x_location\": \"Berlin\"}"`
	Contains map[string]string `json:"contains,omitempty" jsonschema:"fields that must contain a text (case aside), keyed x_<field>, category, status or entity, e.g. {\"entity\": \"tanaka\"}"`
	// Zotero items (papers) carry these.
	Collection string `json:"collection,omitempty" jsonschema:"a Zotero collection path, e.g. Thesis/Chapter 2: items filed in it or in a collection under it"`
	Year       string `json:"year,omitempty" jsonschema:"a paper's year or range: 2021, 2019-2021, 2019-, -2021"`
	ItemType   string `json:"item_type,omitempty" jsonschema:"Zotero item type, e.g. journalArticle, book, preprint, conferencePaper"`
}

func (f Filters) args() kbtools.FilterArgs {
	return kbtools.FilterArgs{Kind: f.Kind, Category: f.Category, Status: f.Status, Entity: f.Entity, Tags: f.Tags, Fields: f.Fields, Contains: f.Contains,
		Collection: f.Collection, Year: f.Year, ItemType: f.ItemType}
}

func (f Filters) filter(op string) (kb.Filter, error) { return f.args().Filter(op) }

// SearchIn is a search.
type SearchIn struct {
	Query string `json:"query" jsonschema:"what to look for; a keyword search matches the words a note would use and their inflections"`
	N     int    `json:"n,omitempty" jsonschema:"number of results, 1 to 50 (default: the user's setting, usually 10)"`
	Filters
}

// Hit is one retrieved passage.
type Hit struct {
	Citation string `json:"citation"` // the label to cite it by: [source: X] or [source: X, p.N]
	Source   string `json:"source"`   // the id get_document and resources take
	URI      string `json:"uri"`      // the document as a resource
	Title    string `json:"title,omitempty"`
	Section  string `json:"section,omitempty"`
	Page     int    `json:"page,omitempty"`
	DocType  string `json:"doc_type"`
	Kind     string `json:"kind,omitempty"`  // highlight, comment or figure for a paper's annotations
	About    string `json:"about,omitempty"` // authors, year, DOI for papers; category, status, entity, date for records
	Text     string `json:"text"`
}

// SearchOut is a search's answer.
type SearchOut struct {
	Mode    string `json:"mode"` // keyword, or hybrid (keyword + dense) with the models installed; + rerank
	Note    string `json:"note,omitempty"`
	Results []Hit  `json:"results"`
}

// DocumentIn asks for part of a document.
type DocumentIn struct {
	Source string `json:"source" jsonschema:"the document's source id exactly as a search result or listing gave it"`
	Page   int    `json:"page,omitempty" jsonschema:"page of 15 chunks in reading order, from 1 (default 1)"`
}

// DocumentOut is one page of a document.
type DocumentOut struct {
	Source string `json:"source"`
	Title  string `json:"title,omitempty"`
	Page   int    `json:"page"`
	Pages  int    `json:"pages"`
	Chunks int    `json:"chunks"` // in the whole document
	Parts  []Hit  `json:"parts"`
}

// ListIn lists documents.
type ListIn struct {
	Limit int `json:"limit,omitempty" jsonschema:"at most this many, 1 to 200 (default 200)"`
	Filters
}

// RecordsIn queries records (notes with frontmatter).
type RecordsIn struct {
	From  string `json:"from,omitempty" jsonschema:"earliest record date, inclusive: YYYY-MM-DD, or YYYY-MM for a whole month"`
	To    string `json:"to,omitempty" jsonschema:"latest record date, inclusive: YYYY-MM-DD, or YYYY-MM for a whole month"`
	Sort  string `json:"sort,omitempty" jsonschema:"date_desc (newest first, default), date_asc, changed (last edited first) or added"`
	Field string `json:"field,omitempty" jsonschema:"a frontmatter field (e.g. deadline) that from, to and the date sorts apply to instead of the record's date"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 200 (default 200)"`
	Filters
}

// RecentIn asks what changed.
type RecentIn struct {
	Since string `json:"since,omitempty" jsonschema:"changed at or after this time: RFC 3339 (2026-03-01T09:00:00Z) or a date (2026-03-01); default the last 7 days"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 200 (default 50)"`
	Filters
}

// Doc is one listed document.
type Doc struct {
	Source   string   `json:"source"`
	URI      string   `json:"uri"`
	Title    string   `json:"title,omitempty"`
	DocType  string   `json:"doc_type"`
	Authors  string   `json:"authors,omitempty"`
	DOI      string   `json:"doi,omitempty"`
	Category string   `json:"category,omitempty"`
	Status   string   `json:"status,omitempty"`
	Entity   string   `json:"entity,omitempty"`
	Date     string   `json:"date,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Changed  string   `json:"changed,omitempty"`
	Chunks   int      `json:"chunks"`
}

// TimelineIn names the entity a timeline follows.
type TimelineIn struct {
	Entity string `json:"entity" jsonschema:"a person, lab, project or journal, as the notes write it (e.g. Tanaka)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many items, 1 to 200 (default 50)"`
}

// TimelineItem is one dated appearance of the entity.
type TimelineItem struct {
	Date    string `json:"date,omitempty"`
	Record  bool   `json:"record"`            // filed under the entity, not only naming it
	Excerpt string `json:"excerpt,omitempty"` // for a mention: the passage that names it
	Doc
}

// TimelineOut is a timeline, oldest first.
type TimelineOut struct {
	Items []TimelineItem `json:"items"`
}

// DocsOut is a listing.
type DocsOut struct {
	Documents []Doc `json:"documents"`
}

// tool is a typed tool with its enums: the SDK infers the schema from
// the input struct, and the enums are added so a model cannot guess.
func tool[In, Out any](srv *mcp.Server, name, title, desc string, enums map[string][]any, ro bool, h mcp.ToolHandlerFor[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // the input types are ours; a failure is a bug caught by any test
	}
	for prop, values := range enums {
		if p := in.Properties[prop]; p != nil {
			p.Enum = values
		}
	}
	t := &mcp.Tool{Name: name, Title: title, Description: desc, InputSchema: in,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ro, OpenWorldHint: new(bool)}}
	if !ro {
		t.Annotations.DestructiveHint = new(bool) // nothing is deleted or overwritten: drafts and proposals only
	}
	mcp.AddTool(srv, t, h)
}

var kindEnum = []any{"all", "papers", "notes", "chat"}

func (c *conn) addTools(srv *mcp.Server) {
	if c.kb != nil {
		tool(srv, "search", "Search the knowledge base",
			"Search the user's notes, papers and past conversations. Returns ranked passages, each with the citation label to cite it by and the source id "+
				"get_document reads it with. Says whether the search ran by keyword or hybrid (keyword + meaning); with keyword only, try the words a note would use.",
			map[string][]any{"kind": kindEnum}, true, c.search)
		tool(srv, "get_document", "Read a document",
			"Read a stored document in reading order, 15 passages per page, by the source id a search or listing returned. A paper's highlights and notes follow its body.",
			nil, true, c.getDocument)
		tool(srv, "list_documents", "List documents",
			"List stored documents, newest added first: papers with authors and DOI, notes with their record fields. Filters narrow it.",
			map[string][]any{"kind": kindEnum}, true, c.listDocuments)
		tool(srv, "query_records", "Query records",
			"List records — notes with frontmatter such as job applications, meetings or contacts — by their fields and a date range, sorted. "+
				"For example meetings with Tanaka since March, newest first: category=meeting, entity=Tanaka, from=2026-03, sort=date_desc.",
			map[string][]any{"kind": kindEnum, "sort": {"date_desc", "date_asc", "changed", "added"}}, true, c.queryRecords)
		tool(srv, "timeline", "Timeline of an entity",
			"Everything about one person, lab, project or journal in date order, oldest first: the records filed under it (their entity field) "+
				"and every note, paper or past conversation that names it, each with its date and source id. An entity with a note of its own is also found by that note's aliases.",
			nil, true, c.timeline)
		tool(srv, "recent", "Recently changed",
			"Notes, papers and conversations edited or added since a time, most recent first.",
			map[string][]any{"kind": kindEnum}, true, c.recent)
	}
	c.addAskTools(srv)
	c.addDraftTools(srv)
}

func (c *conn) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, SearchOut, error) {
	const op = "search"
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return nil, SearchOut{}, errs.New(errs.Invalid, op, "query is empty")
	}
	f, err := in.filter(op)
	if err != nil {
		return nil, SearchOut{}, err
	}
	found, err := c.kb.Search(ctx, c.caller(ctx), kbtools.SearchArgs{Query: q, N: in.N, Filter: f})
	if err != nil {
		return nil, SearchOut{}, err
	}
	out := SearchOut{Mode: found.Mode.Kind(), Results: c.hits(found.Chunks)}
	if !found.Mode.Dense {
		out.Note = "keyword search: it matches the query's words and their inflections, not synonyms; if it misses, try the words a note would use"
	}
	return nil, out, nil
}

func (c *conn) getDocument(ctx context.Context, _ *mcp.CallToolRequest, in DocumentIn) (*mcp.CallToolResult, DocumentOut, error) {
	page := in.Page
	if page == 0 {
		page = 1
	}
	p, err := c.kb.GetDocument(ctx, c.caller(ctx), in.Source, page)
	if err != nil {
		return nil, DocumentOut{}, err
	}
	return nil, DocumentOut{Source: strings.TrimSpace(in.Source), Title: c.redact(p.Title), Page: p.Page, Pages: p.Pages, Chunks: p.Total, Parts: c.hits(p.Chunks)}, nil
}

func (c *conn) listDocuments(ctx context.Context, _ *mcp.CallToolRequest, in ListIn) (*mcp.CallToolResult, DocsOut, error) {
	return c.query(ctx, "list_documents", in.Filters.args(), kb.ListOptions{Limit: in.Limit})
}

func (c *conn) queryRecords(ctx context.Context, _ *mcp.CallToolRequest, in RecordsIn) (*mcp.CallToolResult, DocsOut, error) {
	a, o := kbtools.RecordDefaults(in.Filters.args(), kb.ListOptions{Limit: in.Limit, Sort: in.Sort, DateFrom: strings.TrimSpace(in.From), DateTo: strings.TrimSpace(in.To),
		Field: kbtools.FieldKey(in.Field)})
	return c.query(ctx, "query_records", a, o)
}

func (c *conn) recent(ctx context.Context, _ *mcp.CallToolRequest, in RecentIn) (*mcp.CallToolResult, DocsOut, error) {
	since, err := parseSince(in.Since, time.Now())
	if err != nil {
		return nil, DocsOut{}, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 50
	}
	return c.query(ctx, "recent", in.Filters.args(), kb.ListOptions{Limit: limit, Sort: kb.ByChanged, ChangedSince: since.Format(time.RFC3339)})
}

// parseSince reads RFC 3339 or a date; empty is a week before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return now.Add(-7 * 24 * time.Hour).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, errs.WithHint(errs.New(errs.Invalid, "recent", "bad time %q", s), "give an RFC 3339 time (2026-03-01T09:00:00Z) or a date (2026-03-01)")
}

func (c *conn) query(ctx context.Context, op string, a kbtools.FilterArgs, o kb.ListOptions) (*mcp.CallToolResult, DocsOut, error) {
	f, err := a.Filter(op)
	if err != nil {
		return nil, DocsOut{}, err
	}
	docs, err := c.kb.Query(ctx, c.caller(ctx), f, o)
	if err != nil {
		return nil, DocsOut{}, err
	}
	out := DocsOut{Documents: []Doc{}}
	rec := callOf(ctx)
	for _, d := range docs {
		rec.Add(kbtools.Citation{Source: kbtools.SummaryCiteName(d), Title: d.Title})
		out.Documents = append(out.Documents, c.doc(d))
	}
	return nil, out, nil
}

func (c *conn) timeline(ctx context.Context, _ *mcp.CallToolRequest, in TimelineIn) (*mcp.CallToolResult, TimelineOut, error) {
	items, err := c.kb.Timeline(ctx, c.caller(ctx), in.Entity, in.Limit)
	if err != nil {
		return nil, TimelineOut{}, err
	}
	out := TimelineOut{Items: []TimelineItem{}}
	for _, it := range items {
		out.Items = append(out.Items, TimelineItem{Date: it.Date, Record: it.Record, Excerpt: c.redact(it.Excerpt), Doc: c.doc(it.Doc)})
	}
	return nil, out, nil
}

// doc renders a listed document, redacting secrets from what a person wrote.
func (c *conn) doc(d kb.DocumentSummary) Doc {
	src := kbtools.SummaryCiteName(d)
	return Doc{Source: src, URI: ResourceURI(src), Title: c.redact(d.Title), DocType: d.DocType, Authors: c.redact(d.Authors), DOI: d.DOI,
		Category: c.redact(d.Category), Status: c.redact(d.Status), Entity: c.redact(d.Entity), Date: d.EventDate, Tags: d.Tags, Changed: d.Changed, Chunks: d.Chunks}
}

// hits renders chunks, redacting secrets from everything written by a
// person or a model.
func (c *conn) hits(chunks []kb.Chunk) []Hit {
	out := []Hit{}
	for _, ch := range chunks {
		m := ch.Meta
		src := kbtools.CiteName(m)
		out = append(out, Hit{Citation: kbtools.CiteLabel(m), Source: src, URI: ResourceURI(src), Title: c.redact(m.Title), Section: c.redact(m.Section), Page: m.Page,
			DocType: m.DocType, Kind: m.AnnotationKind, About: c.redact(kbtools.Identity(m)), Text: c.redact(ch.Content)})
	}
	return out
}
