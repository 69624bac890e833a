package chat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/digest/digesttest"
	"github.com/jarvis-kb/jarvis/backend/embed"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/llm"
)

var vaultNotes = map[string]string{
	"garden/tomatoes.md": "# Tomatoes\n\nTomato plants need full sun and deep watering.\n",
	"private/diary.md":   "# Diary\n\nWorried about the grant budget again.\n",
	"private/plans.md":   "# Plans\n\nTomato seedlings for the allotment, paid from the grant.\n",
}

type kbFixture struct {
	kb    *KB
	tools *Toolbox
	root  string
	eng   *engine.Engine
}

// newKB indexes a small vault through the real embedder and reranker
// fixtures (real tokenizer, real ONNX runtime) and returns the KB tools.
func newKB(t *testing.T) *kbFixture {
	t.Helper()
	cfg := configtest.New(t)
	root := filepath.Join(t.TempDir(), "vault")
	var all []string
	long := "# Long\n\n"
	for i := 0; i < 40; i++ {
		long += fmt.Sprintf("## Part %d\n\nSection %d of the long tomato manual.\n\n", i, i)
	}
	vaultNotes["manual/long.md"] = long
	for rel, text := range vaultNotes {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, text)
	}
	words := embedtest.Words(all...)
	models := t.TempDir()
	if err := embedtest.WriteEmbedder(filepath.Join(models, "bow"), words); err != nil {
		t.Fatal(err)
	}
	if err := embedtest.WriteReranker(filepath.Join(models, "rr"), words); err != nil {
		t.Fatal(err)
	}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = filepath.Join(models, "bow"), filepath.Join(models, "rr")
	// A model folder of one's own has no manifest prefixes; the fixture
	// stands for BGE, so its queries carry BGE's instruction.
	cfg.RAG.QueryPrefix = embed.BGEQueryPrefix
	cfg.Vault.Path, cfg.Vault.PrivateDirs = root, []string{"private"}
	eng, err := engine.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ref := eng.Refresher()
	if _, err := ref.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Backfill(context.Background(), kb.BackfillOptions{}); err != nil { // the vault stores notes first, vectors follow
		t.Fatal(err)
	}
	k := &KB{KB: kbtools.KB{Searcher: eng.Searcher, Store: eng.Store, VaultRoot: root, PrivateDirs: []string{"private"}, NResults: 5},
		Refresh: ref.Refresh, Confirm: &Confirmations{}}
	return &kbFixture{kb: k, tools: &Toolbox{Tools: KBTools(k)}, root: root, eng: eng}
}

var (
	local = &Session{ID: "l", Provider: "ollama", Model: "m"}
	cloud = &Session{ID: "c", Provider: "anthropic", Model: "claude"}
)

func call(name string, args map[string]any) llm.Block { return llm.Block{Name: name, Arguments: args} }

func turnCtx() (context.Context, *Ledger, *recorder) {
	rec := &recorder{}
	ctx, l := withLedger(context.Background(), rec.emit)
	return ctx, l, rec
}

func TestSearchKBWrapsDataAndTracksPrivacy(t *testing.T) {
	f := newKB(t)
	ctx, l, _ := turnCtx()
	out, err := f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "tomato watering sun seedlings", "kind": "notes"}), func(Event) {})
	if err != nil || out.IsError {
		t.Fatalf("%v %+v", err, out)
	}
	if !strings.Contains(out.Content, BeginData) || !strings.HasSuffix(out.Content, EndData) {
		t.Fatalf("retrieved data is not wrapped:\n%s", out.Content)
	}
	first := strings.Index(out.Content, "[source: garden/tomatoes.md]")
	if first < 0 || first > strings.Index(out.Content, "--- 2.") {
		t.Fatalf("tomato note is not the first result:\n%s", out.Content)
	}
	if !l.Private() {
		t.Fatal("a private note (plans.md) was returned to the model but the turn is not marked private")
	}

	// A cloud session searches public notes only: a query matching only
	// private notes is answered from the public pool like any other (no
	// stop the provider could notice), with the fixed caveat; the user is
	// told how many private matches were kept back.
	for _, q := range []string{"worried diary", "tomato grant"} {
		ctx, l, _ = turnCtx()
		out, err = f.tools.Dispatch(ctx, cloud, call("search_kb", map[string]any{"query": q}), func(Event) {})
		if err != nil || out.IsError || strings.Contains(out.Content, "private/") || strings.Contains(out.Content, "grant") && q != "tomato grant" ||
			!strings.HasSuffix(out.Content, CloudCaveat) {
			t.Fatalf("cloud search %q: %v\n%s", q, err, out.Content)
		}
		if l.Withheld == 0 || l.Private() {
			t.Fatalf("%q: withheld %d private %v", q, l.Withheld, l.Private())
		}
	}
	// Recoverable mistakes go back to the model with a hint.
	out, _ = f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "x", "kind": "films"}), func(Event) {})
	if !out.IsError || !strings.Contains(out.Content, "Hint:") {
		t.Fatalf("bad kind: %+v", out)
	}
}

func TestGetDocumentPagesAndGuardsPrivacy(t *testing.T) {
	f := newKB(t)
	ctx, _, _ := turnCtx()
	out, err := f.tools.Dispatch(ctx, local, call("get_document", map[string]any{"source": "manual/long.md"}), func(Event) {})
	if err != nil || out.IsError || !strings.Contains(out.Content, "page 1 of 3 (40 chunks") || strings.Count(out.Content, "--- ") != DocPageSize {
		t.Fatalf("page 1: %v\n%.600s", err, out.Content)
	}
	out, _ = f.tools.Dispatch(ctx, local, call("get_document", map[string]any{"source": "manual/long.md", "page": 3.0}), func(Event) {})
	if strings.Count(out.Content, "--- ") != 40-2*DocPageSize {
		t.Fatalf("last page:\n%s", out.Content)
	}
	out, _ = f.tools.Dispatch(ctx, local, call("get_document", map[string]any{"source": "manual/long.md", "page": 4.0}), func(Event) {})
	if !out.IsError || !strings.Contains(out.Content, "3 page(s)") {
		t.Fatalf("out of range: %+v", out)
	}
	hiddenLikeMissing(t, f, "get_document", "source", "private/diary.md", "private/nothing.md")
}

// hiddenLikeMissing asserts that a cloud session gets, for private
// material, the answer it gets for material that does not exist.
func hiddenLikeMissing(t *testing.T, f *kbFixture, tool, arg, private, missing string, extra ...any) {
	t.Helper()
	answer := func(v string) string {
		args := map[string]any{arg: v}
		for i := 0; i+1 < len(extra); i += 2 {
			args[extra[i].(string)] = extra[i+1]
		}
		ctx, l, _ := turnCtx()
		out, err := f.tools.Dispatch(ctx, cloud, call(tool, args), func(Event) {})
		if err != nil || l.Private() {
			t.Fatalf("%s(%s): %v (private %v)", tool, v, err, l.Private())
		}
		return strings.ReplaceAll(out.Content, v, "<ARG>")
	}
	if a, b := answer(private), answer(missing); a != b {
		t.Fatalf("%s tells private from missing:\n%s\n---\n%s", tool, a, b)
	}
}

func TestReadFileIsVaultMarkdownOnly(t *testing.T) {
	f := newKB(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	os.WriteFile(outside, []byte("outside"), 0o644)
	os.Symlink(outside, filepath.Join(f.root, "garden", "link.md"))
	ctx, l, _ := turnCtx()
	for _, p := range []string{"../x.md", "/etc/passwd", "garden/tomatoes.txt", "garden/link.md", "missing.md", ""} {
		out, err := f.tools.Dispatch(ctx, local, call("read_file", map[string]any{"path": p}), func(Event) {})
		if err != nil || !out.IsError {
			t.Errorf("%q was not refused: %v %+v", p, err, out)
		}
	}
	out, err := f.tools.Dispatch(ctx, local, call("read_file", map[string]any{"path": "garden/tomatoes.md"}), func(Event) {})
	if err != nil || !strings.Contains(out.Content, "full sun") || !strings.Contains(out.Content, BeginData) || l.Private() {
		t.Fatalf("read: %v %+v", err, out)
	}
	hiddenLikeMissing(t, f, "read_file", "path", "private/diary.md", "private/nothing.md")
	hiddenLikeMissing(t, f, "read_file", "path", "private/diary.md", "garden/nothing.md")
	os.Symlink(filepath.Join(f.root, "private", "diary.md"), filepath.Join(f.root, "garden", "diary-link.md"))
	hiddenLikeMissing(t, f, "read_file", "path", "garden/diary-link.md", "garden/nothing.md")
	f.tools.Dispatch(ctx, local, call("read_file", map[string]any{"path": "private/diary.md"}), func(Event) {})
	if !l.Private() {
		t.Fatal("reading a private note did not mark the turn private")
	}
}

func TestListStatsUpdateAndIndexVault(t *testing.T) {
	f := newKB(t)
	ctx, _, _ := turnCtx()
	out, _ := f.tools.Dispatch(ctx, cloud, call("list_documents", nil), func(Event) {})
	if strings.Contains(out.Content, "diary") || !strings.Contains(out.Content, "tomatoes") {
		t.Fatalf("cloud list shows private titles or misses public ones:\n%s", out.Content)
	}
	out, _ = f.tools.Dispatch(ctx, local, call("kb_stats", nil), func(Event) {})
	if !strings.Contains(out.Content, "4 documents") || !strings.Contains(out.Content, "note=") {
		t.Fatalf("stats:\n%s", out.Content)
	}
	out, _ = f.tools.Dispatch(ctx, local, call("update_document_metadata", map[string]any{"source": "https://nowhere", "title": "x"}), func(Event) {})
	if !out.IsError {
		t.Fatal("update of a missing paper succeeded")
	}
	os.WriteFile(filepath.Join(f.root, "garden", "beans.md"), []byte("# Beans\n\nRunner beans climb.\n"), 0o644)
	out, _ = f.tools.Dispatch(ctx, local, call("index_vault", nil), func(Event) {})
	if !strings.Contains(out.Content, "1 added") {
		t.Fatalf("index_vault: %+v", out)
	}
	kbOnly := &Session{ID: "k", Provider: "ollama", Model: "m", KBOnly: true}
	for _, d := range f.tools.Definitions(kbOnly) {
		if d.Name == "use_own_knowledge" {
			t.Fatal("use_own_knowledge offered to a kb_only session")
		}
	}
	if out, _ := f.tools.Dispatch(ctx, kbOnly, call("use_own_knowledge", map[string]any{"reason": "x"}), func(Event) {}); !out.IsError {
		t.Fatal("use_own_knowledge ran in a kb_only session")
	}
}

// waitConfirm returns the next confirm event's token.
func waitConfirm(t *testing.T, rec *recorder, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		rec.mu.Lock()
		var tokens []string
		for _, e := range rec.events {
			if e.Kind == EventConfirm {
				tokens = append(tokens, e.Data.(map[string]any)["token"].(string))
				if !strings.Contains(e.Text, kbtools.RemoveNotice) {
					t.Errorf("preview lacks the notice: %q", e.Text)
				}
			}
		}
		rec.mu.Unlock()
		if len(tokens) >= n {
			return tokens
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no %d confirm events", n)
	return nil
}

func TestRemoveDocumentNeedsTheHumanByToken(t *testing.T) {
	f := newKB(t)
	ctx, _, rec := turnCtx()
	type res struct {
		out llm.ToolOutcome
		err error
	}
	// Two stacked removals, answered in reverse order by token.
	first, second := make(chan res, 1), make(chan res, 1)
	go func() {
		o, err := f.tools.Dispatch(ctx, local, call("remove_document", map[string]any{"source": "garden/tomatoes.md"}), func(Event) {})
		first <- res{o, err}
	}()
	waitConfirm(t, rec, 1)
	go func() {
		o, err := f.tools.Dispatch(ctx, local, call("remove_document", map[string]any{"source": "private/diary.md"}), func(Event) {})
		second <- res{o, err}
	}()
	tokens := waitConfirm(t, rec, 2)
	if err := f.kb.Confirm.Answer(tokens[1], false); err != nil {
		t.Fatal(err)
	}
	r2 := <-second
	if r2.err != nil || !strings.Contains(r2.out.Content, "nothing was removed") {
		t.Fatalf("declined: %+v", r2)
	}
	if err := f.kb.Confirm.Answer(tokens[1], true); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a token answers once: %v", err)
	}
	if err := f.kb.Confirm.Answer(tokens[0], true); err != nil {
		t.Fatal(err)
	}
	r1 := <-first
	if r1.err != nil || !strings.Contains(r1.out.Content, "Removed 1 chunks") {
		t.Fatalf("confirmed: %+v", r1)
	}
	docs, _ := f.eng.Store.List(context.Background(), kb.Filter{}, 50)
	var keys []string
	for _, d := range docs {
		keys = append(keys, d.Key)
	}
	joined := strings.Join(keys, " ")
	if strings.Contains(joined, "tomatoes") || !strings.Contains(joined, "diary") {
		t.Fatalf("store after removals: %v", keys)
	}
	if _, err := os.Stat(filepath.Join(f.root, "garden", "tomatoes.md")); err != nil {
		t.Fatal("the file on disk was touched")
	}

	// A stopped turn cancels a pending confirmation as "no".
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := f.tools.Dispatch(cctx, local, call("remove_document", map[string]any{"source": "private/plans.md"}), func(Event) {})
		done <- err
	}()
	waitConfirm(t, rec, 3)
	cancel()
	if err := <-done; !errs.Is(err, errs.Cancelled) {
		t.Fatalf("stop during confirmation: %v", err)
	}
	if len(f.kb.Confirm.Pending()) != 0 {
		t.Fatal("a pending confirmation outlived its turn")
	}
}

func TestReplyCitationsAreASubsetOfEvidence(t *testing.T) {
	f := newKB(t)
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		out, err := req.Dispatch(ctx, llm.Block{ID: "1", Name: "search_kb", Arguments: map[string]any{"query": "tomato watering sun seedlings", "kind": "notes"}})
		if err != nil {
			return llm.TurnResult{}, err
		}
		if !strings.Contains(out.Content, "garden/tomatoes.md") {
			return llm.TurnResult{}, fmt.Errorf("search result: %s", out.Content)
		}
		reply := "Water deeply [source: garden/tomatoes.md]. Also see [source: made/up.md] and [source: https://arxiv.org/abs/9999.99999, p.2]."
		return llm.TurnResult{Messages: []llm.Message{llm.Text(llm.RoleAssistant, reply)}, Reply: reply}, nil
	})
	r.Tools = f.tools
	rec := runTurnToEnd(t, r, s, "how to water tomatoes?")
	last := s.Display[len(s.Display)-1]
	if len(last.Tools) != 1 || !strings.HasPrefix(last.Tools[0], "searched") {
		t.Fatalf("tool notes kept with the reply: %v", last.Tools)
	}
	if len(last.Citations) != 1 || last.Citations[0].Source != "garden/tomatoes.md" {
		t.Fatalf("citations %+v", last.Citations)
	}
	if strings.Contains(last.Text, "made/up.md") || strings.Contains(last.Text, "9999") || !strings.Contains(last.Text, "[source: garden/tomatoes.md]") {
		t.Fatalf("reply text: %q", last.Text)
	}
	if !s.Private {
		t.Fatal("the search returned a private note (plans.md); the session must be private now")
	}
	var reply Event
	for _, e := range rec.events {
		if e.Kind == EventReply {
			reply = e
		}
	}
	if d := reply.Data.(map[string]any)["dropped_citations"]; d != 2 {
		t.Fatalf("dropped = %v", d)
	}
}

func TestCloudReplySaysHowManyWereWithheld(t *testing.T) {
	f := newKB(t)
	r, _ := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		if _, err := req.Dispatch(ctx, llm.Block{ID: "1", Name: "search_kb", Arguments: map[string]any{"query": "tomato grant"}}); err != nil {
			return llm.TurnResult{}, err
		}
		return llm.TurnResult{Reply: "Tomatoes like sun [source: garden/tomatoes.md]."}, nil
	})
	r.Tools = f.tools
	s := r.Sessions.New(llm.Spec{Provider: "anthropic", Model: "claude"}, false)
	done, err := r.Start(context.Background(), s, "tomatoes?", func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	last := s.Display[len(s.Display)-1].Text
	if !strings.Contains(last, "withheld from this cloud model") || s.Private {
		t.Fatalf("reply %q private %v", last, s.Private)
	}
}

func TestChatHistoryIsIndexedSearchedAndFollowsPrivacy(t *testing.T) {
	f := newKB(t)
	h := &HistoryIndexer{Store: f.eng.Store, Embed: f.eng.Embedder()}
	reply := "Tomato plants need deep watering."
	r, a := newRunner(t, func(context.Context, llm.TurnRequest) (llm.TurnResult, error) {
		return llm.TurnResult{Reply: reply}, nil
	})
	r.History, r.Tools = h, f.tools
	done, _ := r.Start(context.Background(), a, "how should I water tomato seedlings?", func(Event) {})
	<-done
	if a.IndexedExchanges != 1 {
		t.Fatalf("indexed %d", a.IndexedExchanges)
	}
	saved, _ := r.Sessions.Load(a.ID)
	if saved.IndexedExchanges != 1 {
		t.Fatal("the indexed count was not saved")
	}
	ctx, _, _ := turnCtx()
	b := &Session{ID: "b", Provider: "ollama", Model: "m"}
	out, err := f.tools.Dispatch(ctx, b, call("search_chat_history", map[string]any{"query": "watering tomato seedlings"}), func(Event) {})
	if err != nil || !strings.Contains(out.Content, "[source: chat:"+a.ID+"]") || !strings.Contains(out.Content, "deep watering") {
		t.Fatalf("%v\n%s", err, out.Content)
	}
	// The running session never finds itself.
	out, _ = f.tools.Dispatch(ctx, a, call("search_chat_history", map[string]any{"query": "watering tomato seedlings"}), func(Event) {})
	if strings.Contains(out.Content, "chat:"+a.ID) {
		t.Fatalf("own session returned:\n%s", out.Content)
	}
	// Once the session is private its chunks are too: a cloud model never
	// sees them, and is answered as if they did not exist.
	a.MarkPrivate()
	if err := h.Index(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	out, err = f.tools.Dispatch(ctx, cloud, call("search_chat_history", map[string]any{"query": "seedlings watering"}), func(Event) {})
	if err != nil || out.Content != "No earlier conversation matches: seedlings watering\n"+CloudCaveat {
		t.Fatalf("private history to cloud: %v\n%s", err, out.Content)
	}
	if err := h.Forget(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	if c, _ := f.eng.Store.Count(context.Background()); c.ByType[kb.DocChat] != 0 {
		t.Fatalf("forgotten session still indexed: %+v", c.ByType)
	}
}

func TestAddDocumentLocalAndArxivWithDuplicateQuestion(t *testing.T) {
	f := newKB(t)
	srv := digesttest.ServeArxiv(t, "../pdf/testdata/annotated.pdf")
	papers := &Papers{Papers: kbtools.Papers{Arxiv: digesttest.Client(srv), Options: ingest.Options{ChunkSize: 1024}}}
	f.tools.Tools["add_document"] = AddDocumentTool(f.kb, papers)
	ctx, l, _ := turnCtx()
	local, _ := filepath.Abs("../pdf/testdata/annotated.pdf")
	add := func(args map[string]any) llm.ToolOutcome {
		t.Helper()
		out, err := f.tools.Dispatch(ctx, local2, call("add_document", args), func(Event) {})
		if err != nil {
			t.Fatalf("%v", err)
		}
		return out
	}
	out := add(map[string]any{"source": local, "mode": "full_text", "authors": "Ada Example"})
	if out.IsError || !strings.Contains(out.Content, `Added "Sparse Attention for Long Documents" (full_text`) || !strings.Contains(out.Content, "4 annotations") {
		t.Fatalf("local add: %+v", out)
	}
	count := func() int { c, _ := f.eng.Store.Count(context.Background()); return c.Chunks }
	n := count()
	out = add(map[string]any{"source": local, "mode": "full_text", "authors": "Ada Example"})
	if !strings.Contains(out.Content, "allow_duplicate=true") || count() != n {
		t.Fatalf("duplicate: %+v (chunks %d -> %d)", out, n, count())
	}
	out = add(map[string]any{"source": local, "mode": "full_text", "authors": "Ada Example", "allow_duplicate": true})
	if out.IsError || count() != n {
		t.Fatalf("replace: %+v (chunks %d -> %d)", out, n, count())
	}
	// arXiv: metadata from the API, PDF downloaded, filed under the abs link.
	out = add(map[string]any{"source": "https://arxiv.org/abs/2611.01234", "mode": "full_text"})
	if out.IsError || !strings.Contains(out.Content, "[source: http") || !strings.Contains(out.Content, "Cytometry") {
		t.Fatalf("arxiv add: %+v", out)
	}
	if len(l.evidence) == 0 {
		t.Fatal("an added paper may be cited in the reply")
	}
	// Filed under its abs link with no local path (the download was a
	// temporary file); its arXiv DOI names the same paper.
	stored, _ := f.eng.Store.Document(context.Background(), kb.Filter{Source: "https://arxiv.org/abs/2611.01234"})
	if len(stored) == 0 || stored[0].Meta.FilePath != "" || stored[0].Meta.Extra[ingest.YearField] != "2026" {
		t.Fatalf("stored arXiv paper: %+v", stored)
	}
	if out = add(map[string]any{"source": "https://doi.org/10.48550/arXiv.2611.01234", "mode": "full_text"}); !strings.Contains(out.Content, "allow_duplicate=true") {
		t.Fatalf("the arXiv DOI of a stored paper: %+v", out)
	}
	if out = add(map[string]any{"source": "doi:10.1038/nature12373"}); !out.IsError || !strings.Contains(out.Content, "Hint:") {
		t.Fatalf("a DOI Jarvis cannot fetch: %+v", out)
	}
	// A PDF in a private vault folder never becomes a public paper.
	secret := filepath.Join(f.root, "private", "scan.pdf")
	pdf, _ := os.ReadFile(local)
	os.WriteFile(secret, pdf, 0o644)
	if _, err := f.tools.Dispatch(ctx, local2, call("add_document", map[string]any{"source": secret, "mode": "full_text"}), func(Event) {}); !errs.Is(err, errs.Privacy) {
		t.Fatalf("private PDF: %v", err)
	}
	// Summary mode without a model, and a relative path, are recoverable errors.
	if out = add(map[string]any{"source": local, "mode": "summary"}); !out.IsError {
		t.Fatalf("summary without a model: %+v", out)
	}
	if out = add(map[string]any{"source": "paper.pdf", "mode": "full_text"}); !out.IsError || !strings.Contains(out.Content, "Hint:") {
		t.Fatalf("relative path: %+v", out)
	}
}

var local2 = &Session{ID: "l2", Provider: "ollama", Model: "m"}

func TestStopWhileAToolWaitsForTheHuman(t *testing.T) {
	f := newKB(t)
	r, s := newRunner(t, func(ctx context.Context, req llm.TurnRequest) (llm.TurnResult, error) {
		_, err := req.Dispatch(ctx, llm.Block{ID: "1", Name: "remove_document", Arguments: map[string]any{"source": "garden/tomatoes.md"}})
		return llm.TurnResult{Reply: "done"}, err
	})
	r.Tools = f.tools
	rec := &recorder{}
	done, err := r.Start(context.Background(), s, "remove the tomato note", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	waitConfirm(t, rec, 1)
	r.Stop(s.ID)
	<-done
	if len(s.Messages) != 0 || len(s.Display) != 0 || !strings.Contains(rec.kinds(), "stopped") || strings.Contains(rec.kinds(), "reply") {
		t.Fatalf("after stop: %d messages, events %s", len(s.Messages), rec.kinds())
	}
	if len(f.kb.Confirm.Pending()) != 0 {
		t.Fatal("the confirmation outlived the stopped turn")
	}
	docs, _ := f.eng.Store.List(context.Background(), kb.Filter{FilePath: "garden/tomatoes.md"}, 1)
	if len(docs) != 1 {
		t.Fatal("a stopped removal deleted the note")
	}
}

func TestUpdateFilePathAndFieldFilters(t *testing.T) {
	f := newKB(t)
	ctx, _, _ := turnCtx()
	dir := t.TempDir()
	old, moved := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md")
	os.WriteFile(old, []byte("x"), 0o644)
	c := kb.Chunk{Content: "tomato", EmbedText: "tomato", Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: "file://" + old, FilePath: old}}
	if err := f.eng.Store.Ingest(context.Background(), f.eng.Embedder(), []kb.Chunk{c}, nil); err != nil {
		t.Fatal(err)
	}
	out, _ := f.tools.Dispatch(ctx, local, call("update_file_path", map[string]any{"source": "file://" + old, "new_path": moved}), func(Event) {})
	if !out.IsError {
		t.Fatal("a move to a missing file was accepted")
	}
	os.Rename(old, moved)
	out, _ = f.tools.Dispatch(ctx, local, call("update_file_path", map[string]any{"source": "file://" + old, "new_path": moved}), func(Event) {})
	if out.IsError || !strings.Contains(out.Content, "Updated 1 chunks") {
		t.Fatalf("%+v", out)
	}
	if docs, _ := f.eng.Store.List(context.Background(), kb.Filter{Source: "file://" + moved}, 1); len(docs) != 1 {
		t.Fatal("source not updated")
	}
	out, _ = f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "tomato", "fields": "status=x"}), func(Event) {})
	if !out.IsError || !strings.Contains(out.Content, "x_<key>=value") {
		t.Fatalf("bad field filter: %+v", out)
	}
	out, _ = f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "tomato", "fields": "x_crop=none"}), func(Event) {})
	if out.IsError || !strings.Contains(out.Content, "No matches") {
		t.Fatalf("field filter must narrow the pool: %+v", out)
	}
}

func TestToolEventsCarryEvidence(t *testing.T) {
	f := newKB(t)
	ctx, _, _ := turnCtx()
	var ev Event
	f.tools.Dispatch(ctx, local, call("search_kb", map[string]any{"query": "tomato watering sun seedlings", "kind": "notes", "n": 2.0}), func(e Event) { ev = e })
	data := ev.Data.(map[string]any)
	cites := data["evidence"].([]Citation)
	if data["tool"] != "search_kb" || len(cites) != 2 || cites[0].Source != "garden/tomatoes.md" || cites[0].ChunkID == 0 {
		t.Fatalf("tool event %+v", ev)
	}
}
