package chat

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// Retrieved-data markers: everything between them is material, never
// instructions (the system prompt says so).
const (
	BeginData = "BEGIN RETRIEVED DATA"
	EndData   = "END RETRIEVED DATA"
)

// DocPageSize is how many chunks get_document returns per page.
const DocPageSize = kbtools.DocPageSize

// KB is what the knowledge-base tools need: the shared operations, plus
// the chat-only vault refresh and confirmation channel.
type KB struct {
	kbtools.KB
	Refresh func(ctx context.Context) (vault.Result, error) // nil: index_vault unavailable
	Confirm *Confirmations
}

// kbCaller is the session as the operations see it: cloud or local, private
// so far or not, with the turn's ledger.
func kbCaller(ctx context.Context, s *Session) kbtools.Caller {
	return kbtools.Caller{Cloud: cloudSession(s), Private: privateCaller(ctx, s), Who: "chat", Ledger: LedgerFrom(ctx)}
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

// renderChunks wraps chunks in the retrieved-data markers, each with its
// citation label and identifying fields. Each chunk's block is offered to
// the turn's ledger as a passage, for ask-before-sending.
func renderChunks(l *Ledger, header string, chunks []kb.Chunk) string {
	var b strings.Builder
	b.WriteString(header + "\n" + BeginData + "\n")
	for i, c := range chunks {
		var p strings.Builder
		m := c.Meta
		fmt.Fprintf(&p, "--- %d. %s %s", i+1, kbtools.CiteLabel(m), m.Title)
		if m.Section != "" {
			fmt.Fprintf(&p, " — %s", m.Section)
		}
		if m.AnnotationKind != "" {
			fmt.Fprintf(&p, " (%s)", m.AnnotationKind)
		}
		if id := kbtools.Identity(m); id != "" {
			p.WriteString("\n" + id)
		}
		p.WriteString("\n" + c.Content + "\n")
		title := m.Title
		if m.Section != "" {
			title += " — " + m.Section
		}
		l.offer(Passage{Title: title, Source: kbtools.CiteName(m), Text: p.String()})
		l.carry(ledger.Source{Key: kbtools.CiteName(m), Title: m.Title})
		b.WriteString(p.String())
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
		"query_records": {Def: llm.Tool{Name: "query_records", Description: "List records (notes with frontmatter: meetings, applications, contacts…) by their fields and their date, in date order: " +
			"e.g. job applications since March, newest first, or every meeting with an entity. Each line has the record's date.",
			Parameters: schema(nil, withFilters(map[string]string{"from": "earliest record date, YYYY-MM-DD or YYYY-MM (inclusive)", "to": "latest record date, YYYY-MM-DD or YYYY-MM (inclusive)",
				"sort": "date_desc (default, newest first), date_asc, changed or added", "limit": "at most this many records (default 50)",
				"field": "a frontmatter field (e.g. deadline) that from, to and the date sorts apply to instead of the record's date; its dates compare as days however the notes wrote them"}))},
			Run: k.queryRecords},
		"timeline": {Def: llm.Tool{Name: "timeline", Description: "Everything about one person, lab, project or journal in date order, oldest first: the records filed under it " +
			"(their entity field) and every note, paper or past chat that names it, each with its date and citation label. An entity with a note of its own is also found by that note's aliases.",
			Parameters: schema([]string{"entity"}, map[string]string{"entity": "the name as the notes write it, e.g. Tanaka", "limit": "at most this many items (default 50)"})},
			Run: k.timeline},
		"kb_stats": {Def: llm.Tool{Name: "kb_stats", Description: "Counts by document type, record type and status, and the Zotero collections and item types in use.", Parameters: schema(nil, map[string]string{})},
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
	"fields":   "x_<key>=value pairs for other frontmatter fields, comma-separated; x_<key>~text (or entity~text) keeps those whose field contains the text",
	// Zotero items (papers) carry these; kb_stats lists the values in use.
	"collection": "a Zotero collection path, e.g. Thesis/Chapter 2: items filed in it or in a collection under it",
	"year":       "a paper's year or range: 2021, 2019-2021, 2019-, -2021",
	"item_type":  "Zotero item type, e.g. journalArticle, book, preprint, conferencePaper",
}

// withFilters adds filterParams to a tool's own parameters.
func withFilters(props map[string]string) map[string]string {
	maps.Copy(props, filterParams)
	return props
}

// filterArgs decodes the filter parameters.
func filterArgs(args map[string]any) (kbtools.FilterArgs, error) {
	a := kbtools.FilterArgs{Kind: str(args, "kind"), Category: str(args, "category"), Status: str(args, "status"), Entity: str(args, "entity"),
		Tags: strings.Split(str(args, "tags"), ","), Collection: str(args, "collection"), Year: str(args, "year"), ItemType: str(args, "item_type")}
	for _, pair := range strings.Split(str(args, "fields"), ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		if key, value, ok := strings.Cut(pair, "~"); ok && !strings.Contains(key, "=") {
			if a.Contains == nil {
				a.Contains = map[string]string{}
			}
			a.Contains[key] = value
			continue
		}
		key, value, ok := strings.Cut(pair, "=")
		if !ok {
			return a, errs.WithHint(errs.New(errs.Invalid, "search_kb", "bad field filter %q", pair), "write fields as x_<key>=value, or x_<key>~text for a field that contains the text; kb_stats lists what exists")
		}
		if a.Fields == nil {
			a.Fields = map[string]string{}
		}
		a.Fields[key] = value
	}
	return a, nil
}

func filter(op string, args map[string]any) (kb.Filter, error) {
	a, err := filterArgs(args)
	if err != nil {
		return kb.Filter{}, err
	}
	return a.Filter(op)
}

func (k *KB) updatePath(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	source, newPath := strings.TrimSpace(str(args, "source")), strings.TrimSpace(str(args, "new_path"))
	n, err := k.MoveFile(ctx, kbCaller(ctx, s), source, newPath)
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
	f, err := filter("search_kb", args)
	if err != nil {
		return "", "", err
	}
	found, err := k.Search(ctx, kbCaller(ctx, s), kbtools.SearchArgs{Query: q, N: intArg(args, "n", k.NResults), Filter: f})
	if err != nil {
		return "", "", err
	}
	note := searchModeNote(found.Mode)
	if len(found.Chunks) == 0 {
		return withCaveat("No matches in the knowledge base for: "+q+"\n"+note, s), "search: no matches", nil
	}
	text := renderChunks(LedgerFrom(ctx), fmt.Sprintf("%d results for %q (%s):", len(found.Chunks), q, note), found.Chunks)
	return withCaveat(text, s), fmt.Sprintf("searched %q: %d results", q, len(found.Chunks)), nil
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

func (k *KB) getDocument(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	source := strings.TrimSpace(str(args, "source"))
	if source == "" {
		return "", "", errs.New(errs.Invalid, "get_document", "source is empty")
	}
	p, err := k.GetDocument(ctx, kbCaller(ctx, s), source, intArg(args, "page", 1))
	if err != nil {
		return "", "", err
	}
	header := fmt.Sprintf("%s — page %d of %d (%d chunks in all):", p.Title, p.Page, p.Pages, p.Total)
	return renderChunks(LedgerFrom(ctx), header, p.Chunks), fmt.Sprintf("read %s (page %d/%d)", source, p.Page, p.Pages), nil
}

func (k *KB) listDocuments(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	f, err := filter("list_documents", args)
	if err != nil {
		return "", "", err
	}
	docs, err := k.ListDocuments(ctx, kbCaller(ctx, s), f, kbtools.MaxListed)
	if err != nil {
		return "", "", err
	}
	if len(docs) == 0 {
		return "The knowledge base has no matching documents.", "listed 0 documents", nil
	}
	return renderListing(LedgerFrom(ctx), docs, "documents", kbtools.SummaryLine), fmt.Sprintf("listed %d documents", len(docs)), nil
}

// renderListing is a tool result listing documents, one line each, fenced
// as data.
func renderListing(l *Ledger, docs []kb.DocumentSummary, what string, line func(kb.DocumentSummary) string) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(line(d) + "\n")
		l.carry(ledger.Source{Key: kbtools.SummaryCiteName(d), Title: d.Title})
	}
	return fmt.Sprintf("%d %s:\n%s\n%s\n%s", len(docs), what, BeginData, strings.TrimSpace(b.String()), EndData)
}

// queryRecords lists records by field and date range in date order, with
// the same query the MCP server's query_records runs.
func (k *KB) queryRecords(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	a, err := filterArgs(args)
	if err != nil {
		return "", "", err
	}
	a, o := kbtools.RecordDefaults(a, kb.ListOptions{Limit: intArg(args, "limit", 50), Sort: strings.TrimSpace(str(args, "sort")),
		DateFrom: strings.TrimSpace(str(args, "from")), DateTo: strings.TrimSpace(str(args, "to")), Field: kbtools.FieldKey(str(args, "field"))})
	f, err := a.Filter("query_records")
	if err != nil {
		return "", "", err
	}
	docs, err := k.Query(ctx, kbCaller(ctx, s), f, o)
	if err != nil {
		return "", "", err
	}
	if len(docs) == 0 {
		return "No records match.", "found 0 records", nil
	}
	return renderListing(LedgerFrom(ctx), docs, "records", kbtools.RecordLine), fmt.Sprintf("found %d records", len(docs)), nil
}

func (k *KB) timeline(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	entity := strings.TrimSpace(str(args, "entity"))
	items, err := k.Timeline(ctx, kbCaller(ctx, s), entity, intArg(args, "limit", 50))
	if err != nil {
		return "", "", err
	}
	if len(items) == 0 {
		return fmt.Sprintf("Nothing in the knowledge base is filed under or names %q.", entity), "timeline: nothing", nil
	}
	var b strings.Builder
	for _, it := range items {
		date := cmp.Or(it.Date, "(no date)")
		fmt.Fprintf(&b, "%s  [source: %s] %s", date, it.Citation.Source, cmp.Or(it.Doc.Title, it.Doc.Key))
		if it.Record {
			fmt.Fprintf(&b, " — record: %s\n", kbtools.SummaryIdentity(it.Doc))
			continue
		}
		fmt.Fprintf(&b, " (%s) — names it: %s\n", it.Doc.DocType, it.Excerpt)
	}
	return fmt.Sprintf("Timeline of %s, %d items, oldest first:\n%s\n%s\n%s", entity, len(items), BeginData, strings.TrimSpace(b.String()), EndData),
		fmt.Sprintf("timeline of %s: %d items", entity, len(items)), nil
}

func (k *KB) stats(ctx context.Context, s *Session, _ map[string]any) (string, string, error) {
	c := kbCaller(ctx, s)
	counts, err := k.Stats(ctx, c)
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	if c.Cloud {
		fmt.Fprintf(&b, "%d documents, %d chunks (public material only).\n", counts.Documents, counts.Chunks)
	} else {
		fmt.Fprintf(&b, "%d documents, %d chunks (%d private).\n", counts.Documents, counts.Chunks, counts.Private)
	}
	for _, part := range []struct {
		title string
		m     map[string]int
	}{{"By type", counts.ByType}, {"Record types", counts.Records}, {"Statuses", counts.Statuses},
		{"Zotero collections (items)", counts.Collections}, {"Zotero item types (items)", counts.ItemTypes}} {
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
	n, err := k.ReadFile(ctx, kbCaller(ctx, s), str(args, "path"))
	if err != nil {
		return "", "", err
	}
	LedgerFrom(ctx).offer(Passage{Title: n.Path, Source: n.Path, Text: n.Text})
	LedgerFrom(ctx).carry(ledger.Source{Key: n.Path, Title: n.Path})
	return fmt.Sprintf("%s [source: %s]\n%s\n%s\n%s", n.Path, n.Path, BeginData, n.Text, EndData), "read " + n.Path, nil
}

func (k *KB) updateMeta(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	source := strings.TrimSpace(str(args, "source"))
	n, err := k.UpdatePaperMeta(ctx, kbCaller(ctx, s), kbtools.PaperMeta{Source: source, Title: str(args, "title"), Authors: str(args, "authors"), DOI: str(args, "doi")})
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("Updated %d chunks of %s.", n, source), "updated metadata of " + source, nil
}

func (k *KB) remove(ctx context.Context, s *Session, args map[string]any) (string, string, error) {
	const op = "remove_document"
	r, err := k.PrepareRemove(ctx, kbCaller(ctx, s), str(args, "source"))
	if err != nil {
		return "", "", err
	}
	if k.Confirm == nil {
		return "", "", errs.New(errs.Internal, op, "no confirmation channel; removal is disabled")
	}
	yes, err := k.Confirm.Ask(ctx, r.Preview, map[string]any{"action": "remove_document", "source": r.Ref, "chunks": r.Doc.Chunks})
	if err != nil {
		return "", "", err
	}
	if !yes {
		return "The user declined; nothing was removed.", "removal declined", nil
	}
	n, err := k.Remove(ctx, r)
	if err != nil {
		return "", "", err
	}
	return fmt.Sprintf("Removed %d chunks of %s from the knowledge base. The file itself, if any, is untouched.", n, r.Ref), fmt.Sprintf("removed %s", r.Ref), nil
}
