package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
)

func TestJobsIndexTheVaultAndTheInbox(t *testing.T) {
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
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
	s := &jsync.Scheduler{Jobs: jobs, StatusPath: filepath.Join(root, "status.json"), Disabled: disabled}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	ran := s.RunDue(context.Background())
	if strings.Join(ran, ",") != "pdf_scan,vault_refresh" {
		t.Fatalf("ran %v", ran)
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

	// Without models the jobs fail with the reason, and are retried later.
	cfg2 := *cfg
	cfg2.RAG.EmbedModel = "BAAI/bge-small-en-v1.5"
	svc2 := &Services{Cfg: &cfg2}
	if err := svc2.RefreshVault(context.Background()); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("missing model: %v", err)
	}
}

func TestInboxInsideAPrivateFolderIsRefused(t *testing.T) {
	t.Setenv("JARVIS_HOME", t.TempDir())
	cfg, _ := config.Load()
	cfg.Vault.Path = t.TempDir()
	cfg.Vault.PrivateDirs = []string{"private"}
	cfg.Sync.PDFWatchDir = filepath.Join(cfg.Vault.Path, "private", "inbox")
	os.MkdirAll(cfg.Sync.PDFWatchDir, 0o755)
	_, err := NewScheduler(cfg, &Services{Cfg: cfg})
	if err == nil || !strings.Contains(err.Error(), "private vault folder") {
		t.Fatalf("err = %v", err)
	}
}

// A job error that echoes an API key reaches neither the status file nor
// logs/sync.log with the key in it.
func TestSchedulerKeepsSecretsOutOfStatusAndLog(t *testing.T) {
	t.Setenv("JARVIS_HOME", t.TempDir())
	const key = "sk-ant-api03-secret-0123456789"
	t.Setenv("ANTHROPIC_API_KEY", key)
	cfg, err := config.Load()
	if err != nil {
		t.Fatal(err)
	}
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
