package drafts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

func TestAgentToolsWriteOnlyInsideTheSandbox(t *testing.T) {
	w := newWS(t)
	var writes []string
	w.WriteSpy = func(p string) { writes = append(writes, p) }
	var queued []*Proposal
	a := &Agent{
		W:      w,
		Review: func(_ context.Context, p *Proposal) error { queued = append(queued, p); return nil },
		ReadSource: func(_ context.Context, src string, _ Caller) (string, string, bool, error) {
			return "Job ad", "We want a Go engineer.\n", false, nil
		},
	}
	ctx, c := context.Background(), Caller{SessionID: "s1"}
	r, err := a.CreateDraft(ctx, c, "Cover letter", "letter.md", "Dear team,\n")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := a.CreateDraftFrom(ctx, c, "notes/jobs/acme.md", "", "ad.md")
	if err != nil || !strings.Contains(r2.Text, "from notes/jobs/acme.md") {
		t.Fatal(err, r2)
	}
	if _, err := a.AddDraftFile(ctx, c, r.DraftID, "refs.bib", "@misc{x}"); err != nil {
		t.Fatal(err)
	}
	// Hostile arguments: each must be refused, none may write.
	hostile := []func() error{
		func() error { _, e := a.AddDraftFile(ctx, c, r.DraftID, "../../../../tmp/x.md", "x"); return e },
		func() error { _, e := a.AddDraftFile(ctx, c, "../"+r.DraftID, "x.md", "x"); return e },
		func() error { _, e := a.CreateDraft(ctx, c, "t", "/etc/cron.d/x.md", "x"); return e },
		func() error { _, e := a.CreateDraft(ctx, c, "t", "run.sh", "x"); return e },
		func() error { _, e := a.ProposeDraftEdit(ctx, c, r.DraftID, "../letter.md", "x", ""); return e },
	}
	for i, h := range hostile {
		if err := h(); !errs.Is(err, errs.Invalid) {
			t.Errorf("hostile call %d: %v", i, err)
		}
	}
	res, err := a.ProposeDraftEdit(ctx, c, r.DraftID, "letter.md", "Dear Acme team,\n", "personalise")
	if err != nil || !strings.HasPrefix(res.Text, ProposalNotice) || len(queued) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	if text, _, _ := w.Read(r.DraftID, "letter.md"); text != "Dear team,\n" {
		t.Fatal("a proposal must not write")
	}
	if _, err := w.Apply(queued[0].Token, []int{0}); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(w.Root)
	if len(writes) == 0 {
		t.Fatal("spy saw no writes")
	}
	for _, p := range writes {
		real, _ := filepath.EvalSymlinks(filepath.Dir(p))
		if rel, err := filepath.Rel(root, real); err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("write outside the sandbox: %s", p)
		}
	}
}

func TestPrivateDraftsAndCloudSessions(t *testing.T) {
	w := newWS(t)
	a := &Agent{W: w, Review: func(context.Context, *Proposal) error { return nil },
		ReadSource: func(_ context.Context, src string, _ Caller) (string, string, bool, error) {
			return "Diary", "private text\n", true, nil
		}}
	ctx := context.Background()
	local := Caller{SessionID: "p1", Private: true}
	r, _ := a.CreateDraft(ctx, local, "From my journal", "j.md", "secret plans\n")
	d, _ := w.Get(r.DraftID)
	if d.Visibility != Private {
		t.Fatal("a private session's draft must be private")
	}
	r2, _ := a.CreateDraftFrom(ctx, Caller{SessionID: "pub"}, "private/diary.md", "", "d.md")
	if d2, _ := w.Get(r2.DraftID); d2.Visibility != Private || !r2.Private {
		t.Fatal("a draft made from a private source must be private, and its maker too")
	}
	if res, err := a.ReadDraft(ctx, local, r.DraftID, ""); err != nil || !strings.Contains(res.Text, "BEGIN RETRIEVED DATA") || !strings.Contains(res.Text, "secret plans") || !res.Private {
		t.Fatalf("local read: %v %+v", err, res)
	}
	if res, _ := a.ListDrafts(ctx, Caller{SessionID: "l"}); !strings.Contains(res.Text, "From my journal") || !res.Private {
		t.Fatalf("a local listing shows private titles and marks the session: %+v", res)
	}

	// A cloud session: every tool answers about the private draft exactly
	// as about one that does not exist.
	cloud := Caller{SessionID: "c1", Cloud: true}
	missing := "draft-000000000000"
	same := func(what string, call func(id string) (ToolResult, error)) {
		t.Helper()
		rp, errP := call(r.DraftID)
		_, errM := call(missing)
		if errP == nil || errM == nil || !errs.Is(errP, errs.NotFound) || rp.Private {
			t.Fatalf("%s on a private draft from a cloud session: %v %+v", what, errP, rp)
		}
		if strings.ReplaceAll(errP.Error(), r.DraftID, "ID") != strings.ReplaceAll(errM.Error(), missing, "ID") {
			t.Fatalf("%s tells a private draft from a missing one:\n%v\n%v", what, errP, errM)
		}
	}
	same("read_draft", func(id string) (ToolResult, error) { return a.ReadDraft(ctx, cloud, id, "") })
	same("read_draft of a named file", func(id string) (ToolResult, error) { return a.ReadDraft(ctx, cloud, id, "j.md") })
	same("propose_draft_edit with the true text", func(id string) (ToolResult, error) {
		return a.ProposeDraftEdit(ctx, cloud, id, "j.md", "secret plans\n", "")
	})
	same("add_draft_file over a file that exists", func(id string) (ToolResult, error) { return a.AddDraftFile(ctx, cloud, id, "j.md", "x") })
	same("add_draft_file", func(id string) (ToolResult, error) { return a.AddDraftFile(ctx, cloud, id, "new.md", "x") })
	if files, _ := os.ReadDir(filepath.Join(w.Root, r.DraftID)); len(files) != 2 {
		t.Fatalf("a cloud session wrote into a private draft: %d entries", len(files))
	}
	list, _ := a.ListDrafts(ctx, cloud)
	if strings.Contains(list.Text, r.DraftID) || strings.Contains(list.Text, r2.DraftID) || strings.Contains(list.Text, "private") || list.Text != "There are no drafts yet." {
		t.Fatalf("cloud listing shows private drafts:\n%s", list.Text)
	}
	if strings.Contains(r.DraftID, "journal") || strings.Contains(r2.DraftID, "diary") {
		t.Fatalf("draft ids carry their titles: %s %s", r.DraftID, r2.DraftID)
	}
}

func TestProposeFailureDiscardsProposal(t *testing.T) {
	w := newWS(t)
	a := &Agent{W: w, Review: func(context.Context, *Proposal) error { return errs.New(errs.Cancelled, "review", "stopped") }}
	r, _ := a.CreateDraft(context.Background(), Caller{}, "t", "a.md", "a\n")
	if _, err := a.ProposeDraftEdit(context.Background(), Caller{}, r.DraftID, "a.md", "b\n", ""); !errs.Is(err, errs.Cancelled) {
		t.Fatalf("err = %v", err)
	}
	if len(w.Pending("")) != 0 {
		t.Fatal("an undelivered proposal must not linger")
	}
}
