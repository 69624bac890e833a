package chat

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// Retrieved-data markers: everything between them is material, never
// instructions (the system prompt says so).
const (
	BeginData = "BEGIN RETRIEVED DATA"
	EndData   = "END RETRIEVED DATA"
)

// RemoveNotice is the invariant every removal preview states, followed by
// the document's local path (RemoveLine).
const RemoveNotice = "Database entry only — files on disk are never touched by jarvis"

// NoLocalFile stands for the path of a document that has no file here (an
// arXiv paper, a past conversation).
const NoLocalFile = "no local file"

// RemoveLine is the removal preview's fixed line naming the local path.
func RemoveLine(path string) string {
	if path == "" {
		path = NoLocalFile
	}
	return RemoveNotice + ": " + path
}

// DocPageSize is how many chunks get_document returns per page.
const DocPageSize = 15

// maxReadFile caps read_file, so one huge note cannot flood the context.
const maxReadFile = 256 << 10

// KB is what the knowledge-base tools need.
type KB struct {
	Searcher    *kb.Searcher
	Store       *kb.Store
	VaultRoot   string
	PrivateDirs []string
	NResults    int
	Refresh     func(ctx context.Context) (vault.Result, error) // nil: index_vault unavailable
	Confirm     *Confirmations
}

func intArg(args map[string]any, key string, def int) int {
	switch v := args[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n
		}
	}
	return def
}

// citeName is how a chunk is cited: local files (vault notes share one
// source; added files have file:// sources) by their path, the rest by source.
func citeName(m kb.Metadata) string {
	if m.Source == kb.SourceVault || strings.HasPrefix(m.Source, "file://") {
		return m.FilePath
	}
	return m.Source
}

// citeLabel builds the citation label the model is asked to use.
func citeLabel(m kb.Metadata) string {
	src := citeName(m)
	if m.Page > 0 {
		return fmt.Sprintf("[source: %s, p.%d]", src, m.Page)
	}
	return "[source: " + src + "]"
}

func citationOf(c kb.Chunk) Citation {
	m := c.Meta
	cite := Citation{Source: citeName(m), Title: m.Title, Page: m.Page, ChunkID: c.ID, FilePath: m.FilePath}
	if m.Source == kb.SourceVault && m.FilePath != "" {
		cite.Wikilink = vault.Wikilink(m.FilePath, m.Section)
	}
	return cite
}

// paperYear is a paper's year: stored from its source's metadata, or read
// from an arXiv id (YYMM.NNNNN) or a bioRxiv DOI (10.1101/YYYY.MM.DD...).
func paperYear(m kb.Metadata) string {
	if y := m.Extra[ingest.YearField]; y != "" {
		return y
	}
	if y := arxivYear.FindStringSubmatch(m.Source); y != nil {
		return "20" + y[1]
	}
	if y := biorxivYear.FindStringSubmatch(m.DOI + " " + m.Source); y != nil {
		return y[1]
	}
	return ""
}

var (
	arxivYear   = regexp.MustCompile(`arxiv\.org/(?:abs|pdf)/(\d{2})\d{2}\.\d{4,5}`)
	biorxivYear = regexp.MustCompile(`10\.1101/((?:19|20)\d{2})\.\d{2}\.\d{2}\.`)
)

// identity is the line of identifying fields a hit shows: for a paper its
// authors, year, DOI, track and score; for a record its category, status,
// entity and date. Empty fields are left out.
func identity(m kb.Metadata) string {
	var parts []string
	add := func(label, v string) {
		if v = strings.TrimSpace(v); v != "" {
			parts = append(parts, label+": "+v)
		}
	}
	switch {
	case m.DocType == kb.DocPaper || m.DocType == kb.DocDigest:
		add("authors", m.Authors)
		add("year", paperYear(m))
		if m.DOI != "" && m.Extra[ingest.DOIGuessField] != "" {
			add("DOI", m.DOI+" (guessed by a model, not printed in the paper)")
		} else {
			add("DOI", m.DOI)
		}
		add("track", m.Track)
		if m.Score != nil {
			add("score", fmt.Sprintf("%d/10", *m.Score))
		}
	case m.Category != "" || m.Status != "" || m.Entity != "" || m.EventDate != "":
		add("category", m.Category)
		add("status", m.Status)
		add("entity", m.Entity)
		add("date", m.EventDate)
	}
	return strings.Join(parts, " · ")
}

// renderChunks wraps chunks in the retrieved-data markers, each with its
// citation label and identifying fields, and records them in the ledger.
func renderChunks(l *Ledger, header string, chunks []kb.Chunk) string {
	var b strings.Builder
	b.WriteString(header + "\n" + BeginData + "\n")
	for i, c := range chunks {
		m := c.Meta
		fmt.Fprintf(&b, "--- %d. %s %s", i+1, citeLabel(m), m.Title)
		if m.Section != "" {
			fmt.Fprintf(&b, " — %s", m.Section)
		}
		if m.AnnotationKind != "" {
			fmt.Fprintf(&b, " (%s)", m.AnnotationKind)
		}
		if id := identity(m); id != "" {
			b.WriteString("\n" + id)
		}
		b.WriteString("\n" + c.Content + "\n")
		if m.Visibility == kb.Private {
			l.MarkPrivate()
		}
		l.Add(citationOf(c))
	}
	b.WriteString(EndData)
	return b.String()
}

// KBTools exposes the knowledge base to the agent.
func KBTools(k *KB) map[string]Tool {
	tools := map[string]Tool{
		"search_kb": {Def: llm.Tool{Name: "search_kb", Description: "Search the knowledge base (papers, notes, digests, past chats). Returns ranked excerpts with citation labels; " +
			"papers show authors, year, DOI, track and score, records their category, status, entity and date.",
			Parameters: schema([]string{"query"}, withFilters(map[string]string{"query": "what to look for", "n": "number of results"}))},
			Run: k.searchKB},
		"get_document": {Def: llm.Tool{Name: "get_document", Description: fmt.Sprintf("Read a stored document in order, %d chunks per page.", DocPageSize),
			Parameters: schema([]string{"source"}, map[string]string{"source": "document source or vault note path, as cited", "page": "page number, from 1"})},
			Run: k.getDocument},
		"list_documents": {Def: llm.Tool{Name: "list_documents", Description: "List stored documents with chunk counts: papers with authors and DOI, records with category, status and entity.",
			Parameters: schema(nil, withFilters(map[string]string{}))},
			Run: k.listDocuments},
		"kb_stats": {Def: llm.Tool{Name: "kb_stats", Description: "Counts by document type, record type and status.", Parameters: schema(nil, map[string]string{})},
			Run: k.stats},
		"read_file": {Def: llm.Tool{Name: "read_file", Description: "Read a Markdown note from the vault by its vault-relative path.",
			Parameters: schema([]string{"path"}, map[string]string{"path": "vault-relative path of a .md file"})},
			Run: k.readFile},
		"update_file_path": {Def: llm.Tool{Name: "update_file_path", Description: "Record that a local document's file moved (no re-embedding).",
			Parameters: schema([]string{"source", "new_path"}, map[string]string{"source": "the document's current source (file://...)", "new_path": "absolute path of the file now"})},
			Run: k.updatePath},
		"update_document_metadata": {Def: llm.Tool{Name: "update_document_metadata", Description: "Correct a paper's title, authors or DOI (no re-embedding).",
			Parameters: schema([]string{"source"}, map[string]string{"source": "paper source", "title": "new title", "authors": "new authors", "doi": "new DOI"})},
			Run: k.updateMeta},
		"remove_document": {Def: llm.Tool{Name: "remove_document", Description: "Remove a document from the knowledge base after the user confirms. Database only; files are never touched.",
			Parameters: schema([]string{"source"}, map[string]string{"source": "document source or vault note path"})},
			Run: k.remove},
		OwnKnowledgeTool: {Def: llm.Tool{Name: OwnKnowledgeTool, Description: "Declare that you will answer from general knowledge because the knowledge base has nothing relevant.",
			Parameters: schema([]string{"reason"}, map[string]string{"reason": "why the knowledge base does not cover this"})},
			Available: func(s *Session) bool { return !s.KBOnly },
			Run: func(_ context.Context, _ *Session, args map[string]any) (string, string, error) {
				return "Understood. Answer from general knowledge and tell the user the answer is not from their knowledge base.", "answering from general knowledge", nil
			}},
	}
	tools["search_chat_history"] = HistoryTool(k)
	if k.Refresh != nil {
		tools["index_vault"] = Tool{Def: llm.Tool{Name: "index_vault", Description: "Sync the Obsidian vault into the knowledge base now.", Parameters: schema(nil, map[string]string{})},
			Run: k.indexVault}
	}
	return tools
}

// indexVault syncs the vault. The model is told what changed among public
// notes only, for any session: private notes' counts and warnings (which
// name their files and frontmatter keys) go to the user's tool line.
func (k *KB) indexVault(ctx context.Context, _ *Session, _ map[string]any) (string, string, error) {
	before, err := k.publicNotes(ctx)
	if err != nil {
		return "", "", err
	}
	res, err := k.Refresh(ctx)
	if err != nil {
		return "", "", err
	}
	after, err := k.publicNotes(ctx)
	if err != nil {
		return "", "", err
	}
	var added, updated, deleted int
	for path, hash := range after {
		if old, ok := before[path]; !ok {
			added++
		} else if old != hash {
			updated++
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok {
			deleted++
		}
	}
	var public []string
	for _, w := range res.Warnings {
		// A warning names its note first ("<path>: ..."); any other shape
		// (a list of links, say) may name private files and stays local.
		if rel, _, ok := strings.Cut(w, ": "); ok && rel != "" && vault.Visibility(k.VaultRoot, filepath.Join(k.VaultRoot, filepath.FromSlash(rel)), k.PrivateDirs) == kb.Public {
			public = append(public, w)
		}
	}
	msg := fmt.Sprintf("Vault synced. Public notes: %d added, %d updated, %d deleted.", added, updated, deleted)
	if len(public) > 0 {
		msg += fmt.Sprintf(" %d warnings (first: %s).", len(public), public[0])
	}
	msg += " Private notes are synced too; what changed among them is shown to the user only."
	summary := fmt.Sprintf("Vault synced: %d added, %d updated, %d deleted (%d warnings).", res.Added, res.Updated, res.Deleted, len(res.Warnings))
	return msg, summary, nil
}

// publicNotes maps each public vault note to its content hash.
func (k *KB) publicNotes(ctx context.Context) (map[string]string, error) {
	states, err := k.Store.NoteStates(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for path, st := range states {
		if st.Visibility == kb.Public {
			out[path] = st.ContentHash
		}
	}
	return out, nil
}

// filterParams are the filters search_kb and list_documents accept; both
// schemas advertise every one of them (kb_stats lists the values in use).
var filterParams = map[string]string{
	"kind":     "all | papers | notes | chat (default all)",
	"category": "record type, e.g. job_application (kb_stats lists them)",
	"status":   "record status, e.g. rejected (kb_stats lists them)",
	"entity":   "record entity: organisation or person",
	"tags":     "comma-separated tags that must all be present",
	"fields":   "x_<key>=value pairs for other frontmatter fields, comma-separated",
}

// withFilters adds filterParams to a tool's own parameters.
func withFilters(props map[string]string) map[string]string {
	maps.Copy(props, filterParams)
	return props
}

func (k *KB) filter(args map[string]any) (kb.Filter, error) {
	kind, err := kb.ParseKind(str(args, "kind"))
	if err != nil {
		return kb.Filter{}, errs.WithHint(errs.New(errs.Invalid, "search_kb", "unknown kind %q", str(args, "kind")), "use all, papers, notes or chat")
	}
	f := kb.Filter{DocTypes: kind.DocTypes(), Category: str(args, "category"), Status: str(args, "status"), Entity: str(args, "entity")}
	for _, tag := range strings.Split(str(args, "tags"), ",") {
		if tag = strings.TrimSpace(tag); tag != "" {
			f.Tags = append(f.Tags, tag)
		}
	}
	for _, pair := range strings.Split(str(args, "fields"), ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		key, value, ok := strings.Cut(pair, "=")
		if !ok || !strings.HasPrefix(strings.TrimSpace(key), "x_") {
			return kb.Filter{}, errs.WithHint(errs.New(errs.Invalid, "search_kb", "bad field filter %q", pair), "write fields as x_<key>=value; kb_stats lists what exists")
		}
		if f.Fields == nil {
			f.Fields = map[string]string{}
		}
		f.Fields[strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return f, nil
}

func (k *KB) updatePath(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	const op = "update_file_path"
	source, newPath := strings.TrimSpace(str(args, "source")), strings.TrimSpace(str(args, "new_path"))
	if !strings.HasPrefix(source, "file://") {
		return "", "", errs.WithHint(errs.New(errs.Invalid, op, "only local documents (file:// sources) have a path"), "vault notes follow the vault; run index_vault after moving them")
	}
	if !filepath.IsAbs(newPath) {
		return "", "", errs.New(errs.Invalid, op, "new_path must be absolute")
	}
	cloud := cloudSession(s)
	docs, err := k.Store.List(ctx, scope(kb.Filter{Source: source}, cloud), 1)
	if err != nil {
		return "", "", err
	}
	if len(docs) == 0 {
		return "", "", k.notFound(ctx, cloud, kb.Filter{Source: source}, errs.WithHint(errs.New(errs.NotFound, op, "no document with source %q", source), "use list_documents to find the exact source"))
	}
	saw(ctx, docs[0].Visibility)
	noFile := errs.WithHint(errs.New(errs.NotFound, op, "no file at %s", newPath), "check the path; nothing was changed")
	fields := map[string]any{"file_path": newPath, "source": "file://" + filepath.ToSlash(newPath)}
	// Whether a file exists in a private vault folder is private, and a
	// document that now lives there is private too: its public entry must
	// not name a private file.
	if vault.InPrivateFolder(k.VaultRoot, newPath, k.PrivateDirs) {
		if cloud {
			return "", "", noFile
		}
		saw(ctx, kb.Private)
		if docs[0].DocType == kb.DocPaper || docs[0].DocType == kb.DocDigest {
			return "", "", errs.New(errs.Invalid, op, "%s is in a private vault folder, and papers are always public", filepath.Base(newPath))
		}
		fields["visibility"] = kb.Private
	}
	if st, err := os.Stat(newPath); err != nil || !st.Mode().IsRegular() {
		return "", "", noFile
	}
	n, err := k.Store.UpdateFields(ctx, scope(kb.Filter{Source: source}, cloud), fields)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("Updated %d chunks: %s now points at %s.", n, source, newPath), "moved " + filepath.Base(newPath), nil
}

func (k *KB) searchKB(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	q := strings.TrimSpace(str(args, "query"))
	if q == "" {
		return "", "", errs.New(errs.Invalid, "search_kb", "query is empty")
	}
	f, err := k.filter(args)
	if err != nil {
		return "", "", err
	}
	n := intArg(args, "n", k.NResults)
	if n <= 0 || n > 50 {
		n = max(k.NResults, 1)
	}
	chunks, mode, err := k.search(ctx, q, n, f, cloudSession(s))
	if err != nil {
		return "", "", err
	}
	note := searchModeNote(mode)
	if len(chunks) == 0 {
		return withCaveat("No matches in the knowledge base for: "+q+"\n"+note, s), "search: no matches", nil
	}
	text := renderChunks(LedgerFrom(ctx), fmt.Sprintf("%d results for %q (%s):", len(chunks), q, note), chunks)
	return withCaveat(text, s), fmt.Sprintf("searched %q: %d results", q, len(chunks)), nil
}

// search ranks the chunks inside f a session may see. For a cloud session
// the pool holds public chunks only, so the ranking is the one a store
// without private notes would give; the private matches a full search
// would have returned are counted for the user.
func (k *KB) search(ctx context.Context, q string, n int, f kb.Filter, cloud bool) ([]kb.Chunk, kb.Mode, error) {
	filters := []kb.Filter{scope(f, cloud)}
	if cloud {
		filters = append(filters, f)
	}
	results, err := k.Searcher.SearchEach(ctx, q, n, filters...)
	if err != nil {
		return nil, kb.Mode{}, err
	}
	res := results[0]
	if cloud {
		withheld := 0
		for _, h := range results[1].Hits {
			if h.Chunk.Meta.Visibility == kb.Private {
				withheld++
			}
		}
		LedgerFrom(ctx).AddWithheld(withheld)
	}
	chunks := make([]kb.Chunk, len(res.Hits))
	for i, h := range res.Hits {
		chunks[i] = h.Chunk
	}
	return chunks, res.Mode, nil
}

func withCaveat(text string, s *Session) string {
	if cloudSession(s) {
		return text + "\n" + CloudCaveat
	}
	return text
}

// searchModeNote tells the model how the search ran, so it can rephrase:
// a keyword search finds the words of the query and their inflections,
// not synonyms.
func searchModeNote(m kb.Mode) string {
	if !m.Dense {
		return "search mode: " + m.Kind() + "; it matches the query's words and their inflections, not synonyms: if a search misses, try the words a note would use"
	}
	return "search mode: " + m.Kind()
}

// DocFilter names one document: a vault note by path, anything else by source.
func DocFilter(source string) kb.Filter {
	return kb.DocRef(source).Filter()
}

// document returns a stored document's chunks in reading order, or the
// one not-found answer: for a cloud session a private document does not
// exist.
func (k *KB) document(ctx context.Context, op, source string, cloud bool) ([]kb.Chunk, error) {
	chunks, err := k.Store.Document(ctx, scope(DocFilter(source), cloud))
	if err == nil && len(chunks) == 0 {
		chunks, err = k.Store.Document(ctx, scope(kb.Filter{FilePath: source}, cloud)) // file:// notes cited by path
	}
	if err != nil {
		return nil, err
	}
	if len(chunks) == 0 {
		return nil, k.notFound(ctx, cloud, DocFilter(source), errs.WithHint(errs.New(errs.NotFound, op, "no document %q", source), "use the source exactly as a search result cited it, or list_documents"))
	}
	readingOrder(chunks)
	return chunks, nil
}

// readingOrder puts a document's body first, in reading order, then the
// reader's annotations (highlights and notes), then figure captions — the
// store keeps them in the order they were staged, annotations first.
func readingOrder(chunks []kb.Chunk) {
	rank := func(c kb.Chunk) int {
		switch c.Meta.AnnotationKind {
		case "":
			return 0
		case ingest.KindFigure:
			return 2
		}
		return 1
	}
	slices.SortStableFunc(chunks, func(a, b kb.Chunk) int { return cmp.Compare(rank(a), rank(b)) })
}

func (k *KB) getDocument(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	source := strings.TrimSpace(str(args, "source"))
	if source == "" {
		return "", "", errs.New(errs.Invalid, "get_document", "source is empty")
	}
	chunks, err := k.document(ctx, "get_document", source, cloudSession(s))
	if err != nil {
		return "", "", err
	}
	pages := (len(chunks) + DocPageSize - 1) / DocPageSize
	page := intArg(args, "page", 1)
	if page < 1 || page > pages {
		saw(ctx, chunks[0].Meta.Visibility) // the page count is the document's
		return "", "", errs.WithHint(errs.New(errs.Invalid, "get_document", "page %d is out of range", page), fmt.Sprintf("the document has %d page(s)", pages))
	}
	part := chunks[(page-1)*DocPageSize : min(page*DocPageSize, len(chunks))]
	header := fmt.Sprintf("%s — page %d of %d (%d chunks in all):", chunks[0].Meta.Title, page, pages, len(chunks))
	saw(ctx, chunks[0].Meta.Visibility)
	return renderChunks(LedgerFrom(ctx), header, part), fmt.Sprintf("read %s (page %d/%d)", source, page, pages), nil
}

func (k *KB) listDocuments(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	f, err := k.filter(args)
	if err != nil {
		return "", "", err
	}
	docs, err := k.Store.List(ctx, scope(f, cloudSession(s)), 200)
	if err != nil {
		return "", "", err
	}
	if len(docs) == 0 {
		return "The knowledge base has no matching documents.", "listed 0 documents", nil
	}
	var b strings.Builder
	for _, d := range docs {
		saw(ctx, d.Visibility)
		b.WriteString(docLine(d) + "\n")
	}
	return fmt.Sprintf("%d documents:\n%s\n%s\n%s", len(docs), BeginData, strings.TrimSpace(b.String()), EndData), fmt.Sprintf("listed %d documents", len(docs)), nil
}

// docLine is one listed document with its identifying fields.
func docLine(d kb.DocumentSummary) string {
	line := d.String()
	var id string
	if d.DocType == kb.DocPaper || d.DocType == kb.DocDigest {
		id = identity(kb.Metadata{DocType: d.DocType, Authors: d.Authors, DOI: d.DOI, Source: d.Source})
	} else {
		id = identity(kb.Metadata{Category: d.Category, Status: d.Status, Entity: d.Entity})
	}
	if id != "" {
		line += " — " + id
	}
	return line
}

// LocalPath is where a listed document's file is (a vault note's under
// vaultRoot), or "" when it has none.
func LocalPath(vaultRoot string, d kb.DocumentSummary) string {
	switch {
	case d.FilePath == "":
		return ""
	case filepath.IsAbs(d.FilePath):
		return d.FilePath
	case d.Source == kb.SourceVault && vaultRoot != "":
		return filepath.Join(vaultRoot, filepath.FromSlash(d.FilePath))
	}
	return d.FilePath
}

// stats counts what the session may see: for a cloud session public
// chunks only, so no private record type or status is named.
func (k *KB) stats(ctx context.Context, s *Session, _ map[string]any) (string, string, error) {
	cloud := cloudSession(s)
	c, err := k.Store.CountWhere(ctx, scope(kb.Filter{}, cloud))
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	if cloud {
		fmt.Fprintf(&b, "%d documents, %d chunks (public material only).\n", c.Documents, c.Chunks)
	} else {
		fmt.Fprintf(&b, "%d documents, %d chunks (%d private).\n", c.Documents, c.Chunks, c.Private)
		if c.Private > 0 {
			saw(ctx, kb.Private)
		}
	}
	for _, part := range []struct {
		title string
		m     map[string]int
	}{{"By type", c.ByType}, {"Record types", c.Records}, {"Statuses", c.Statuses}} {
		if len(part.m) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s:", part.title)
		for _, key := range slices.Sorted(maps.Keys(part.m)) {
			fmt.Fprintf(&b, " %s=%d", key, part.m[key])
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String()), "knowledge base stats", nil
}

func (k *KB) readFile(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	rel := filepath.ToSlash(strings.TrimSpace(str(args, "path")))
	text, vis, err := k.readNote(ctx, "read_file", rel, cloudSession(s))
	if err != nil {
		return "", "", err
	}
	l := LedgerFrom(ctx)
	saw(ctx, vis)
	l.Add(Citation{Source: rel, FilePath: rel, Title: strings.TrimSuffix(filepath.Base(rel), ".md")})
	return fmt.Sprintf("%s [source: %s]\n%s\n%s\n%s", rel, rel, BeginData, text, EndData), "read " + rel, nil
}

// readNote reads a vault note by vault-relative path. For a cloud session a
// private note — by folder, or through a link into one — gets the answer a
// missing note gets, before the file is touched.
func (k *KB) readNote(ctx context.Context, op, rel string, cloud bool) (string, string, error) {
	if k.VaultRoot == "" {
		return "", "", errs.New(errs.NotFound, op, "no vault is configured")
	}
	if rel == "" || filepath.IsAbs(rel) || strings.HasPrefix(filepath.Clean(rel), "..") || !strings.EqualFold(filepath.Ext(rel), ".md") {
		return "", "", errs.WithHint(errs.New(errs.Invalid, op, "refused path %q", rel), "give a vault-relative path to a .md note, as search results cite it")
	}
	noNote := errs.WithHint(errs.New(errs.NotFound, op, "no note %q", rel), "check the path with list_documents kind=notes")
	abs := filepath.Join(k.VaultRoot, filepath.FromSlash(rel))
	// Visibility is private for a missing path and for one resolving
	// outside the vault (fail closed), so a cloud session sees those three
	// cases alike.
	vis := vault.Visibility(k.VaultRoot, abs, k.PrivateDirs)
	if vis == kb.Private && cloud {
		if st, err := os.Stat(abs); err == nil && st.Mode().IsRegular() {
			LedgerFrom(ctx).AddWithheld(1)
		}
		return "", "", noNote
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", noNote
	}
	if _, inside := vault.Locate(k.VaultRoot, real); !inside {
		return "", "", errs.New(errs.Invalid, op, "refused path %q: it resolves outside the vault", rel)
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return "", "", noNote
	}
	if st.Size() > maxReadFile {
		return "", "", errs.WithHint(errs.New(errs.Invalid, op, "%s is %d KiB, over the %d KiB limit", rel, st.Size()>>10, maxReadFile>>10), "use get_document to page through it")
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return "", "", noNote
	}
	return string(data), vis, nil
}

func (k *KB) updateMeta(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	const op = "update_document_metadata"
	source := strings.TrimSpace(str(args, "source"))
	title, authors, doi := str(args, "title"), str(args, "authors"), str(args, "doi")
	if title == "" && authors == "" && doi == "" {
		return "", "", errs.New(errs.Invalid, op, "give at least one of title, authors, doi")
	}
	cloud := cloudSession(s)
	paper := kb.Filter{Source: source, DocTypes: []string{kb.DocPaper}}
	docs, err := k.Store.List(ctx, scope(paper, cloud), 1)
	if err != nil {
		return "", "", err
	}
	if len(docs) == 0 {
		return "", "", k.notFound(ctx, cloud, paper, errs.WithHint(errs.New(errs.NotFound, op, "no paper with source %q", source), "use list_documents kind=papers to find the exact source"))
	}
	saw(ctx, docs[0].Visibility)
	if err := noWriteDown(ctx, s, op, docs[0].Visibility); err != nil {
		return "", "", err
	}
	n, err := k.Store.SetPaperMeta(ctx, source, title, authors, doi)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("Updated %d chunks of %s.", n, source), "updated metadata of " + source, nil
}

func (k *KB) remove(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	const op = "remove_document"
	source := strings.TrimSpace(str(args, "source"))
	if source == "" {
		return "", "", errs.New(errs.Invalid, op, "source is empty")
	}
	f := DocFilter(source)
	cloud := cloudSession(s)
	docs, err := k.Store.List(ctx, scope(f, cloud), 5)
	if err != nil {
		return "", "", err
	}
	if len(docs) == 0 {
		return "", "", k.notFound(ctx, cloud, f, errs.WithHint(errs.New(errs.NotFound, op, "no document %q", source), "use list_documents to find the exact source"))
	}
	saw(ctx, docs[0].Visibility)
	if k.Confirm == nil {
		return "", "", errs.New(errs.Internal, op, "no confirmation channel; removal is disabled")
	}
	d := docs[0]
	title := d.Title
	if title == "" {
		title = d.Key
	}
	src := d.Source
	if src == kb.SourceVault {
		src = "vault note " + d.Key
	}
	preview := fmt.Sprintf("Remove %q from the knowledge base? Type: %s. Source: %s. %d chunks.\n%s",
		title, d.DocType, src, d.Chunks, RemoveLine(LocalPath(k.VaultRoot, d)))
	yes, err := k.Confirm.Ask(ctx, preview, map[string]any{"action": "remove_document", "source": source, "chunks": docs[0].Chunks})
	if err != nil {
		return "", "", err
	}
	if !yes {
		return "The user declined; nothing was removed.", "removal declined", nil
	}
	del := kb.Filter{Source: source}
	if f.FilePath != "" {
		del = kb.Filter{FilePath: f.FilePath}
	}
	n, err := k.Store.DeleteWhere(ctx, del)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("Removed %d chunks of %s from the knowledge base. The file itself, if any, is untouched.", n, source), fmt.Sprintf("removed %s", source), nil
}
