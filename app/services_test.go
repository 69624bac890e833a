package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/agent"
	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	"github.com/jarvis-kb/jarvis/backend/llm"
	"github.com/jarvis-kb/jarvis/backend/ocr/ocrtest"
	"github.com/jarvis-kb/jarvis/backend/ops"
	"github.com/jarvis-kb/jarvis/backend/pdf"
	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

func services(t *testing.T, tweak ...func(*config.Config)) (*Services, *config.Config) {
	t.Helper()
	cfg := configtest.WithFile(t, "# my settings\n[chat]\nresponse_style = \"\" # how to answer\n")
	cfg.Vault.Path = filepath.Join(cfg.Home, "vault")
	os.MkdirAll(filepath.Join(cfg.Vault.Path, "garden"), 0o755)
	os.WriteFile(filepath.Join(cfg.Vault.Path, "garden", "roses.md"), []byte("# Roses\n\nPrune roses in winter.\n"), 0o644)
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = filepath.Join(cfg.Home, "bow"), ""
	if err := embedtest.WriteEmbedder(cfg.RAG.EmbedModel, embedtest.Words("prune roses winter")); err != nil {
		t.Fatal(err)
	}
	for _, f := range tweak {
		f(cfg)
	}
	ag, err := agent.New(cfg, agent.Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if ag.Engine != nil {
		if _, err := ag.Engine.Refresher().Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	s := NewServices(cfg, ag, func(string, any) {}, os.Getenv)
	t.Cleanup(func() { s.Close() })
	return s, cfg
}

func TestLibraryRemovalIsTwoStepAndSingleUse(t *testing.T) {
	s, _ := services(t)
	docs, err := s.Library.Documents("notes", "ros")
	if err != nil || len(docs) != 1 {
		t.Fatalf("%v %+v", err, docs)
	}
	p, err := s.Library.PrepareRemove(docs[0].Key)
	if err != nil || p.Chunks != 1 || !strings.Contains(p.Notice, "never touched") {
		t.Fatalf("%v %+v", err, p)
	}
	if n, err := s.Library.Remove(p.Token, false); err != nil || n != 1 {
		t.Fatalf("remove: %d %v", n, err)
	}
	if _, err := s.Library.Remove(p.Token, false); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a token removes once: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.core.cfg.Vault.Path, "garden", "roses.md")); err != nil {
		t.Fatal("the file was touched")
	}
	var opened string
	s.Library.Open = func(p string) error { opened = p; return nil }
	if err := s.Library.OpenCitation(chat.Citation{Source: "garden/roses.md", FilePath: "garden/roses.md"}); err != nil || !strings.HasSuffix(opened, "vault/garden/roses.md") {
		t.Fatalf("open %q %v", opened, err)
	}
	if err := s.Library.OpenCitation(chat.Citation{Source: "x", FilePath: "../../etc/passwd"}); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a path out of the vault: %v", err)
	}
	if err := s.Library.OpenCitation(chat.Citation{Source: "https://arxiv.org/abs/1"}); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a web source is not a local file: %v", err)
	}
}

func TestSettingsWriteBackKeepsTheFile(t *testing.T) {
	s, cfg := services(t)
	if err := s.Settings.SetResponseStyle("Be brief."); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(cfg.Home, "config.toml"))
	if string(b) != "# my settings\n[chat]\nresponse_style = 'Be brief.' # how to answer\n" || s.Settings.ResponseStyle() != "Be brief." {
		t.Fatalf("config.toml now:\n%s", b)
	}
	def, err := s.Settings.ResetPrompt("system_prompt")
	if err != nil || !strings.Contains(def, "RETRIEVED DATA") {
		t.Fatalf("%v", err)
	}
}

func TestChatSessionsLifecycle(t *testing.T) {
	s, _ := services(t)
	v, err := s.Chat.New("", true)
	if err != nil || v.Spec == "" || !v.KBOnly {
		t.Fatalf("%v %+v", err, v)
	}
	list, _ := s.Chat.List()
	if len(list) != 1 || list[0].ID != v.ID {
		t.Fatalf("an open unsaved session is listed: %+v", list)
	}
	if v, err = s.Chat.Rename(v.ID, "  Garden  "); err != nil || v.Title != "Garden" {
		t.Fatalf("%v %+v", err, v)
	}
	if _, err := s.Chat.Rename(v.ID, " "); !errs.Is(err, errs.Invalid) {
		t.Fatalf("empty title: %v", err)
	}
	if _, err := s.Chat.SetModel(v.ID, "nowhere:x"); err == nil {
		t.Fatal("an unknown provider was accepted")
	}
	if _, err := s.Chat.Open("../../etc"); err == nil {
		t.Fatal("a bad id was accepted")
	}
	if err := s.Chat.Send(v.ID, "   "); !errs.Is(err, errs.Invalid) {
		t.Fatalf("empty message: %v", err)
	}
	if err := s.Chat.Delete(v.ID); err != nil {
		t.Fatal(err)
	}
	st, err := s.Sync.Status()
	if err != nil || st.Running || len(st.Jobs) == 0 {
		t.Fatalf("sync %v %+v", err, st)
	}
}

func TestLibraryOperationsReportProgressAndOutcome(t *testing.T) {
	events := make(chan any, 64)
	s, cfg := services(t)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	os.WriteFile(filepath.Join(cfg.Vault.Path, "garden", "tulips.md"), []byte("# Tulips\n\nPlant tulips in autumn.\n"), 0o644)
	id, err := s.Library.SyncVault()
	if err != nil {
		t.Fatal(err)
	}
	final := waitOp(t, events, id)
	if final.State != ops.Done || !strings.Contains(final.Result, "1 added") {
		t.Fatalf("%+v", final)
	}
	// A scan of a blank sheet: no text layer, and nothing for OCR to read.
	id, _ = s.Library.Add(pdftest.BlankScan(t), true, false, "")
	if final = waitOp(t, events, id); final.State != ops.Failed || final.Code != "conversion" || final.Hint == "" {
		t.Fatalf("scan: %+v", final)
	}
	if _, err := s.Library.Add("relative.pdf", true, false, ""); !errs.Is(err, errs.Invalid) {
		t.Fatalf("relative path: %v", err)
	}
	if len(s.Library.Ops()) != 2 {
		t.Fatalf("ops %+v", s.Library.Ops())
	}
}

func waitOp(t *testing.T, events chan any, id string) ops.Op {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e := <-events:
			if o := e.(ops.Op); o.ID == id && o.State != ops.Running {
				return o
			}
		case <-timeout:
			t.Fatal("operation did not finish")
		}
	}
}

func TestViewSourceShowsPDFPagesAndStoredText(t *testing.T) {
	s, _ := services(t)
	pdfPath, _ := filepath.Abs("../backend/pdf/testdata/paper.pdf")
	v, err := s.Library.ViewSource(chat.Citation{Source: "file://" + pdfPath, Page: 2}, 0)
	if err != nil || v.Pages != 2 || v.Page != 2 || len(v.Image) < 100 {
		t.Fatalf("%v %+v", err, v.Pages)
	}
	v, err = s.Library.ViewSource(chat.Citation{Source: "garden/roses.md", FilePath: "garden/roses.md"}, 0)
	if err != nil || len(v.Chunks) != 1 || !strings.Contains(v.Chunks[0].Text, "Prune roses") || v.Chunks[0].ID == 0 {
		t.Fatalf("%v %+v", err, v)
	}
	if _, err := s.Library.ViewSource(chat.Citation{Source: "chat:gone"}, 0); !errs.Is(err, errs.NotFound) {
		t.Fatalf("gone: %v", err)
	}
}

// removingModel asks to remove the roses note, then answers with text.
func removingModel(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" { // a preload (/api/generate) needs only a 200
			return
		}
		var req struct{ Messages []struct{ Role string } }
		json.NewDecoder(r.Body).Decode(&req)
		if req.Messages[len(req.Messages)-1].Role == "tool" {
			fmt.Fprintln(w, `{"message":{"role":"assistant","content":"Kept it."},"done":false}`)
		} else {
			fmt.Fprintln(w, `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"remove_document","arguments":{"source":"garden/roses.md"}}}]},"done":false}`)
		}
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":""},"done":true}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestReplayLetsAReopenedWindowFinishAConfirmation(t *testing.T) {
	srv := removingModel(t)
	s, _ := services(t, func(c *config.Config) { c.Chat.OllamaURL = srv.URL })
	v, err := s.Chat.New("", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Chat.Send(v.ID, "remove the roses note"); err != nil {
		t.Fatal(err)
	}
	var token string
	for deadline := time.Now().Add(5 * time.Second); token == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if r := s.Chat.Replay(v.ID); r != nil {
			for _, e := range r.Events {
				if e.Kind == chat.EventConfirm {
					token = e.Data.(map[string]any)["token"].(string)
					if r.Question != "remove the roses note" {
						t.Fatalf("question %q", r.Question)
					}
				}
			}
		}
	}
	if token == "" {
		t.Fatal("the replay never showed the pending confirmation")
	}
	if err := s.Chat.Confirm(token, false); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); s.Chat.Replay(v.ID) != nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	if s.Chat.Replay(v.ID) != nil {
		t.Fatal("an idle session has no replay")
	}
	done, _ := s.Chat.Open(v.ID)
	if last := done.Display[len(done.Display)-1]; last.Text != "Kept it." {
		t.Fatalf("reply %+v", last)
	}
}

func TestFetchModelsDownloadsTheMissingOnesAsAnOperation(t *testing.T) {
	var served []string
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served = append(served, r.URL.Path)
		fmt.Fprintf(w, "bytes of %s", r.URL.Path)
	}))
	defer hub.Close()
	t.Setenv("HF_ENDPOINT", hub.URL)
	s, cfg := services(t, func(c *config.Config) { c.RAG.RerankModel = "cross-encoder/ms-marco-MiniLM-L6-v2" })
	rows, err := s.Settings.Models()
	if err != nil {
		t.Fatal(err)
	}
	var rr ModelRow
	for _, r := range rows {
		if r.ID == cfg.RAG.RerankModel {
			rr = r
		}
	}
	if !rr.Configured || rr.Installed || rr.Missing == 0 {
		t.Fatalf("rows %+v", rows)
	}
	events := make(chan any, 256)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	id, err := s.Settings.FetchModels()
	if err != nil {
		t.Fatal(err)
	}
	// The hub served placeholder bytes: downloaded, but the model does not
	// load, and the operation says so instead of claiming success.
	final := waitOp(t, events, id)
	if final.State != ops.Failed || !strings.Contains(final.Error, "was downloaded but does not load") || final.Hint == "" {
		t.Fatalf("%+v", final)
	}
	if len(served) != rr.Missing || !strings.HasPrefix(served[0], "/cross-encoder/ms-marco-MiniLM-L6-v2/resolve/main/") {
		t.Fatalf("served %v", served)
	}
	if _, err := s.Settings.FetchModels(); !errs.Is(err, errs.Invalid) {
		t.Fatalf("nothing left to fetch: %v", err)
	}
}

func TestEditorNewDraftSaveConflictAndKeep(t *testing.T) {
	s, _ := services(t)
	d, err := s.Editor.NewDraft("Grant letter", "letter.md")
	if err != nil || d.MainFile != "letter.md" {
		t.Fatalf("%v %+v", err, d)
	}
	f, err := s.Editor.Open(d.ID, "letter.md")
	if err != nil || f.Text != "" {
		t.Fatalf("%v %+v", err, f)
	}
	h, err := s.Editor.Save(d.ID, "letter.md", "Dear panel,\n", f.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Editor.Save(d.ID, "letter.md", "stale\n", f.Hash); !errs.Is(err, errs.Conflict) {
		t.Fatalf("a save with an old hash must conflict: %v", err)
	}
	if _, err := s.Editor.Save(d.ID, "letter.md", "Dear panel members,\n", h); err != nil {
		t.Fatal(err)
	}
	vs, err := s.Editor.Versions(d.ID, "letter.md")
	if err != nil || len(vs) != 2 || vs[0].At.IsZero() {
		t.Fatalf("each own save keeps the replaced text as a version: %v %+v", err, vs)
	}
	hunks, err := s.Editor.CompareVersion(d.ID, vs[0].ID)
	if err != nil || len(hunks) != 1 || hunks[0].OldLines[0] != "Dear panel members,\n" || hunks[0].NewLines[0] != "Dear panel,\n" {
		t.Fatalf("restoring shows what it changes first: %v %+v", err, hunks)
	}
	if err := s.Editor.SetKeep(d.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Editor.NewDraft("x", "../escape.md"); err == nil {
		t.Fatal("a path outside the sandbox was accepted")
	}
}

func TestRemovingAVaultNoteCanExcludeIt(t *testing.T) {
	s, cfg := services(t)
	p, err := s.Library.PrepareRemove("garden/roses.md")
	if err != nil || p.Exclude != "garden/roses.md" {
		t.Fatalf("a vault note offers exclusion: %v %+v", err, p)
	}
	if n, err := s.Library.Remove(p.Token, true); err != nil || n != 1 {
		t.Fatalf("remove: %d %v", n, err)
	}
	b, _ := os.ReadFile(filepath.Join(cfg.Home, "config.toml"))
	if !strings.HasPrefix(string(b), "# my settings\n[chat]\nresponse_style = \"\" # how to answer\n") || !strings.Contains(string(b), "exclude = ['garden/roses.md']") {
		t.Fatalf("vault.exclude must be written, the rest of the file kept:\n%s", b)
	}
	again, err := config.LoadFrom(cfg.Home)
	if err != nil || len(again.Vault.Exclude) != 1 || again.Vault.Exclude[0] != "garden/roses.md" || len(cfg.Vault.Exclude) != 1 {
		t.Fatalf("reloaded exclude %v %+v (in memory %v)", err, again.Vault.Exclude, cfg.Vault.Exclude)
	}
}

func TestPaperMetadataEditByListKeyAndPassageMarks(t *testing.T) {
	s, _ := services(t)
	paper, _ := filepath.Abs("../backend/pdf/testdata/paper.pdf")
	docs := addOnePaper(t, s, paper)
	if n, err := s.Library.SetMeta(docs[0].Key, "Sparse Attention, Revised", "Ada Example", "10.1/x"); err != nil || n == 0 {
		t.Fatalf("the key the library lists must be editable: %d %v", n, err)
	}
	docs, _ = s.Library.Documents("papers", "")
	if docs[0].Title != "Sparse Attention, Revised" || docs[0].DOI != "10.1/x" {
		t.Fatalf("after edit %+v", docs[0])
	}
	res, err := s.Library.Search("sparse attention keeps accuracy while cutting memory", 5)
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("%v %+v", err, res)
	}
	var cited chat.Citation
	for _, h := range res.Hits {
		if h.Citation.Page == 1 && strings.Contains(h.Text, "cutting memory") {
			cited = h.Citation
		}
	}
	if cited.ChunkID == 0 {
		t.Fatalf("no page-1 hit: %+v", res.Hits)
	}
	v, err := s.Library.ViewSource(cited, 0)
	if err != nil || v.Image == "" || len(v.Marks) == 0 {
		t.Fatalf("the cited passage must be marked on the page: %v %+v", err, v.Marks)
	}
	for _, m := range v.Marks {
		if m.X < 0 || m.Y < 0 || m.X+m.W > 1 || m.Y+m.H > 1 || m.W <= 0 {
			t.Fatalf("mark outside the page: %+v", m)
		}
	}
}

// Library → Add classifies a file on its resolved path: a link from
// elsewhere into a private vault folder adds a private note, and the
// private option marks a note from outside the vault private.
func TestLibraryAddIsPrivateByResolvedPathOrChoice(t *testing.T) {
	events := make(chan any, 64)
	s, cfg := services(t, func(c *config.Config) { c.Vault.PrivateDirs = []string{"private"} })
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	os.MkdirAll(filepath.Join(cfg.Vault.Path, "private"), 0o755)
	secret := filepath.Join(cfg.Vault.Path, "private", "secret.md")
	os.WriteFile(secret, []byte("# Secret\n\nThe diary of the roses.\n"), 0o644)
	elsewhere := t.TempDir()
	link := filepath.Join(elsewhere, "link.md")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(elsewhere, "mine.md")
	os.WriteFile(outside, []byte("# Mine\n\nMy own rose notes.\n"), 0o644)
	public := filepath.Join(elsewhere, "open.md")
	os.WriteFile(public, []byte("# Open\n\nPublic rose notes.\n"), 0o644)
	for _, c := range []struct {
		path    string
		private bool
	}{{link, false}, {outside, true}, {public, false}} {
		id, err := s.Library.Add(c.path, true, c.private, "")
		if err != nil {
			t.Fatal(err)
		}
		if o := waitOp(t, events, id); o.State != ops.Done {
			t.Fatalf("%s: %+v", c.path, o)
		}
	}
	store := s.core.agent().Engine.Store
	docs, err := store.List(t.Context(), kb.Filter{Visibility: []string{kb.Private}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, filepath.Base(d.Key))
	}
	slices.Sort(got)
	if strings.Join(got, ",") != "mine.md,secret.md" {
		t.Fatalf("private documents %v (want the linked secret and the note marked private)", got)
	}
}

// A Library row says how often its document went to a cloud model and
// when last, from the ledger every process writes; requests to the local
// model and other documents' requests do not count.
func TestLibraryRowsSayWhatWasSentToTheCloud(t *testing.T) {
	s, cfg := services(t)
	book := ledgerOf(t, cfg)
	send := func(local bool, keys ...string) {
		r := ledger.Record{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "claude-test", Local: local}
		for _, k := range keys {
			r.Sources = append(r.Sources, ledger.Source{Key: k})
		}
		id, err := book.Begin(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		if err := book.Finish(id, ledger.Result{Outcome: ledger.OK}); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := s.Library.Documents("notes", "")
	if err != nil || len(docs) != 1 || docs[0].Sent != nil || docs[0].Cited != "garden/roses.md" {
		t.Fatalf("before any request: %v %+v", err, docs)
	}
	send(false, "garden/roses.md", "arxiv:2401.00001")
	send(false, "garden/roses.md")
	send(true, "garden/roses.md")
	send(false, "garden/other.md")
	docs, err = s.Library.Documents("notes", "")
	if err != nil || len(docs) != 1 || docs[0].Sent == nil {
		t.Fatalf("%v %+v", err, docs)
	}
	if got := docs[0].Sent; got.Times != 2 || time.Since(got.Last) > time.Minute {
		t.Errorf("sent %+v, want twice, just now", got)
	}
}

// Ask-before-sending is a Settings default written to config.toml and a
// per-session switch; the session view says what applies, and only a
// cloud session asks.
func TestAskBeforeSendingDefaultAndSessionSwitch(t *testing.T) {
	s, cfg := services(t, func(c *config.Config) { c.Anthropic.APIKey = "sk-ant-test-0000" })
	if s.Settings.AskBeforeSending() {
		t.Fatal("on by default")
	}
	if err := s.Settings.SetAskBeforeSending(true); err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(filepath.Join(cfg.Home, "config.toml"))
	if !strings.Contains(string(file), "ask_before_sending = true") || !strings.Contains(string(file), "# my settings") {
		t.Fatalf("config.toml:\n%s", file)
	}
	cloud, err := s.Chat.New("anthropic:claude-test", false)
	if err != nil || !cloud.Cloud || !cloud.AsksBeforeSending {
		t.Fatalf("%v %+v", err, cloud)
	}
	if cloud, err = s.Chat.SetAskBeforeSending(cloud.ID, false); err != nil || cloud.AsksBeforeSending {
		t.Fatalf("switched off: %v %+v", err, cloud)
	}
	local, err := s.Chat.New("ollama:llama3.2", false)
	if err != nil || local.Cloud || local.AsksBeforeSending {
		t.Fatalf("a local session: %v %+v", err, local)
	}
	if err := s.Chat.Review("nope", true, nil); !errs.Is(err, errs.NotFound) {
		t.Fatalf("an unknown review token: %v", err)
	}
}

// A screenshot added in the Library is found by the words on it, the hit
// says they were recognised, and the citation opens the image with the
// passage boxed.
func TestScreenshotIsFoundAndOpensBoxed(t *testing.T) {
	ocrtest.Engine(t, "eng")
	events := make(chan any, 64)
	s, _ := services(t)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	png, _, err := pdf.PagePNG(pdftest.Text(t, "Whiteboard: quarterly roadmap review with the lab", "Owner: Ada Example, due Friday"), 1, 150)
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "whiteboard.png")
	if err := os.WriteFile(shot, png, 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := s.Library.Add(shot, false, false, "") // an image is kept whole even when "full text" is off
	if err != nil {
		t.Fatal(err)
	}
	if final := waitOp(t, events, id); final.State != ops.Done || !strings.Contains(final.Result, `image "whiteboard"`) {
		t.Fatalf("%+v", final)
	}
	res, err := s.Library.Search("quarterly roadmap review", 5)
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("%v %+v", err, res)
	}
	h := res.Hits[0]
	if !strings.HasPrefix(h.OCR, "recognised by OCR") || h.Citation.Title != "whiteboard" {
		t.Fatalf("hit %+v", h)
	}
	v, err := s.Library.ViewSource(h.Citation, 0)
	if err != nil || v.Image == "" || v.Pages != 1 || len(v.Marks) == 0 {
		t.Fatalf("the image must open with the passage boxed: %v pages %d marks %+v", err, v.Pages, v.Marks)
	}
}

// A document gone from disk is still shown from its stored text, named the
// way the Library keys it (a local PDF by its file path), in the chat's
// lookup order.
func TestViewSourceFindsByLibraryKeyWhenTheFileIsGone(t *testing.T) {
	s, _ := services(t)
	src, _ := os.ReadFile("../backend/pdf/testdata/paper.pdf")
	paper := filepath.Join(t.TempDir(), "paper.pdf")
	if err := os.WriteFile(paper, src, 0o600); err != nil {
		t.Fatal(err)
	}
	docs := addOnePaper(t, s, paper)
	if err := os.Remove(paper); err != nil {
		t.Fatal(err)
	}
	v, err := s.Library.ViewSource(chat.Citation{Source: docs[0].Key}, 0)
	if err != nil || len(v.Chunks) == 0 || v.Image != "" {
		t.Fatalf("stored text by the library key %q: %v %+v", docs[0].Key, err, v)
	}
	var body string
	for _, c := range v.Chunks {
		body += c.Text
	}
	if !strings.Contains(body, "cutting memory") {
		t.Fatalf("the paper's text is missing: %q", body)
	}
}

// Settings → Sent to the cloud: requests to the local model are left out
// unless asked for, and the provider and purpose narrow the list.
func TestSettingsLedgerFilters(t *testing.T) {
	s, cfg := services(t)
	book := ledgerOf(t, cfg)
	for _, r := range []ledger.Record{
		{Purpose: ledger.PurposeChat, Provider: "ollama", Model: "llama", Local: true},
		{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "claude"},
		{Purpose: ledger.PurposeDigest, Provider: "openrouter", Model: "m"},
	} {
		if _, err := book.Begin(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		f    LedgerFilter
		want int
	}{
		{LedgerFilter{}, 2}, {LedgerFilter{Local: true}, 3}, {LedgerFilter{Provider: "anthropic"}, 1},
		{LedgerFilter{Purpose: ledger.PurposeDigest}, 1}, {LedgerFilter{Provider: "ollama"}, 0}, {LedgerFilter{Provider: "ollama", Local: true}, 1},
	} {
		rs, err := s.Settings.Ledger(c.f)
		if err != nil || len(rs) != c.want {
			t.Errorf("%+v: %d records (%v), want %d", c.f, len(rs), err, c.want)
		}
	}
}

// ledgerOf is the ledger of the home cfg names, as every process opens it.
func ledgerOf(t *testing.T, cfg *config.Config) *ledger.Ledger {
	t.Helper()
	book, err := ledger.Shared(cfg.LedgerDir(), cfg.Ledger.KeepDays)
	if err != nil {
		t.Fatal(err)
	}
	return book
}

// addOnePaper adds the PDF at path through the Library, as the window's
// Add does, waits for the operation and returns the papers listed: that
// one.
func addOnePaper(t *testing.T, s *Services, path string) []DocumentRow {
	t.Helper()
	events := make(chan any, 64)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	id, err := s.Library.Add(path, true, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if final := waitOp(t, events, id); final.State != ops.Done {
		t.Fatalf("%+v", final)
	}
	docs, err := s.Library.Documents("papers", "")
	if err != nil || len(docs) != 1 {
		t.Fatalf("%v %+v", err, docs)
	}
	return docs
}

// Opening a chat on a local model loads the model into Ollama ahead of
// the first question (a generate request with keep_alive and no prompt),
// so the first answer does not wait on a cold load.
func TestOpeningALocalChatPreloadsItsModel(t *testing.T) {
	preloads := make(chan map[string]any, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/generate" {
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			preloads <- body
		}
		fmt.Fprintln(w, `{"done":true}`)
	}))
	t.Cleanup(srv.Close)
	s, _ := services(t, func(c *config.Config) { c.Chat.OllamaURL = srv.URL })
	v, err := s.Chat.New("", false)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-preloads: // starting it preloads once already
	case <-time.After(5 * time.Second):
		t.Fatal("starting the chat did not preload its model")
	}
	if _, err := s.Chat.Open(v.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case body := <-preloads:
		if body["keep_alive"] != "30m" || body["model"] != llm.ParseSpec(v.Spec).Model || body["prompt"] != nil && body["prompt"] != "" {
			t.Fatalf("preload request %v", body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening the chat did not preload its model")
	}
}

// Opening another page while a scanned one is still being recognised for
// its marks stops that recognition: flipping through a scan queues nothing.
// The first view comes back at once, unmarked; the second is marked.
func TestViewingAnotherPageStopsTheMarkingOfTheLast(t *testing.T) {
	ocrtest.Engine(t, "eng")
	events := make(chan any, 64)
	s, _ := services(t)
	s.core.ops.Emit = func(o ops.Op) { events <- o }
	png, _, err := pdf.PagePNG(pdftest.Text(t, "Whiteboard: quarterly roadmap review with the lab"), 1, 150)
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "whiteboard.png")
	if err := os.WriteFile(shot, png, 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := s.Library.Add(shot, false, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if final := waitOp(t, events, id); final.State != ops.Done {
		t.Fatalf("%+v", final)
	}
	res, err := s.Library.Search("quarterly roadmap review", 5)
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("%v %+v", err, res)
	}
	cited := res.Hits[0].Citation

	path := os.Getenv("PATH")
	stalled := ocrtest.NewFake(t, ocrtest.Stall) // the first view's recognition never ends by itself
	first := make(chan SourceView, 1)
	go func() {
		v, _ := s.Library.ViewSource(cited, 0)
		first <- v
	}()
	<-stalled.Started
	t.Setenv("PATH", path) // the real Tesseract again for the next view
	second, err := s.Library.ViewSource(cited, 0)
	if err != nil || len(second.Marks) == 0 {
		t.Fatalf("the page viewed next must be marked: %v %+v", err, second.Marks)
	}
	select {
	case v := <-first:
		if len(v.Marks) != 0 || v.Image == "" {
			t.Fatalf("the stopped view: image %v, marks %+v (want the page, unmarked)", v.Image != "", v.Marks)
		}
	case <-time.After(30 * time.Second): // the page's own OCR limit is 60 s
		t.Fatal("the earlier page's recognition was not stopped")
	}
	if stalled.Runs() != 1 {
		t.Fatalf("the stalled engine ran %d times", stalled.Runs())
	}
}

// A chat just started, and a chat switched to another local model, load
// that model too: the first answer of a new chat does not wait either.
func TestStartingOrSwitchingALocalChatPreloadsItsModel(t *testing.T) {
	preloads := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/generate" {
			var body map[string]any
			json.NewDecoder(r.Body).Decode(&body)
			model, _ := body["model"].(string)
			preloads <- model
		}
		fmt.Fprintln(w, `{"done":true}`)
	}))
	t.Cleanup(srv.Close)
	s, _ := services(t, func(c *config.Config) { c.Chat.OllamaURL = srv.URL })
	next := func(what string) string {
		select {
		case m := <-preloads:
			return m
		case <-time.After(5 * time.Second):
			t.Fatalf("%s did not preload its model", what)
		}
		return ""
	}
	v, err := s.Chat.New("", false)
	if err != nil {
		t.Fatal(err)
	}
	if m := next("starting a chat"); m != llm.ParseSpec(v.Spec).Model {
		t.Fatalf("starting a chat preloaded %q, want %q", m, llm.ParseSpec(v.Spec).Model)
	}
	if _, err := s.Chat.SetModel(v.ID, "ollama:qwen3:4b"); err != nil {
		t.Fatal(err)
	}
	if m := next("switching the model"); m != "qwen3:4b" {
		t.Fatalf("switching preloaded %q, want qwen3:4b", m)
	}
}
