package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
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
	"github.com/jarvis-kb/jarvis/backend/kbtools/kbtoolstest"
	"github.com/jarvis-kb/jarvis/backend/loopbacktest"
	"github.com/jarvis-kb/jarvis/backend/models/hubtest"
	"github.com/jarvis-kb/jarvis/backend/ops"
)

var firstRunNotes = map[string]string{
	"garden/tomatoes.md": "# Tomatoes\n\nTomato plants need full sun and deep watering twice a week.\n",
	"garden/roses.md":    "# Roses\n\nPrune roses in late winter.\n",
	"journal/today.md":   "# Today\n\nWorried about the grant budget.\n",
}

// fresh is a first launch: no config file, no vault, no models, no chat
// model that answers; a folder of notes waits to be chosen, and a loopback
// hub serves the fixture models in Hugging Face's layout.
func fresh(t *testing.T, provider string) (*Services, string, chan ops.Op) {
	t.Helper()
	return freshWith(t, provider, firstRunNotes)
}

// freshWith is fresh with these notes waiting to be chosen.
func freshWith(t *testing.T, provider string, firstRunNotes map[string]string) (*Services, string, chan ops.Op) {
	t.Helper()
	t.Setenv("HOME", t.TempDir()) // ~/vault does not exist
	for _, k := range []string{"VAULT_PATH", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "HF_TOKEN", "PDF_WATCH_DIR"} {
		t.Setenv(k, "")
	}
	t.Setenv("CHAT_PROVIDER", provider)
	t.Setenv("OLLAMA_HOST", loopbacktest.FreeAddr(t))
	notes := t.TempDir()
	kbtoolstest.WriteVault(t, notes, firstRunNotes)
	texts := slices.Collect(maps.Values(firstRunNotes))
	repos, err := hubtest.WriteManifestModels(t.TempDir(), embedtest.Words(append(texts, "how do I water tomatoes")...))
	if err != nil {
		t.Fatal(err)
	}
	hub := httptest.NewServer(hubtest.Handler(repos))
	t.Cleanup(hub.Close)
	t.Setenv("HF_ENDPOINT", hub.URL)
	cfg := configtest.New(t)
	ag, err := agent.New(cfg, agent.Options{Getenv: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan ops.Op, 1024)
	s := NewServices(cfg, ag, func(name string, data any) {
		if o, ok := data.(ops.Op); ok {
			events <- o
		}
	}, os.Getenv)
	s.Start()
	t.Cleanup(func() { s.Close() })
	return s, notes, events
}

// nextOp waits for the first operation of kind to end.
func nextOp(t *testing.T, events chan ops.Op, kind string) ops.Op {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case o := <-events:
			if o.Kind == kind && o.State != ops.Running {
				return o
			}
		case <-timeout:
			t.Fatalf("no %s operation ended", kind)
		}
	}
}

// The window's first launch, end to end over the real services: the setup
// state names the three missing pieces; choosing the vault indexes it at
// once (keyword search); a question gets a cited search-only answer; the
// model download loads the models without a restart and the backfill,
// shown as an operation, makes search hybrid.
func TestFirstRunFromNothingToHybridSearch(t *testing.T) {
	s, notes, events := fresh(t, "anthropic") // no key: no model to ask
	st := s.Setup.State()
	for _, k := range []string{"vault", "chat", "models"} {
		if st.Issues[k].Message == "" {
			t.Fatalf("a fresh home should ask about %s: %+v", k, st.Issues)
		}
	}
	if st.Complete || st.Ollama.Running || !strings.Contains(st.Ollama.Problem, "not running") || st.DownloadMB != 220 {
		t.Fatalf("fresh state: %+v", st)
	}
	if _, err := s.Setup.ChooseFolder(); !errs.Is(err, errs.NotFound) {
		t.Fatalf("no dialog wired: %v", err)
	}
	s.Setup.PickFolder = func(string) (string, error) { return notes, nil }
	path, err := s.Setup.ChooseFolder()
	if err != nil || path != notes {
		t.Fatalf("dialog: %q %v", path, err)
	}
	id, err := s.Setup.SetVault(path)
	if err != nil || id == "" {
		t.Fatalf("set vault: %q %v", id, err)
	}
	if o := nextOp(t, events, "vault"); o.State != ops.Done || !strings.Contains(o.Result, "3 added") {
		t.Fatalf("indexing: %+v", o)
	}
	st = s.Setup.State()
	if _, missing := st.Issues["vault"]; missing || strings.Join(st.Vault.Folders, ",") != "garden,journal" || st.Search.Mode != "keyword" {
		t.Fatalf("after choosing the vault: %+v", st)
	}
	res, err := s.Library.Search("watering tomato", 5)
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Citation.FilePath != "garden/tomatoes.md" || res.Mode != "keyword" {
		t.Fatalf("keyword search: %v %+v", err, res)
	}
	if _, err := s.Setup.SetPrivateDirs([]string{"journal"}); err != nil {
		t.Fatal(err)
	}
	nextOp(t, events, "vault")
	res, _ = s.Library.Search("grant budget", 5)
	if len(res.Hits) == 0 || !res.Hits[0].Private {
		t.Fatalf("journal is private now: %+v", res.Hits)
	}

	// A question with no model: the best passages, cited and openable.
	v, err := s.Chat.New("", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Chat.Send(v.ID, "how do I water tomatoes"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); s.core.agent().Runner.Busy(v.ID) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	v, _ = s.Chat.Open(v.ID)
	last := v.Display[len(v.Display)-1]
	if !last.Offline || len(last.Citations) == 0 || last.Citations[0].FilePath != "garden/tomatoes.md" {
		t.Fatalf("search-only answer: %+v", last)
	}
	if v.Display[0].Offline {
		t.Fatal("the question is not an offline answer")
	}
	var opened string
	s.Library.Open = func(p string) error { opened = p; return nil }
	if err := s.Library.OpenCitation(last.Citations[0]); err != nil || opened != filepath.Join(notes, "garden", "tomatoes.md") {
		t.Fatalf("the citation opens the note: %q %v", opened, err)
	}

	// The models: downloaded from the loopback hub, loaded, backfilled.
	if _, err := s.Settings.FetchModels(); err != nil {
		t.Fatal(err)
	}
	if o := nextOp(t, events, "models"); o.State != ops.Done || !strings.Contains(o.Result, "embedded in the background") {
		t.Fatalf("download: %+v", o)
	}
	if o := nextOp(t, events, "embed"); o.State != ops.Done || !strings.Contains(o.Result, "search is hybrid") {
		t.Fatalf("backfill: %+v", o)
	}
	status, err := s.Library.Status()
	if err != nil || status.Mode != "hybrid (keyword + dense) + rerank" || status.Pending != 0 {
		t.Fatalf("after the backfill: %+v %v", status, err)
	}
	if res, _ = s.Library.Search("watering tomato", 5); res.Mode != "hybrid (keyword + dense) + rerank" {
		t.Fatalf("search mode: %+v", res)
	}
	if st = s.Setup.State(); st.Issues["models"].Message != "" {
		t.Fatalf("models still missing: %+v", st.Issues)
	}
}

// A vault mostly in Chinese and Russian: the panel suggests the
// multilingual model and says the reranker ranks English only. Choosing it
// before it is downloaded keeps meaning-based search on the English model;
// the download switches the store over in the background, search staying
// hybrid throughout, and the choice is in config.toml.
func TestChoosingTheMultilingualModelSwitchesWithoutOutage(t *testing.T) {
	notes := map[string]string{
		"zh/快捷键.md":      "# 快捷键\n\n在设置里打开快捷键页面，就可以修改每个命令的快捷键。",
		"zh/模板.md":       "# 模板\n\n模板可以帮助你快速创建会议记录和读书笔记。",
		"ru/шаблоны.md":  "# Шаблоны\n\nШаблоны помогают быстро создавать заметки о встречах.",
		"en/tomatoes.md": "# Tomatoes\n\nWater the tomatoes deeply twice a week.",
	}
	s, dir, events := freshWith(t, "anthropic", notes)
	if _, err := s.Setup.SetVault(dir); err != nil {
		t.Fatal(err)
	}
	nextOp(t, events, "vault")
	if _, err := s.Settings.FetchModels(); err != nil {
		t.Fatal(err)
	}
	nextOp(t, events, "models")
	nextOp(t, events, "embed")
	const e5 = "intfloat/multilingual-e5-small"
	st := s.Setup.State()
	if st.Embedding.Sampled != 4 || st.Embedding.Suggest != "" {
		// Four chunks are too few to suggest anything.
		t.Fatalf("embedding state on four notes: %+v", st.Embedding)
	}
	// Enough of them to judge by.
	for i := range 30 {
		notes[fmt.Sprintf("zh/笔记%02d.md", i)] = fmt.Sprintf("# 笔记 %d\n\n研究人员常常在英文论文旁边用中文写批注，第%d条。", i, i)
	}
	kbtoolstest.WriteVault(t, dir, notes)
	if _, err := s.Setup.SetVault(dir); err != nil {
		t.Fatal(err)
	}
	nextOp(t, events, "vault")
	nextOp(t, events, "embed")
	st = s.Setup.State()
	if st.Embedding.Suggest != e5 || st.Embedding.Why == "" || !st.Embedding.RerankEnglishOnly || st.Embedding.Languages[0].Lang != "zh" {
		t.Fatalf("a mostly Chinese vault: %+v", st.Embedding)
	}
	if err := s.Setup.SetEmbedModel("cross-encoder/ms-marco-MiniLM-L6-v2"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a reranker is not an embedding model: %v", err)
	}
	if err := s.Setup.SetEmbedModel(e5); err != nil {
		t.Fatal(err)
	}
	hybrid := func(when string) {
		t.Helper()
		res, err := s.Library.Search("模板", 5)
		if err != nil || !strings.HasPrefix(res.Mode, "hybrid") || len(res.Hits) == 0 {
			t.Fatalf("%s: %v %+v", when, err, res)
		}
	}
	hybrid("chosen, not downloaded")
	st = s.Setup.State()
	if st.Issues["models"].Message == "" || st.Embedding.Suggest != "" || st.DownloadMB != 470 || !strings.Contains(st.Issues["models"].Hint, "≈ 470 MB") {
		t.Fatalf("the chosen model waits for its download: %+v %+v", st.Issues, st.Embedding)
	}
	if _, err := s.Settings.FetchModels(); err != nil {
		t.Fatal(err)
	}
	if o := nextOp(t, events, "models"); o.State != ops.Done {
		t.Fatalf("download: %+v", o)
	}
	hybrid("switching")
	if o := nextOp(t, events, "embed"); o.State != ops.Done {
		t.Fatalf("backfill: %+v", o)
	}
	hybrid("switched")
	res, _ := s.Library.Search("如何使用模板", 5)
	var marked []string
	for _, seg := range res.Hits[0].Excerpt {
		if seg.Match {
			marked = append(marked, seg.Text)
		}
	}
	if res.Hits[0].Citation.FilePath != "zh/模板.md" || strings.Join(marked, "|") != "模板" {
		t.Fatalf("the hit's excerpt marks what matched: %+v", res.Hits[0])
	}
	if info, err := s.core.agent().Engine.Store.Models(context.Background()); err != nil || info.Active.ID != e5 || !info.Target.IsZero() {
		t.Fatalf("the store's model after the switch: %+v %v", info, err)
	}
	cfgFile, _ := os.ReadFile(filepath.Join(s.core.cfg.Home, "config.toml"))
	if !strings.Contains(string(cfgFile), e5) {
		t.Fatalf("config.toml does not hold the choice:\n%s", cfgFile)
	}
}

// blockingModel speaks Ollama's chat protocol: it calls read_file on the
// given note and repeats the tool result, each answer only once release
// is closed.
func blockingModel(t *testing.T, note string, release chan struct{}) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/tags" {
			fmt.Fprint(w, `{"models":[{"name":"demo"}]}`)
			return
		}
		if r.URL.Path != "/api/chat" { // a preload (/api/generate) needs only a 200
			return
		}
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		<-release
		enc := json.NewEncoder(w) // one JSON object a line, as Ollama streams
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			enc.Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": "Read: " + last.Content + " [source: " + note + "]"}, "done": false})
		} else {
			enc.Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": "",
				"tool_calls": []any{map[string]any{"function": map[string]any{"name": "read_file", "arguments": map[string]any{"path": note}}}}}, "done": false})
		}
		enc.Encode(map[string]any{"message": map[string]any{"role": "assistant", "content": ""}, "done": true})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A new vault takes effect in the chat tools at once (the agent is
// rebuilt over the same knowledge base and drafts), and the change is
// refused while an answer is being written.
func TestVaultChangeRebuildsTheAgentAndWaitsForTurns(t *testing.T) {
	release := make(chan struct{})
	var url string
	s, _ := services(t, func(c *config.Config) {
		url = blockingModel(t, "ideas/plan.md", release)
		c.Chat.OllamaURL, c.Chat.OllamaModel = url, "demo"
	})
	before := s.core.agent()
	other := t.TempDir()
	os.MkdirAll(filepath.Join(other, "ideas"), 0o755)
	os.WriteFile(filepath.Join(other, "ideas", "plan.md"), []byte("# Plan\n\nBuild a greenhouse.\n"), 0o644)

	v, _ := s.Chat.New("", true)
	if err := s.Chat.Send(v.ID, "read my plan"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Setup.SetVault(other); !errs.Is(err, errs.Conflict) || errs.HintOf(err) == "" {
		t.Fatalf("a vault change while an answer is written: %v", err)
	}
	if s.core.agent() != before || s.core.cfg.Vault.Path == other {
		t.Fatal("the refused change was applied")
	}
	close(release)
	wait := func() {
		for deadline := time.Now().Add(10 * time.Second); s.core.agent().Runner.Busy(v.ID) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		}
	}
	wait()
	if v, _ = s.Chat.Open(v.ID); !v.Display[len(v.Display)-1].NoEvidence {
		t.Fatalf("the old vault has no plan: %+v", v.Display)
	}

	if _, err := s.Setup.SetVault(other); err != nil {
		t.Fatal(err)
	}
	after := s.core.agent()
	if after == before || after.Engine != before.Engine || after.Drafts != before.Drafts || s.Editor.ws != after.Drafts {
		t.Fatal("the agent must be rebuilt over the same knowledge base and drafts")
	}
	if err := s.Chat.Send(v.ID, "read my plan again"); err != nil {
		t.Fatal(err)
	}
	wait()
	if v, _ = s.Chat.Open(v.ID); !strings.Contains(v.Display[len(v.Display)-1].Text, "Build a greenhouse") {
		t.Fatalf("the chat tools read the new vault: %+v", v.Display[len(v.Display)-1])
	}

	// A new API key reaches the rebuilt agent's redactor.
	const key = "sk-or-v1-0123456789abcdef0123456789abcdef"
	if err := s.Setup.SetAPIKey("openrouter", key); err != nil {
		t.Fatal(err)
	}
	if red := s.core.agent().Runner.Redact("boom " + key); strings.Contains(red, key) {
		t.Fatalf("the new key is not redacted: %q", red)
	}
	if st := s.Setup.State(); !st.Keys["openrouter"] || strings.Contains(fmt.Sprintf("%+v", st), key) {
		t.Fatal("the state says a key is set and never shows it")
	}
	if err := s.Setup.SetChat("ollama", "demo"); err != nil {
		t.Fatal(err)
	}
}

// A turn's citations keep opening after the display conversion.
func TestDisplayMarksOnlySearchOnlyAnswers(t *testing.T) {
	c := &Chat{core: &core{}}
	c.core.ag.Store(&agent.Agent{Runner: &chat.Runner{}})
	s := &chat.Session{ID: "x", Display: []chat.DisplayItem{
		{Role: "user", Text: "**" + chat.OfflineLabel + ".** typed by the user"},
		{Role: "assistant", Text: "**" + chat.OfflineLabel + ".** The chat model could not be reached."},
		{Role: "assistant", Text: "A written answer that mentions " + chat.OfflineLabel},
	}}
	v := c.view(s)
	if v.Display[0].Offline || !v.Display[1].Offline || v.Display[2].Offline {
		t.Fatalf("%+v", v.Display)
	}
}
