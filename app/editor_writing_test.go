package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/chat"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/drafts"
	"github.com/jarvis-kb/jarvis/backend/errs"
)

// launches records what the services would start instead of starting it.
func launches(s *Services) *[][]string {
	var got [][]string
	s.SetLauncher(func(argv []string) error { got = append(got, argv); return nil })
	return &got
}

func TestEditorListRevealAddFileAndDelete(t *testing.T) {
	s, cfg := services(t)
	launched := launches(s)
	d, err := s.Editor.NewDraft("Grant letter", "letter.md")
	if err != nil {
		t.Fatal(err)
	}
	list, err := s.Editor.Drafts()
	if err != nil || len(list) != 1 || list[0].Path != filepath.Join(cfg.Drafts.Dir, d.ID) {
		t.Fatalf("%v %+v", err, list)
	}
	if list[0].DaysLeft == nil || *list[0].DaysLeft != cfg.Drafts.RetentionDays {
		t.Fatalf("a fresh draft has the whole retention ahead: %+v", list[0].DaysLeft)
	}
	s.Editor.SetKeep(d.ID, true)
	if list, _ = s.Editor.Drafts(); list[0].DaysLeft != nil {
		t.Fatalf("keep turns the countdown off: %d", *list[0].DaysLeft)
	}

	if err := s.Editor.AddFile(d.ID, "refs.bib"); err != nil {
		t.Fatal(err)
	}
	if err := s.Editor.AddFile(d.ID, "refs.bib"); !errs.Is(err, errs.Conflict) {
		t.Fatalf("an existing name: %v", err)
	}
	if list, _ = s.Editor.Drafts(); !slices.Contains(list[0].Files, "refs.bib") {
		t.Fatalf("%+v", list[0].Files)
	}

	if err := s.Editor.Reveal(d.ID, "refs.bib"); err != nil {
		t.Fatal(err)
	}
	if err := s.Editor.Reveal(d.ID, ""); err != nil { // the draft: its main file
		t.Fatal(err)
	}
	if err := s.Editor.Reveal(d.ID, "../../config.toml"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a path out of the draft: %v", err)
	}
	want := func(file string) []string {
		p := filepath.Join(list[0].Path, file)
		switch runtime.GOOS {
		case "darwin":
			return []string{"open", "-R", p}
		default:
			return []string{"xdg-open", list[0].Path}
		}
	}
	if len(*launched) != 2 || !slices.Equal((*launched)[0], want("refs.bib")) || !slices.Equal((*launched)[1], want("letter.md")) {
		t.Fatalf("launched %q", *launched)
	}

	// The citations' "Show in folder" goes through the same command.
	if err := s.Library.RevealCitation(chat.Citation{Source: "garden/roses.md", FilePath: "garden/roses.md"}); err != nil {
		t.Fatal(err)
	}
	if last := (*launched)[2]; runtime.GOOS == "linux" && !slices.Equal(last, []string{"xdg-open", filepath.Join(cfg.Vault.Path, "garden")}) {
		t.Fatalf("citation reveal %q", last)
	}

	if err := s.Editor.DeleteDraft(d.ID); err != nil {
		t.Fatal(err)
	}
	if list, _ = s.Editor.Drafts(); len(list) != 0 {
		t.Fatalf("deleted draft still listed: %+v", list)
	}
	if _, err := os.Stat(filepath.Join(cfg.Drafts.Dir, d.ID)); !os.IsNotExist(err) {
		t.Fatalf("the folder is still there: %v", err)
	}
}

// needTeX fails where CI promises TeX (JARVIS_REQUIRE_TOOLS) and skips elsewhere.
func needTeX(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"latexmk", "pdflatex"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("JARVIS_REQUIRE_TOOLS") != "" {
				t.Fatalf("%s is required here but not installed", tool)
			}
			t.Skipf("%s not installed", tool)
		}
	}
}

func TestEditorCompileShowsTheFirstErrorAndTheDocumentInTheViewer(t *testing.T) {
	needTeX(t)
	s, _ := services(t)
	d, _ := s.Editor.NewDraft("Paper", "paper.tex")
	f, _ := s.Editor.Open(d.ID, "paper.tex")
	h, _ := s.Editor.Save(d.ID, "paper.tex", "\\documentclass{article}\n\\begin{document}\nHello\n\\foo{bar} baz\n\\end{document}\n", f.Hash)
	r, err := s.Editor.Render(d.ID, "paper.tex")
	if err != nil {
		t.Fatal("a failed compile is a result with its log, not an error: ", err)
	}
	if r.OK || r.PDF != "" || r.First == nil || r.First.Line != 4 || r.First.Message != "Undefined control sequence." {
		t.Fatalf("%+v", r)
	}
	if !slices.Contains(r.First.Context, "l.4 \\foo") || !strings.Contains(r.Log, "Undefined control sequence") || r.Error == "" {
		t.Fatalf("context %q, error %q", r.First.Context, r.Error)
	}

	s.Editor.Save(d.ID, "paper.tex", "\\documentclass{article}\n\\begin{document}\nHello\n\\newpage\nWorld\n\\end{document}\n", h)
	r, err = s.Editor.Render(d.ID, "paper.tex")
	if err != nil || !r.OK || r.Pages != 2 || r.First != nil {
		t.Fatalf("%v %+v", err, r)
	}
	page, err := s.Editor.PDFPage(r.PDF, 2)
	if err != nil || page.Page != 2 || page.Pages != 2 || len(page.Image) < 100 || page.Title != "paper.pdf" {
		t.Fatalf("%v %+v", err, page.Title)
	}

	dest := filepath.Join(t.TempDir(), "out", "my paper.pdf")
	var asked string
	s.Editor.PickSave = func(title, name string) (string, error) { asked = name; return dest, nil }
	if got, err := s.Editor.SavePDF(r.PDF); err != nil || got != dest || asked != "paper.pdf" {
		t.Fatalf("%q %v (offered %q)", got, err, asked)
	}
	if b, _ := os.ReadFile(dest); !bytes.HasPrefix(b, []byte("%PDF")) {
		t.Fatal("the saved file is not the PDF")
	}
	s.Editor.PickSave = func(string, string) (string, error) { return "", nil }
	if got, err := s.Editor.SavePDF(r.PDF); got != "" || err != nil {
		t.Fatalf("a cancelled dialog saves nothing: %q %v", got, err)
	}
	if _, err := s.Editor.PDFPage("nope", 1); !errs.Is(err, errs.NotFound) {
		t.Fatalf("%v", err)
	}
	again, err := s.Editor.Render(d.ID, "paper.tex")
	if err != nil || !again.OK {
		t.Fatalf("%v %+v", err, again)
	}
	if _, err := s.Editor.PDFPage(r.PDF, 1); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a new compile replaces the PDF before it: %v", err)
	}
	if entries, _ := os.ReadDir(s.Editor.pdfDir); len(entries) != 1 {
		t.Fatalf("compiled PDFs pile up: %d", len(entries))
	}
	if _, err := s.Editor.Render(d.ID, "../x.tex"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a refused file is an error, not a failed compile: %v", err)
	}
	dir := s.Editor.pdfDir
	s.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("compiled PDFs outlive the window: %v", err)
	}
}

// echoModel answers every question with text and records what it was asked.
func echoModel(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" { // a preload (/api/generate) needs only a 200
			return
		}
		var req struct {
			Messages []struct{ Role, Content string }
		}
		json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		asked = append(asked, req.Messages[len(req.Messages)-1].Content)
		mu.Unlock()
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"Noted."},"done":false}`)
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":""},"done":true}`)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string{}, asked...) }
}

func TestDraftSessionIsKeptPerDraftAndMessagesNameTheDraft(t *testing.T) {
	srv, asked := echoModel(t)
	s, _ := services(t, func(c *config.Config) { c.Chat.Provider, c.Chat.OllamaURL = "ollama", srv.URL })
	d, _ := s.Editor.NewDraft("Grant letter", "letter.md")
	v, err := s.Editor.DraftSession(d.ID)
	if err != nil || v.Title != "Draft: Grant letter" || v.Private || v.KBOnly {
		t.Fatalf("%v %+v", err, v)
	}
	if again, _ := s.Editor.DraftSession(d.ID); again.ID != v.ID {
		t.Fatalf("the draft's session is reused: %s then %s", v.ID, again.ID)
	}
	if err := s.Editor.AskAboutDraft(v.ID, d.ID, "", "tighten the opening"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); s.Chat.Replay(v.ID) != nil && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
	}
	want := fmt.Sprintf("[Editing draft %s \"Grant letter\", file letter.md]\n\ntighten the opening", d.ID)
	if got := asked(); len(got) != 1 || got[0] != want {
		t.Fatalf("the model was asked %q", got)
	}
	if err := s.Editor.AskAboutDraft(v.ID, d.ID, "../x.md", "hi"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("a file outside the draft: %v", err)
	}
	// A session that went away (never saved) is replaced, and the draft remembers the new one.
	s.Chat.Delete(v.ID)
	next, err := s.Editor.DraftSession(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Editor.ws.Get(d.ID); got.ChatSession != next.ID {
		t.Fatalf("draft.json names %q, the session is %q", got.ChatSession, next.ID)
	}

	// A private draft's conversation is private before its first word.
	p, err := s.Editor.ws.Create("Diary notes", "notes.md", "x\n", drafts.Private, "")
	if err != nil {
		t.Fatal(err)
	}
	pv, err := s.Editor.DraftSession(p.ID)
	if err != nil || !pv.Private {
		t.Fatalf("%v %+v", err, pv)
	}
}
