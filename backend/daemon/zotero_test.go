package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/ingest"
	"github.com/jarvis-kb/jarvis/backend/kb"
	jsync "github.com/jarvis-kb/jarvis/backend/sync"
	"github.com/jarvis-kb/jarvis/backend/zotero"
	"github.com/jarvis-kb/jarvis/backend/zotero/zoterotest"
)

// zoteroServices are the tray's services over a fresh, keyword-only data
// directory whose chosen Zotero library holds item; the caller closes
// them.
func zoteroServices(t *testing.T, item zotero.Item) (*config.Config, *Services) {
	t.Helper()
	cfg := configtest.New(t)
	cfg.RAG.EmbedModel, cfg.RAG.RerankModel = "", ""
	cfg.Zotero.DataDir = t.TempDir()
	db := zoterotest.New(t, cfg.Zotero.DataDir)
	db.AddItem(item)
	db.Close()
	return cfg, &Services{Cfg: cfg, Log: t.Logf}
}

// The scheduler's zotero_sync job indexes the library, and a check of an
// unchanged zotero.sqlite reads nothing: here the file is replaced by
// bytes of the same size and time, which a read would reject.
func TestZoteroJobSyncsAndSkipsAnUnchangedLibrary(t *testing.T) {
	cfg, svc := zoteroServices(t, zotero.Item{Key: "ITEM2345", Type: "book", Title: "Gardens of the North", Fields: map[string]string{"abstractNote": "Rhubarb in the Arctic."}})
	defer svc.Close()
	cfg.Vault.Path = t.TempDir()
	jobs, _, err := jsync.BuildJobs(cfg, svc.Work(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var job jsync.Job
	for _, j := range jobs {
		if j.ID == "zotero_sync" {
			job = j
		}
	}
	if job.Run == nil {
		t.Fatal("no zotero_sync job for a chosen library")
	}
	if err := job.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	e, _ := svc.Engine()
	if docs, err := e.Store.List(context.Background(), kb.Filter{Source: ingest.ZoteroSourceFor("ITEM2345")}, 0); err != nil || len(docs) != 1 {
		t.Fatalf("the item was not indexed: %v %+v", err, docs)
	}

	live := filepath.Join(cfg.Zotero.DataDir, zotero.DBName)
	st, _ := os.Stat(live)
	if err := os.WriteFile(live, make([]byte, st.Size()), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(live, st.ModTime(), st.ModTime())
	if err := svc.SyncZotero(context.Background()); err != nil {
		t.Fatalf("an unchanged library was read again: %v", err)
	}
	// A changed one is read (and this one no longer is a database).
	os.Chtimes(live, st.ModTime().Add(time.Second), st.ModTime().Add(time.Second))
	if err := svc.SyncZotero(context.Background()); err == nil {
		t.Fatal("a changed file was not read")
	}
}

// A collection made private in config.toml by another process (the window,
// jarvis-cli) after the tray started is private at the tray's next sync,
// even though zotero.sqlite did not change: the tray never publishes an
// item with a stale list.
func TestZoteroJobReadsPrivateCollectionsFromDisk(t *testing.T) {
	cfg, svc := zoteroServices(t, zotero.Item{Key: "GRANT234", Type: "book", Title: "Grant budget", Collections: []string{"Grants"}, Fields: map[string]string{"abstractNote": "Salaries."}})
	defer svc.Close()
	ctx := context.Background()
	visibility := func() string {
		t.Helper()
		e, _ := svc.Engine()
		docs, err := e.Store.List(ctx, kb.Filter{Source: ingest.ZoteroSourceFor("GRANT234")}, 0)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%v %+v", err, docs)
		}
		return docs[0].Visibility
	}
	if err := svc.SyncZotero(ctx); err != nil {
		t.Fatal(err)
	}
	if v := visibility(); v != kb.Public {
		t.Fatalf("before: %s", v)
	}
	// Another process writes the setting; this one's cfg still says none.
	if err := config.SetIn(cfg.Home, "zotero", "private_collections", []string{"Grants"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.SyncZotero(ctx); err != nil {
		t.Fatal(err)
	}
	if v := visibility(); v != kb.Private {
		t.Fatalf("after the setting changed on disk: %s", v)
	}
	if len(cfg.Zotero.PrivateCollections) != 0 {
		t.Fatal("the test meant the process's own settings to be stale")
	}
}
