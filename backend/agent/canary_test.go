package agent_test

// The permanent adversarial privacy suite. Canary words are planted in
// every kind of private material (note body, file name, title, frontmatter
// keys and values, tags, x_ fields, a highlight note in a PDF under a
// private folder, a private draft's title, file name and body, and private
// chat history). Every registered tool is then driven, by the real agent
// and the real provider clients, with arguments aimed at each placement,
// in three session states. Each run happens twice: in a world with the
// private material and in one without it.
//
// What a cloud provider receives — every request body — must hold no
// canary (apart from the model's own arguments echoed back) and must be
// byte-identical in both worlds: a cloud model can then learn nothing of
// private content, not even that it exists.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// Canaries, one per placement. Each is a single word so search can find it.
const (
	cBody      = "cnrybody"
	cFileName  = "cnryfilename" // private/<cFileName>.md: file name and title
	cTitle     = "cnrytitle"    // a frontmatter title: stored as x_title
	cCategory  = "cnrycategory"
	cStatus    = "cnrystatus"
	cEntity    = "cnryentity"
	cTag       = "cnrytag"
	cKey       = "cnryfmkey" // an unknown frontmatter key: the x_cnryfmkey field
	cValue     = "cnryfmvalue"
	cNestedKey = "cnrynestedkey" // a nested value: a warning names the key
	cExtName   = "cnryextname"   // a standalone note added as private
	cExtBody   = "cnryextbody"
	cDraftT    = "cnrydrafttitle"
	cDraftF    = "cnrydraftfile"
	cDraftB    = "cnrydraftbody"
	cChat      = "cnrychatline"
	// A Zotero item filed under the private collection "Confidential".
	cZTitle     = "cnryzoterotitle"
	cZAbstract  = "cnryzoteroabstract"
	cZHighlight = "cnryzoterohighlight" // an annotation's text in Zotero's database
	cZComment   = "cnryzoterocomment"   // its comment
	cZNote      = "cnryzoteronote"      // a child note
	cZTag       = "cnryzoterotag"
	cZColl      = "cnryzoterocoll" // a collection under Confidential
	cZAuthor    = "cnryzoteroauthor"
)

// The Zotero item of the private collection, and its PDF's path under the
// data directory (in the world without it, neither exists).
const (
	privZoteroKey    = "PRIVZOT1"
	privZoteroSource = "zotero://select/library/items/" + privZoteroKey
	privZoteroPDF    = "{ROOT}/zotero/storage/PRIVATT1/scan.pdf"
)

// cHighlight replaces a typed note in the annotated PDF fixture: same byte
// length, so the PDF's cross-reference offsets still hold.
var (
	pdfNote    = []byte(`check\040the\040proof\040of\040lemma\0402`)
	cHighlight = "cnryhighlight" + strings.Repeat("q", len(pdfNote)-len("cnryhighlight"))
	canaries   = []string{cBody, cFileName, cTitle, cCategory, cStatus, cEntity, cTag, cKey, cValue, cNestedKey, cExtName, cExtBody,
		cDraftT, cDraftF, cDraftB, cChat, cHighlight, cZTitle, cZAbstract, cZHighlight, cZComment, cZNote, cZTag, cZColl, cZAuthor}
)

var publicNotes = map[string]string{
	"garden/tomatoes.md": "# Tomatoes\n\nTomato plants need full sun and deep watering on the allotment.\n",
	"garden/roses.md":    "# Roses\n\nPrune roses in winter.\n",
	"jobs/acme.md":       "---\ntype: job_application\nstatus: applied\nentity: Acme\ntags: [remote]\nsalary: 100\n---\n# Acme\n\nInterview at Acme about the allotment robot.\n",
	"garden/broken.md":   "---\ntitle: [unclosed\n---\nStill indexed: allotment paths.\n",
}

var privateNotes = map[string]string{
	"private/journal.md": "---\ntitle: " + cTitle + "\ntype: " + cCategory + "\nstatus: " + cStatus + "\nentity: " + cEntity + "\ntags: [" + cTag + "]\n" +
		cKey + ": " + cValue + "\n" + cNestedKey + ":\n  a: 1\n---\n# Journal\n\nTomato allotment notes: " + cBody + ".\n",
	"private/" + cFileName + ".md": "# Plans\n\nGrant plans for the allotment.\n",
}

// zoteroPublicText is the abstract of the public Zotero item both worlds hold.
const zoteroPublicText = "Allotment soil survey of tomato beds."

const extBody = "# Ledger\n\nAllotment ledger " + cExtBody + ".\n"

// fixedNow keeps draft timestamps equal across worlds.
var fixedNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// models writes the fixture embedder and reranker once, with a vocabulary
// covering both worlds, so both embed alike.
func models(t *testing.T) (string, string) {
	t.Helper()
	texts := []string{extBody, "what about " + cChat, "the allotment " + cChat, "how do i water tomatoes deeply on the allotment", "beds and paths",
		"tomato draft " + cDraftB, cHighlight, strings.Join(canaries, " "), "sparse attention accuracy validation sweep window tokens", zoteroPublicText}
	for _, m := range []map[string]string{publicNotes, privateNotes} {
		for _, text := range m {
			texts = append(texts, text)
		}
	}
	dir := t.TempDir()
	words := embedtest.Words(texts...)
	emb, rr := filepath.Join(dir, "bow"), filepath.Join(dir, "rr")
	if err := embedtest.WriteEmbedder(emb, words); err != nil {
		t.Fatal(err)
	}
	if err := embedtest.WriteReranker(rr, words); err != nil {
		t.Fatal(err)
	}
	return emb, rr
}

// world is one data dir with its agent and fake models.
type world struct {
	t       *testing.T
	root    string // resolved; home, vault and the outside files live under it
	cfg     *config.Config
	ag      *agent.Agent
	cloud   *fakeCloud
	local   *fakeOllama
	private bool
	ids     map[string]string // placeholders in probe arguments
	// ledgerSeen counts the cloud ledger records already checked.
	ledgerSeen int
}

// checkLedger holds the cloud ledger to the wire: one record per request
// since the last check, each body exactly what was sent, and no canary in
// any body, source or error the user will be shown.
func (w *world) checkLedger(what string, bodies [][]byte, own call) {
	w.t.Helper()
	book, err := ledger.Shared(w.cfg.LedgerDir(), w.cfg.Ledger.KeepDays)
	if err != nil {
		w.t.Fatal(err)
	}
	all, err := book.List(context.Background(), ledger.Filter{CloudOnly: true})
	if err != nil {
		w.t.Fatal(err)
	}
	rs := slices.Clone(all[:len(all)-w.ledgerSeen])
	slices.Reverse(rs)
	w.ledgerSeen = len(all)
	if len(rs) != len(bodies) {
		w.t.Errorf("%s: %d cloud requests, %d ledger records", what, len(bodies), len(rs))
		return
	}
	var text [][]byte
	for i, r := range rs {
		if r.Body != string(bodies[i]) || r.Outcome != ledger.OK || r.Provider != "anthropic" {
			w.t.Errorf("%s: record %d does not show what was sent (%s, %s):\n%s", what, i, r.Provider, r.Outcome, firstDiff(r.Body, string(bodies[i])))
		}
		text = append(text, []byte(r.Body), []byte(r.Error))
		for _, src := range r.Sources {
			text = append(text, []byte(src.Key), []byte(src.Title))
		}
	}
	if l := leaks(text, own); len(l) > 0 {
		w.t.Errorf("%s: the cloud ledger shows canaries %v", what, l)
	}
}

const (
	cloudSpec = "anthropic:claude-test"
	localSpec = "ollama:local:test"
	apiKey    = "sk-ant-api03-canary-suite-key-0123456789"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newWorld(t *testing.T, private bool, emb, rr string) *world {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	w := &world{t: t, root: root, private: private, cloud: &fakeCloud{}, local: &fakeOllama{}, ids: map[string]string{}}
	cloudSrv, localSrv := httptest.NewServer(w.cloud), httptest.NewServer(w.local)
	t.Cleanup(cloudSrv.Close)
	t.Cleanup(localSrv.Close)

	t.Setenv("JARVIS_HOME", filepath.Join(root, "home"))
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
	vault := filepath.Join(root, "vault")
	cfg.Vault.Path, cfg.Vault.PrivateDirs = vault, []string{"private"}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = emb, rr
	cfg.Chat.OllamaURL, cfg.Anthropic.BaseURL, cfg.Anthropic.APIKey = localSrv.URL, cloudSrv.URL, apiKey
	cfg.Chat.CompactAfterTokens = 0
	w.cfg = cfg

	for rel, text := range publicNotes {
		write(t, filepath.Join(vault, rel), text)
	}
	write(t, filepath.Join(root, "elsewhere", "public-ext.md"), "# Public ext\n\nBeds and paths.\n")
	pdf, err := os.ReadFile("../pdf/testdata/annotated.pdf")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "paper.pdf"), string(pdf))
	// Links that reach private material from public places; in the world
	// without it they dangle.
	os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755)
	os.Symlink(filepath.Join(vault, "private", "journal.md"), filepath.Join(vault, "garden", "journal-link.md"))
	os.Symlink(filepath.Join(vault, "private", "scan.pdf"), filepath.Join(root, "elsewhere", "scan-link.pdf"))
	// The PDF inbox holds a public paper and a link into the private folder.
	inbox := filepath.Join(root, "inbox")
	write(t, filepath.Join(inbox, "public-paper.pdf"), string(pdf))
	os.Symlink(filepath.Join(vault, "private", "scan.pdf"), filepath.Join(inbox, cFileName+".pdf"))
	cfg.Sync.PDFWatchDir = inbox
	if private {
		for rel, text := range privateNotes {
			write(t, filepath.Join(vault, rel), text)
		}
		if !bytes.Contains(pdf, pdfNote) {
			t.Fatal("the PDF fixture changed: its typed note is gone")
		}
		write(t, filepath.Join(vault, "private", "scan.pdf"), string(bytes.Replace(pdf, pdfNote, []byte(cHighlight), 1)))
		write(t, filepath.Join(root, "elsewhere", cExtName+".md"), extBody)
	}

	cfg.Zotero.DataDir, cfg.Zotero.PrivateCollections = filepath.Join(root, "zotero"), []string{"Confidential"}
	zoteroLibrary(t, root, private, pdf)

	ag, err := agent.New(cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if ag.EngineErr != nil {
		t.Fatal(ag.EngineErr)
	}
	t.Cleanup(func() { ag.Close() })
	// Drafts are listed newest first: a clock that ticks per use orders
	// them the same way in both worlds.
	var clock sync.Mutex
	tick := fixedNow
	ag.Drafts.Now = func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		tick = tick.Add(time.Millisecond)
		return tick
	}
	w.ag = ag
	ctx := context.Background()
	if _, err := ag.Engine.Refresher().Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	zs, err := ag.Engine.ZoteroSync()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zs.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	adder := ag.Engine.Adder(nil)
	for _, req := range []ingest.AddRequest{
		{Path: filepath.Join(root, "elsewhere", "public-ext.md")},
		{Path: filepath.Join(root, "paper.pdf"), Paper: ingest.Paper{Mode: ingest.FullText}},
	} {
		if _, err := adder.Add(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	w.ids["{PUBPAPER}"] = "file://" + filepath.Join(root, "paper.pdf")
	pub, err := ag.Drafts.Create("Garden plan", "main.md", "Beds and paths on the allotment.\n", drafts.Public, "")
	if err != nil {
		t.Fatal(err)
	}
	w.ids["{PUBDRAFT}"] = pub.ID
	w.exchange(false, "How do I water tomatoes?", "Deeply, on the allotment.")
	w.ids["{PRIVDRAFT}"], w.ids["{PRIVCHAT}"] = "draft-000000000000", "chat:20260101-000000-000000000000"
	if private {
		if _, err := adder.Add(ctx, ingest.AddRequest{Path: filepath.Join(root, "elsewhere", cExtName+".md"), Private: true}); err != nil {
			t.Fatal(err)
		}
		d, err := ag.Drafts.Create(cDraftT, cDraftF+".md", "Tomato draft "+cDraftB+".\n", drafts.Private, "")
		if err != nil {
			t.Fatal(err)
		}
		w.ids["{PRIVDRAFT}"] = d.ID
		w.ids["{PRIVCHAT}"] = chat.ChatSource(w.exchange(true, "What about "+cChat+"?", "The allotment "+cChat+"."))
	}
	return w
}

// zoteroLibrary writes the Zotero data directory: a public item filed under
// Garden in both worlds and, in the world with private material, an item
// under Confidential/<canary> with canaries in every field Jarvis reads
// and a PDF whose in-file note is the highlight canary.
func zoteroLibrary(t *testing.T, root string, private bool, pdf []byte) {
	t.Helper()
	lib := zoterotest.New(t, filepath.Join(root, "zotero"))
	defer lib.Close()
	lib.AddItem(zotero.Item{Key: "PUBZOT12", Type: "journalArticle", Title: "Allotment soil survey",
		Fields:      map[string]string{"title": "Allotment soil survey", "date": "2020", "abstractNote": zoteroPublicText},
		Creators:    []zotero.Creator{{First: "Ann", Last: "Gardener", Type: "author"}},
		Tags:        []string{"soil"},
		Collections: []string{"Garden"},
	})
	if !private {
		return
	}
	scan := filepath.Join(t.TempDir(), "scan.pdf")
	write(t, scan, string(bytes.Replace(pdf, pdfNote, []byte(cHighlight), 1)))
	lib.AddItem(zotero.Item{Key: privZoteroKey, Type: "journalArticle", Title: cZTitle + " allotment",
		Fields:      map[string]string{"title": cZTitle + " allotment", "date": "2021", "abstractNote": "Allotment tomato " + cZAbstract + "."},
		Creators:    []zotero.Creator{{First: "Bo", Last: cZAuthor, Type: "author"}},
		Tags:        []string{cZTag},
		Collections: []string{"Confidential/" + cZColl},
		Attachments: []zotero.Attachment{{Key: "PRIVATT1", ContentType: "application/pdf", LinkMode: zotero.ImportedFile, Path: scan,
			Annotations: []zotero.Annotation{{Key: "PRIVANN1", Type: zotero.Highlight, Text: "allotment " + cZHighlight, Comment: cZComment,
				PageIndex: 0, PageLabel: "1", Rects: [][4]float64{{72, 700, 300, 712}}, SortIndex: "00000|000100|00080"}}}},
		Notes: []zotero.ChildNote{{Key: "PRIVNOT1", HTML: "<p>Allotment " + cZNote + ".</p>"}},
	})
}

// exchange stores one finished conversation, indexed like a real turn's.
func (w *world) exchange(private bool, question, answer string) string {
	s := w.ag.Sessions.New(llm.ParseSpec(localSpec), false)
	s.Private = private
	s.Messages = []llm.Message{llm.Text(llm.RoleUser, question), llm.Text(llm.RoleAssistant, answer)}
	s.TurnStarts = []int{0}
	s.Display = []chat.DisplayItem{{Role: "user", Text: question, At: fixedNow}, {Role: "assistant", Text: answer, At: fixedNow}}
	if err := w.ag.Runner.History.Index(context.Background(), s); err != nil {
		w.t.Fatal(err)
	}
	if err := w.ag.Sessions.Save(s); err != nil {
		w.t.Fatal(err)
	}
	return s.ID
}

// expand fills a probe's placeholders for this world.
func (w *world) expand(p call) call {
	args := map[string]any{}
	for k, v := range p.Args {
		if s, ok := v.(string); ok {
			s = strings.ReplaceAll(s, "{ROOT}", w.root)
			for ph, id := range w.ids {
				s = strings.ReplaceAll(s, ph, id)
			}
			v = s
		}
		args[k] = v
	}
	return call{Tool: p.Tool, Args: args}
}

// turn runs one turn; a confirmation (remove_document) is declined.
func (w *world) turn(s *chat.Session) error {
	var failed error
	message := "probe"
	if w.cloud.planned() == "remember" || w.local.planned() == "remember" {
		message = "probe: remember this" // a save needs the user to have asked
	}
	done, err := w.ag.Runner.Start(context.Background(), s, message, func(e chat.Event) {
		switch e.Kind {
		case chat.EventConfirm:
			token, _ := e.Data.(map[string]any)["token"].(string)
			if err := w.ag.Confirm.Answer(token, false); err != nil {
				failed = err
			}
		}
	})
	if err != nil {
		return err
	}
	<-done
	return failed
}

var (
	sessionIDs = regexp.MustCompile(`\d{8}-\d{6}-[0-9a-f]{12}`)
	draftIDs   = regexp.MustCompile(`draft-[0-9a-f]{12}`)
	callIDs    = regexp.MustCompile(`call_[0-9a-f]{8}_\d+`) // the Ollama client's random tool-call ids
)

// normal makes bodies of two worlds comparable: their roots, session ids
// and draft ids differ by construction, and listings order entries added
// in the same second by those random ids.
func (w *world) normal(bodies [][]byte) string {
	var b strings.Builder
	for _, body := range bodies {
		s := strings.ReplaceAll(string(sortListings(body)), w.root, "{ROOT}")
		s = sessionIDs.ReplaceAllString(s, "{SESSION}")
		s = draftIDs.ReplaceAllString(s, "{DRAFT}")
		s = callIDs.ReplaceAllString(s, "{CALL}")
		b.WriteString(s + "\n")
	}
	return b.String()
}

// sortListings sorts the lines of every list_documents and query_records
// result in a request body.
func sortListings(body []byte) []byte {
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	msgs, _ := req["messages"].([]any)
	listings := map[any]bool{}
	for _, m := range msgs {
		blocks, _ := m.(map[string]any)["content"].([]any)
		for _, b := range blocks {
			c, _ := b.(map[string]any)
			if c["type"] == "tool_use" && (c["name"] == "list_documents" || c["name"] == "query_records") {
				listings[c["id"]] = true
			}
			if text, ok := c["content"].(string); ok && c["type"] == "tool_result" && listings[c["tool_use_id"]] {
				lines := strings.Split(text, "\n")
				slices.Sort(lines)
				c["content"] = strings.Join(lines, "\n")
			}
		}
	}
	out, _ := json.Marshal(req)
	return out
}

// leaks lists the canaries in bodies once the model's own arguments (which
// a tool may echo, like "no note X") are taken out.
func leaks(bodies [][]byte, own call) []string {
	text := strings.ToLower(string(bytes.Join(bodies, []byte("\n"))))
	var args []string
	for _, v := range own.Args {
		if s, ok := v.(string); ok && s != "" {
			b, _ := json.Marshal(s)
			args = append(args, strings.ToLower(strings.Trim(string(b), `"`)))
		}
	}
	slices.SortFunc(args, func(a, b string) int { return len(b) - len(a) })
	for _, a := range args {
		text = strings.ReplaceAll(text, a, "<ARG>")
	}
	var out []string
	for _, c := range canaries {
		if strings.Contains(text, c) {
			out = append(out, c)
		}
	}
	return out
}

// firstDiff shows where two normalised request streams part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-300, 0)
	return fmt.Sprintf("with private material: …%s…\nwithout it:            …%s…", a[from:min(i+300, len(a))], b[from:min(i+300, len(b))])
}

// matrix aims every tool at every placement it could reach. The keys must
// be exactly the registered tools (TestCanaryMatrixCoversEveryTool).
var matrix = map[string][]map[string]any{
	"search_kb": {
		{"query": cBody}, {"query": "tomato allotment"}, {"query": cFileName}, {"query": cTitle}, {"query": cValue},
		{"query": cHighlight}, {"query": cExtBody}, {"query": cDraftB}, {"query": cChat, "kind": "chat"}, {"query": "allotment", "kind": "notes"},
		{"query": "allotment", "category": cCategory}, {"query": "allotment", "status": cStatus}, {"query": "allotment", "entity": cEntity},
		{"query": "allotment", "tags": cTag}, {"query": "allotment", "fields": "x_" + cKey + "=" + cValue}, {"query": "allotment", "fields": "x_title=" + cTitle},
		{"query": cZTitle}, {"query": cZHighlight}, {"query": cZComment}, {"query": cZNote}, {"query": cZAbstract}, {"query": cZAuthor},
		{"query": "allotment", "kind": "papers"}, {"query": "allotment", "tags": cZTag}, {"query": "allotment", "fields": "x_collections=Confidential/" + cZColl},
		{"query": "allotment", "fields": "x_zotero_key=" + privZoteroKey},
	},
	"search_chat_history": {{"query": cChat}, {"query": "allotment"}},
	"get_document": {
		{"source": "private/journal.md"}, {"source": "private/" + cFileName + ".md"}, {"source": "garden/journal-link.md"},
		{"source": "{PRIVCHAT}"}, {"source": "file://{ROOT}/elsewhere/" + cExtName + ".md"}, {"source": "{ROOT}/elsewhere/" + cExtName + ".md"},
		{"source": "garden/tomatoes.md"}, {"source": "private/journal.md", "page": 2.0},
		{"source": privZoteroSource}, {"source": privZoteroSource, "page": 1.0}, {"source": privZoteroPDF}, {"source": "zotero://select/library/items/PUBZOT12"},
	},
	"list_documents": {{}, {"kind": "notes"}, {"kind": "chat"}, {"category": cCategory}, {"status": cStatus}, {"entity": cEntity},
		{"tags": cTag}, {"fields": "x_" + cKey + "=" + cValue}, {"kind": "papers"}, {"tags": cZTag}, {"fields": "x_collections=Confidential/" + cZColl}},
	"query_records": {{}, {"category": cCategory}, {"status": cStatus}, {"entity": cEntity}, {"tags": cTag}, {"fields": "x_" + cKey + "=" + cValue},
		{"from": "2000-01", "to": "2100-12"}, {"sort": "date_asc"}, {"sort": "changed"}, {"kind": "all", "limit": 500.0}},
	"timeline": {{"entity": cEntity}, {"entity": cBody}, {"entity": cTitle}, {"entity": cChat}, {"entity": cZTitle}, {"entity": cZHighlight},
		{"entity": cExtBody}, {"entity": "allotment"}, {"entity": cEntity, "limit": 500.0}},
	"kb_stats": {{}},
	"read_file": {
		{"path": "private/journal.md"}, {"path": "private/" + cFileName + ".md"}, {"path": "garden/journal-link.md"}, {"path": "garden/tomatoes.md"},
	},
	"update_file_path": {
		{"source": "file://{ROOT}/elsewhere/" + cExtName + ".md", "new_path": "{ROOT}/elsewhere/public-ext.md"},
		{"source": "file://{ROOT}/elsewhere/public-ext.md", "new_path": "{ROOT}/vault/private/journal.md"},
		{"source": "file://{ROOT}/elsewhere/public-ext.md", "new_path": "{ROOT}/vault/private/" + cFileName + ".md"},
	},
	"update_document_metadata": {
		{"source": "file://{ROOT}/elsewhere/" + cExtName + ".md", "title": "x"}, {"source": "{PUBPAPER}", "title": "Renamed paper"},
	},
	"remove_document":   {{"source": privZoteroSource}, {"source": "private/journal.md"}, {"source": "{PRIVCHAT}"}, {"source": "file://{ROOT}/elsewhere/" + cExtName + ".md"}, {"source": "garden/roses.md"}},
	"use_own_knowledge": {{"reason": "nothing on " + cBody}},
	"index_vault":       {{}},
	"inbox_status":      {{}},
	"remember":          {{"fact": "Answer in British English"}},
	"add_document": {
		{"source": "{ROOT}/vault/private/scan.pdf", "mode": "full_text"}, {"source": "{ROOT}/elsewhere/scan-link.pdf", "mode": "full_text"},
		{"source": "{ROOT}/paper.pdf", "mode": "full_text", "title": cFileName, "allow_duplicate": "false"},
		{"source": privZoteroPDF, "mode": "full_text"},
	},
	"create_draft": {{"title": "Probe", "filename": "probe.md", "content": "Probe text."}},
	"create_draft_from": {
		{"source": "private/journal.md", "filename": "copy.md"}, {"source": "{PRIVCHAT}", "filename": "copy.md"},
		{"source": "file://{ROOT}/elsewhere/" + cExtName + ".md", "filename": "copy.md"}, {"source": "private/" + cFileName + ".md", "filename": "copy.md"},
		{"source": "garden/tomatoes.md", "filename": "copy.md"}, {"source": privZoteroSource, "filename": "copy.md"},
	},
	"add_draft_file": {
		{"draft_id": "{PRIVDRAFT}", "filename": cDraftF + ".md", "content": "x"}, {"draft_id": "{PRIVDRAFT}", "filename": "new.md", "content": "x"},
	},
	"list_drafts": {{}},
	"read_draft":  {{"draft_id": "{PRIVDRAFT}"}, {"draft_id": "{PRIVDRAFT}", "filename": cDraftF + ".md"}, {"draft_id": "{PUBDRAFT}"}},
	"propose_draft_edit": {
		{"draft_id": "{PRIVDRAFT}", "new_text": "Tomato draft " + cDraftB + ".\n"}, {"draft_id": "{PRIVDRAFT}", "new_text": "other"},
	},
}

// probes lists the matrix in a fixed order (both worlds run the same
// sequence, and some probes change state).
func probes() []call {
	var out []call
	for _, tool := range slices.Sorted(func(yield func(string) bool) {
		for k := range matrix {
			if !yield(k) {
				return
			}
		}
	}) {
		for _, args := range matrix[tool] {
			out = append(out, call{Tool: tool, Args: args})
		}
	}
	return out
}

// beforeProbe changes private notes right before index_vault, in the
// world that has them: what changed among private notes must not show.
func (w *world) beforeProbe(p call) {
	if p.Tool != "index_vault" || !w.private {
		return
	}
	write(w.t, filepath.Join(w.cfg.Vault.Path, "private", "journal.md"), privateNotes["private/journal.md"]+"More "+cBody+".\n")
	write(w.t, filepath.Join(w.cfg.Vault.Path, "private", "new-"+cFileName+".md"), "---\n"+cNestedKey+":\n  b: 2\n---\nNew.\n")
	os.Remove(filepath.Join(w.cfg.Vault.Path, "private", cFileName+".md"))
}

func TestCanaryMatrixCoversEveryTool(t *testing.T) {
	emb, rr := models(t)
	w := newWorld(t, false, emb, rr)
	registered := slices.Sorted(func(yield func(string) bool) {
		for name := range w.ag.Runner.Tools.(*chat.Toolbox).Tools {
			if !yield(name) {
				return
			}
		}
	})
	for _, name := range registered {
		if len(matrix[name]) == 0 {
			t.Errorf("tool %q is registered but the canary matrix has no probe for it: add its probes to matrix", name)
		}
	}
	for name := range matrix {
		if !slices.Contains(registered, name) {
			t.Errorf("the canary matrix probes %q, which is not a registered tool", name)
		}
	}
}

// probeTurn runs probe p as the first turn of a new session on the model
// spec, whose fake model makes the (expanded) call; both canary tests
// start each probe so.
func (w *world) probeTurn(p call, model *script, spec string) (call, *chat.Session) {
	w.t.Helper()
	w.beforeProbe(p)
	c := w.expand(p)
	model.expect(&c)
	s := w.ag.Sessions.New(llm.ParseSpec(spec), false)
	if err := w.turn(s); err != nil {
		w.t.Fatalf("%s %v: %v", p.Tool, p.Args, err)
	}
	return c, s
}

// A fresh cloud session calls each tool once per probe.
func TestCanaryFreshCloudSession(t *testing.T) {
	emb, rr := models(t)
	with, without := newWorld(t, true, emb, rr), newWorld(t, false, emb, rr)
	for _, p := range probes() {
		var got [2]string
		for i, w := range []*world{with, without} {
			c, s := w.probeTurn(p, &w.cloud.script, cloudSpec)
			bodies := w.cloud.seen()
			// The turn must go on to the model with the tool's result: a
			// turn that stops is a signal the provider sees too.
			if len(bodies) < 2 || !bytes.Contains(bodies[len(bodies)-1], []byte(`"tool_result"`)) {
				t.Fatalf("%s %v: the tool result never reached the model (%d requests)", p.Tool, p.Args, len(bodies))
			}
			if l := leaks(bodies, c); len(l) > 0 {
				t.Errorf("%s %v: canaries %v reached the cloud model:\n%s", p.Tool, p.Args, l, bodies[len(bodies)-1])
			}
			if s.Private {
				t.Errorf("%s %v: a cloud session became private", p.Tool, p.Args)
			}
			w.checkLedger(fmt.Sprintf("%s %v", p.Tool, p.Args), bodies, c)
			got[i] = w.normal(bodies)
		}
		if got[0] != got[1] {
			t.Errorf("%s %v: the cloud model can tell whether private material exists:\n%s", p.Tool, p.Args, firstDiff(got[0], got[1]))
		}
	}
}

// A local session calls each tool; if what it received was private it
// must be private now and refuse a cloud model, else it may switch, and
// what the cloud then receives must not depend on private material. At
// the end, chat history (where the local model repeated its results) is
// searched from a cloud session.
func TestCanaryLocalSessionThenSwitch(t *testing.T) {
	emb, _ := models(t)
	// No reranker here: it only reorders what the filter let through (the
	// fresh-cloud test runs with it), and it is the slow part.
	with, without := newWorld(t, true, emb, ""), newWorld(t, false, emb, "")
	for _, p := range probes() {
		var got [2]string
		var switched, kept [2]bool
		for i, w := range []*world{with, without} {
			c, s := w.probeTurn(p, &w.local.script, localSpec)
			// A local turn a privacy refusal stopped keeps nothing, so the
			// session carries nothing of it to compare.
			kept[i] = len(s.Messages) > 0
			if saw := leaks(w.local.seen(), c); len(saw) > 0 && !s.Private {
				t.Errorf("%s %v: the local model was shown %v but the session is not private", p.Tool, p.Args, saw)
			}
			spec, err := llm.ValidateSwitch(w.cfg, cloudSpec, s.Private, func(string) string { return "" })
			if s.Private != errs.Is(err, errs.Privacy) {
				t.Fatalf("%s %v: private %v, switch %v", p.Tool, p.Args, s.Private, err)
			}
			if err != nil {
				continue // over-caution is allowed: a probe of a private folder counts as private even when it is empty
			}
			switched[i] = true
			s.Provider, s.Model = spec.Provider, spec.Model
			w.cloud.expect(nil)
			if err := w.turn(s); err != nil {
				t.Fatalf("%s %v after the switch: %v", p.Tool, p.Args, err)
			}
			bodies := w.cloud.seen()
			if l := leaks(bodies, c); len(l) > 0 {
				t.Errorf("%s %v: after switching, canaries %v reached the cloud model:\n%s", p.Tool, p.Args, l, bodies[0])
			}
			w.checkLedger(fmt.Sprintf("%s %v after the switch", p.Tool, p.Args), bodies, c)
			got[i] = w.normal(bodies)
		}
		if switched[0] && switched[1] && kept[0] && kept[1] && !readsHistory(p) && got[0] != got[1] {
			t.Errorf("%s %v: a session that is not private carries something of private material to the cloud:\n%s", p.Tool, p.Args, firstDiff(got[0], got[1]))
		}
	}
	// Everything the local model repeated is in the chat history now.
	history := []call{{Tool: "search_chat_history", Args: map[string]any{"query": "found"}}, {Tool: "search_kb", Args: map[string]any{"query": "found", "kind": "chat"}},
		{Tool: "list_documents", Args: map[string]any{"kind": "chat"}}}
	for _, c := range canaries {
		history = append(history, call{Tool: "search_chat_history", Args: map[string]any{"query": c}})
	}
	// Only the canaries are checked here: which conversations are public
	// differs between the worlds by design (those that touched private
	// material are private), so the public history does too.
	for _, p := range history {
		w := with
		w.cloud.expect(&p)
		if err := w.turn(w.ag.Sessions.New(llm.ParseSpec(cloudSpec), false)); err != nil {
			t.Fatal(err)
		}
		if l := leaks(w.cloud.seen(), p); len(l) > 0 {
			t.Errorf("%s %v: chat history gave canaries %v to the cloud model", p.Tool, p.Args, l)
		}
	}
}

// readsHistory says whether a probe's result lists past conversations.
// Which of them are public differs between the worlds by design (a local
// session that touched private material is private, its twin in the
// other world is not), so such a result is held to the canary check only.
func readsHistory(p call) bool {
	return p.Tool == "search_chat_history" || p.Args["kind"] == "chat"
}

// A private session may use every tool locally, never leaves for a cloud
// model, and cannot be resumed under one: not one byte is sent.
func TestCanaryPrivateSession(t *testing.T) {
	emb, _ := models(t)
	w := newWorld(t, true, emb, "")
	for _, p := range probes() {
		c := w.expand(p)
		w.local.expect(&c)
		s := w.ag.Sessions.New(llm.ParseSpec(localSpec), false)
		s.MarkPrivate()
		if err := w.turn(s); err != nil {
			t.Fatalf("%s %v: %v", p.Tool, p.Args, err)
		}
		if !s.Private {
			t.Fatalf("%s: the private flag was cleared", p.Tool)
		}
		if _, err := llm.ValidateSwitch(w.cfg, cloudSpec, s.Private, func(string) string { return "" }); !errs.Is(err, errs.Privacy) {
			t.Fatalf("%s: a private session may switch to a cloud model: %v", p.Tool, err)
		}
		w.cloud.expect(&c)
		s.Provider, s.Model = "anthropic", "claude-test" // as if a stale window tried
		if _, err := w.ag.Runner.Start(context.Background(), s, "probe", nil); !errs.Is(err, errs.Privacy) {
			t.Fatalf("%s: a private session resumed under a cloud model: %v", p.Tool, err)
		}
		if n := len(w.cloud.seen()); n != 0 {
			t.Fatalf("%s: %d requests reached the cloud model from a private session", p.Tool, n)
		}
	}
}
