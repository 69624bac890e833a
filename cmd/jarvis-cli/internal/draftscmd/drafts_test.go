package draftscmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

type fixture struct {
	cfg                      *config.Config
	ws                       *drafts.Workspace
	old, edited, kept, fresh *drafts.Draft
}

// setup makes four drafts: one untouched for 60 days, one as old but edited
// yesterday by another program, one old but kept, one new.
func setup(t *testing.T) fixture {
	t.Helper()
	cfg := configtest.New(t)
	cfg.Drafts.RetentionDays = 30
	ws, err := drafts.Open(cfg.Drafts)
	if err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-60 * 24 * time.Hour)
	ws.Now = func() time.Time { return long }
	f := fixture{cfg: cfg, ws: ws}
	f.old, _ = ws.Create("Old letter", "letter.md", "x\n", drafts.Public, "")
	f.edited, _ = ws.Create("Paper edited in Vim", "paper.md", "x\n", drafts.Public, "")
	f.kept, _ = ws.Create("Kept CV", "cv.md", "x\n", drafts.Public, "")
	if err := ws.SetKeep(f.kept.ID, true); err != nil {
		t.Fatal(err)
	}
	ws.Now = nil
	f.fresh, _ = ws.Create("Fresh", "new.md", "x\n", drafts.Private, "")
	yesterday := time.Now().Add(-24 * time.Hour)
	p := filepath.Join(cfg.Drafts.Dir, f.edited.ID, "paper.md")
	if err := os.WriteFile(p, []byte("edited outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, yesterday, yesterday); err != nil {
		t.Fatal(err)
	}
	return f
}

func run(t *testing.T, cfg *config.Config, stdin string, args ...string) (string, error) {
	t.Helper()
	io, in, out, _ := iostreams.Test()
	in.WriteString(stdin)
	cmd := New(io, func() (*config.Config, error) { return cfg, nil })
	cmd.SetArgs(args)
	cmd.SetIn(io.In)
	cmd.SetOut(io.Out)
	err := cmd.Execute()
	return out.String(), err
}

func exists(t *testing.T, cfg *config.Config, d *drafts.Draft) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(cfg.Drafts.Dir, d.ID))
	return err == nil
}

func TestListShowsRetentionFromTheNewestFile(t *testing.T) {
	f := setup(t)
	out, err := run(t, f.cfg, "", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []listed
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	byID := map[string]listed{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	if len(rows) != 4 || rows[0].ID != f.fresh.ID {
		t.Fatalf("four drafts, newest change first: %+v", rows)
	}
	if r := byID[f.old.ID]; r.DaysLeft == nil || *r.DaysLeft != 0 {
		t.Fatalf("the untouched draft is due: %+v", r)
	}
	if r := byID[f.edited.ID]; r.DaysLeft == nil || *r.DaysLeft != 29 {
		t.Fatalf("the outside edit restarts the window: %+v", r)
	}
	if r := byID[f.kept.ID]; !r.Keep || r.DaysLeft != nil {
		t.Fatalf("a kept draft has no deadline: %+v", r)
	}
	if r := byID[f.fresh.ID]; !r.Private {
		t.Fatalf("the private draft is marked: %+v", r)
	}
	table, err := run(t, f.cfg, "", "list")
	if err != nil || !strings.Contains(table, "Fresh (private)") || !strings.Contains(table, "due now") || !strings.Contains(table, "kept") {
		t.Fatalf("table: %v\n%s", err, table)
	}
}

func TestPruneDryRunDeletesNothingAndPruneAsksFirst(t *testing.T) {
	f := setup(t)
	out, err := run(t, f.cfg, "", "prune", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "would delete 1 draft") || !strings.Contains(out, f.old.ID) || strings.Contains(out, f.edited.ID) || strings.Contains(out, f.kept.ID) {
		t.Fatalf("dry run lists only the untouched draft:\n%s", out)
	}
	if !exists(t, f.cfg, f.old) {
		t.Fatal("a dry run deleted a draft")
	}
	_, err = run(t, f.cfg, "n\n", "prune")
	if !errs.Is(err, errs.Cancelled) || !exists(t, f.cfg, f.old) {
		t.Fatalf("answering no deletes nothing: %v", err)
	}
	out, err = run(t, f.cfg, "y\n", "prune")
	if err != nil || !strings.Contains(out, "deleted 1 draft") {
		t.Fatalf("%v\n%s", err, out)
	}
	if exists(t, f.cfg, f.old) || !exists(t, f.cfg, f.edited) || !exists(t, f.cfg, f.kept) || !exists(t, f.cfg, f.fresh) {
		t.Fatal("prune removed the wrong drafts")
	}
}

func TestUnkeepMakesADraftDueAndKeepSavesIt(t *testing.T) {
	f := setup(t)
	if _, err := run(t, f.cfg, "", "unkeep", f.kept.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, f.cfg, "", "keep", f.old.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, f.cfg, "", "prune", "--yes"); err != nil {
		t.Fatal(err)
	}
	if exists(t, f.cfg, f.kept) || !exists(t, f.cfg, f.old) {
		t.Fatal("keep/unkeep did not change what retention removes")
	}
	if _, err := run(t, f.cfg, "", "keep", "../etc"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a bad id is refused: %v", err)
	}
}

func TestPruneWithRetentionOffDeletesNothing(t *testing.T) {
	f := setup(t)
	f.cfg.Drafts.RetentionDays = 0
	out, err := run(t, f.cfg, "", "prune", "--yes")
	if err != nil || !strings.Contains(out, "retention is off") || !exists(t, f.cfg, f.old) {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = run(t, f.cfg, "", "prune", "--days", "45", "--yes")
	if err != nil || exists(t, f.cfg, f.old) {
		t.Fatalf("an explicit --days prunes: %v\n%s", err, out)
	}
}
