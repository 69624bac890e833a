package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fmt"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/engine"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/ledger"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
)

func TestJobsIndexTheVaultAndTheInbox(t *testing.T) {
	cfg := configtest.New(t)
	root := t.TempDir()
	cfg.Vault.Path = filepath.Join(root, "vault")
	os.MkdirAll(cfg.Vault.Path, 0o755)
	os.WriteFile(filepath.Join(cfg.Vault.Path, "idea.md"), []byte("# Idea\n\nSparse attention for my thesis.\n"), 0o644)
	cfg.Sync.PDFWatchDir = filepath.Join(root, "inbox")
	os.MkdirAll(cfg.Sync.PDFWatchDir, 0o755)
	pdf, _ := os.ReadFile("../pdf/testdata/paper.pdf")
	os.WriteFile(filepath.Join(cfg.Sync.PDFWatchDir, "paper.pdf"), pdf, 0o644)
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = filepath.Join(root, "bow"), ""
	if err := embedtest.WriteEmbedder(cfg.RAG.EmbedModel, embedtest.Words("sparse attention thesis idea window size")); err != nil {
		t.Fatal(err)
	}
	cfg.Chat.OllamaURL = "http://127.0.0.1:1" // no model: metadata inference degrades, ingest goes on

	var lines []string
	svc := &Services{Cfg: cfg, Getenv: func(string) string { return "" }, Settle: time.Millisecond,
		Log: func(f string, a ...any) { lines = append(lines, strings.TrimSpace(strings.ReplaceAll(f, "%", ""))) }}
	defer svc.Close()
	jobs, disabled, err := jsync.BuildJobs(cfg, svc.Work(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if _, off := disabled["digest"]; !off {
		t.Fatal("digest must be disabled by default")
	}
	// A request body older than ledger.keep_days, and a fresh one.
	book, err := ledger.Shared(cfg.LedgerDir(), cfg.Ledger.KeepDays)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []ledger.Record{
		{Started: time.Now().AddDate(0, 0, -(cfg.Ledger.KeepDays + 5)), Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m", Body: "an old request body"},
		{Started: time.Now(), Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m", Body: "a fresh request body"},
	} {
		if _, err := book.Begin(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	s := &jsync.Scheduler{Jobs: jobs, StatusPath: filepath.Join(root, "status.json"), Disabled: disabled}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	ran := s.RunDue(context.Background())
	if strings.Join(ran, ",") != "ledger_prune,pdf_scan,vault_refresh" {
		t.Fatalf("ran %v", ran)
	}
	// The scheduled prune dropped the old body and kept both records.
	recs, err := book.List(context.Background(), ledger.Filter{})
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records after the prune: %v", len(recs), err)
	}
	for _, r := range recs {
		if old := r.Started.Before(time.Now().AddDate(0, 0, -cfg.Ledger.KeepDays)); old != (r.Body == "") {
			t.Fatalf("after the scheduled prune: started %s, body %q", r.Started, r.Body)
		}
	}
	st := s.Status()
	for _, id := range ran {
		if st.Jobs[id].LastError != "" || st.Jobs[id].LastSuccess.IsZero() {
			t.Fatalf("%s: %+v", id, st.Jobs[id])
		}
	}
	e, err := svc.Engine()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := e.Store.Count(context.Background())
	if c.ByType[kb.DocNote] == 0 || c.ByType[kb.DocPaper] == 0 {
		t.Fatalf("counts %+v", c)
	}

	// Without models the jobs still index: notes are found by keyword and
	// wait for their vectors.
	cfg2 := configtest.New(t)
	cfg2.Vault = cfg.Vault
	cfg2.RAG.EmbedModel = "BAAI/bge-small-en-v1.5"
	svc2 := &Services{Cfg: cfg2}
	defer svc2.Close()
	if err := svc2.RefreshVault(context.Background()); err != nil {
		t.Fatalf("vault refresh without models: %v", err)
	}
	e2, _ := svc2.Engine()
	if st, err := e2.Status(context.Background()); err != nil || st.Chunks == 0 || st.Embed.Loaded || st.Mode() != "keyword" {
		t.Fatalf("status without models: %+v %v", st, err)
	}
}

func TestInboxInsideAPrivateFolderIsRefused(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	cfg.Vault.PrivateDirs = []string{"private"}
	cfg.Sync.PDFWatchDir = filepath.Join(cfg.Vault.Path, "private", "inbox")
	os.MkdirAll(cfg.Sync.PDFWatchDir, 0o755)
	_, err := NewScheduler(cfg, &Services{Cfg: cfg})
	if err == nil || !strings.Contains(err.Error(), "private vault folder") {
		t.Fatalf("err = %v", err)
	}
}

// The background of a long-running process: a note saved in the vault is
// found by keyword with no model; installing the model (files appearing in
// the configured folder) and a kick start the backfill, after which search
// is hybrid.
func TestBackgroundWatchesTheVaultAndBackfillsWhenAModelArrives(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	modelDir := filepath.Join(t.TempDir(), "bow")
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = modelDir, ""
	svc := &Services{Cfg: cfg, Log: t.Logf}
	defer svc.Close()
	finished := make(chan kb.BackfillResult, 4)
	bg := &Background{Svc: svc, Watch: true, Finished: func(r kb.BackfillResult, err error) {
		if err != nil {
			t.Errorf("backfill: %v", err)
		}
		finished <- r
	}}
	bg.Start()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { bg.Run(ctx); close(stopped) }()
	defer func() { cancel(); <-stopped }()

	os.WriteFile(filepath.Join(cfg.Vault.Path, "kettle.md"), []byte("# Kettle\nDescale the kettle monthly."), 0o644)
	e, _ := svc.Engine()
	deadline := time.Now().Add(2 * time.Second)
	for {
		res, err := e.Searcher.Search(context.Background(), "kettles", 5, kb.Filter{})
		if err == nil && len(res.Hits) == 1 {
			if res.Mode.Dense {
				t.Fatalf("dense without a model: %+v", res.Mode)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("note not found by keyword within 2 s: %+v %v", res, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := embedtest.WriteEmbedder(modelDir, embedtest.Words("descale the kettle monthly")); err != nil {
		t.Fatal(err)
	}
	bg.Kick()
	select {
	case r := <-finished:
		if r.Embedded != 1 {
			t.Fatalf("backfill embedded %d", r.Embedded)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("installing the model did not start the backfill")
	}
	res, err := e.Searcher.Search(context.Background(), "kettle", 5, kb.Filter{})
	if err != nil || !res.Mode.Dense || res.Mode.Vectors != 1 {
		t.Fatalf("after the backfill: %+v %v", res.Mode, err)
	}
}

// A job error that echoes an API key reaches neither the status file nor
// logs/sync.log with the key in it.
func TestSchedulerKeepsSecretsOutOfStatusAndLog(t *testing.T) {
	const key = "sk-ant-api03-secret-0123456789"
	t.Setenv("ANTHROPIC_API_KEY", key)
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	log, err := OpenSyncLog(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	svc := &Services{Cfg: cfg, Getenv: os.Getenv, Log: log.Logf}
	defer svc.Close()
	s, err := NewScheduler(cfg, svc)
	if err != nil {
		t.Fatal(err)
	}
	s.Jobs = append(s.Jobs, jsync.Job{ID: "aaa_leaky", Schedule: jsync.Daily{Hour: 3}, AtStart: true, Run: func(context.Context, jsync.Recorder) error {
		svc.logf("calling the model with x-api-key %s", key)
		return fmt.Errorf("POST https://api.anthropic.com: 403 Forbidden key %s: invalid x-api-key %s", key, key)
	}})
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	s.RunDue(context.Background())
	if err := s.RunNow(context.Background(), "aaa_leaky"); err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("RunNow: %v", err)
	}
	status, _ := os.ReadFile(StatusPath(cfg))
	logged, _ := os.ReadFile(filepath.Join(cfg.LogsDir(), LogName))
	for name, b := range map[string][]byte{"status": status, "sync.log": logged} {
		if !strings.Contains(string(b), "403 Forbidden key [REDACTED]") || strings.Contains(string(b), key) {
			t.Fatalf("%s:\n%s", name, b)
		}
	}
}

// A process that already opened the knowledge base (the window) shares it
// with its background: one engine, left open by Close. A backfill
// cancelled after its first batch keeps that batch and finishes on the
// next kick.
func TestBackgroundOnASharedEngineAndACancelledBackfill(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	var words []string
	for i := range kb.BackfillBatch + 36 {
		text := fmt.Sprintf("Note %d about kettles", i)
		words = append(words, text)
		os.WriteFile(filepath.Join(cfg.Vault.Path, fmt.Sprintf("n%03d.md", i)), []byte(text), 0o644)
	}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = filepath.Join(t.TempDir(), "bow"), ""
	if err := embedtest.WriteEmbedder(cfg.RAG.EmbedModel, embedtest.Words(words...)); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Refresher().Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	svc := &Services{Cfg: cfg, Log: t.Logf}
	svc.Share(e)
	if got, _ := svc.Engine(); got != e {
		t.Fatal("the shared engine is not used")
	}

	type end struct {
		res kb.BackfillResult
		err error
	}
	ends := make(chan end, 4)
	var bg *Background
	cancelled := false
	bg = &Background{Svc: svc,
		Progress: func(done, total int) {
			if done > 0 && !cancelled {
				cancelled = true
				bg.CancelBackfill()
			}
		},
		Finished: func(r kb.BackfillResult, err error) { ends <- end{r, err} }}
	bg.Start()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { bg.Run(ctx); close(stopped) }()
	next := func() end {
		select {
		case x := <-ends:
			return x
		case <-time.After(20 * time.Second):
			t.Fatal("the backfill did not finish")
			return end{}
		}
	}
	// The next batch is embedded while the first commits, and vectors
	// already computed are kept: a backfill stopped after its first batch
	// has committed that one, or both.
	const total = kb.BackfillBatch + 36
	first := next()
	if !errs.Is(first.err, errs.Cancelled) || (first.res.Embedded != kb.BackfillBatch && first.res.Embedded != total) {
		t.Fatalf("cancelled backfill: %+v %v", first.res, first.err)
	}
	if first.res.Embedded < total { // a resumed backfill embeds the rest
		bg.Kick()
		second := next()
		if second.err != nil || second.res.Embedded != total-first.res.Embedded {
			t.Fatalf("resumed backfill: %+v %v after %d", second.res, second.err, first.res.Embedded)
		}
	}
	if p, _, err := e.Store.PendingCount(context.Background(), first.res.Model.ID); err != nil || p != 0 {
		t.Fatalf("%d chunks still wait for a vector (%v)", p, err)
	}
	cancel()
	<-stopped
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	// The shared engine is still open for its owner.
	if st, err := e.Status(context.Background()); err != nil || st.Pending != 0 || st.Chunks != kb.BackfillBatch+36 {
		t.Fatalf("after Close: %+v %v", st, err)
	}
}

// A window beside a tray: both watch the vault, the tray (which embeds at
// low priority) takes the backfill and the window's own searches never
// compete with a backfill in its process; with the tray gone the window
// embeds itself, a few seconds late.
func TestWindowYieldsTheBackfillToTheTray(t *testing.T) {
	cfg := configtest.New(t)
	cfg.Vault.Path = t.TempDir()
	modelDir := filepath.Join(t.TempDir(), "bow")
	if err := embedtest.WriteEmbedder(modelDir, embedtest.Words("descale the kettle monthly prune the roses")); err != nil {
		t.Fatal(err)
	}
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = modelDir, ""
	type result struct {
		who string
		n   int
	}
	results := make(chan result, 16)
	run := func(who string, yield func() bool) context.CancelFunc {
		svc := &Services{Cfg: cfg, Log: t.Logf}
		bg := &Background{Svc: svc, Watch: true, YieldTo: yield, Finished: func(r kb.BackfillResult, err error) {
			if err != nil && !errs.Is(err, errs.Conflict) && !errors.Is(err, context.Canceled) { // the test's end stops it
				t.Errorf("%s backfill: %v", who, err)
			}
			results <- result{who, r.Embedded}
		}}
		bg.Start()
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		go func() { bg.Run(ctx); close(stopped) }()
		return func() { cancel(); <-stopped; svc.Close() }
	}
	var trayRunning atomic.Bool
	trayRunning.Store(true)
	if s, err := kb.Open(cfg.RAG.Dir); err != nil { // the store exists before both open it
		t.Fatal(err)
	} else {
		s.Close()
	}
	stopTray := run("tray", nil)
	stopWindow := run("window", trayRunning.Load)
	defer stopWindow()

	embeddedBy := func(note, want string) {
		t.Helper()
		os.WriteFile(filepath.Join(cfg.Vault.Path, note), []byte("# Note\nDescale the kettle monthly."), 0o644)
		deadline := time.After(15 * time.Second)
		for {
			select {
			case r := <-results:
				if r.n == 0 {
					continue
				}
				if r.who != want {
					t.Fatalf("%s embedded %s; want %s", r.who, note, want)
				}
				return
			case <-deadline:
				t.Fatalf("%s was not embedded", note)
			}
		}
	}
	embeddedBy("kettle.md", "tray")
	time.Sleep(yieldDelay + time.Second) // the window's turn came and found nothing left
	select {
	case r := <-results:
		if r.n > 0 {
			t.Fatalf("%s embedded %d more", r.who, r.n)
		}
	default:
	}
	stopTray()
	trayRunning.Store(false)
	embeddedBy("roses.md", "window")
}
