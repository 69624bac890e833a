package kbcmd

import (
	"path"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/analysis"
	"github.com/jarvis-kb/jarvis/backend/config"
	"github.com/jarvis-kb/jarvis/backend/config/configtest"
	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools"
	"github.com/jarvis-kb/jarvis/backend/vault"
	"github.com/jarvis-kb/jarvis/cmd/jarvis-cli/internal/iostreams"
)

func seed(t *testing.T) *config.Config {
	t.Helper()
	cfg := configtest.New(t)
	s, err := openStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := kb.Chunk{Content: "applied", EmbedText: "applied", Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: "local", FilePath: "jobs/acme.md", Category: "job_application", Status: "rejected"}}
	p := kb.Chunk{Content: "abstract", EmbedText: "abstract", Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: "https://arxiv.org/abs/1", Title: "Old"}}
	if err := s.Commit([]kb.Chunk{n, p}, ""); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// seedWith is seed plus the chunks a test indexes on top of the two
// seeded entries, committed and the store closed again before the
// command under test opens it.
func seedWith(t *testing.T, chunks ...kb.Chunk) *config.Config {
	t.Helper()
	cfg := seed(t)
	s, err := openStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return cfg
}

// orderOf lists which of jobs/<name>.md appear in out, line by line, so
// a test can compare the order records printed them in.
func orderOf(out string, names ...string) string {
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		for _, name := range names {
			if strings.Contains(line, "jobs/"+name+".md") {
				got = append(got, name)
			}
		}
	}
	return strings.Join(got, " ")
}

func run(t *testing.T, cfg *config.Config, stdin string, args ...string) (string, error) {
	out, _, err := runAll(t, cfg, stdin, args...)
	return out, err
}

// runAll also returns what the command wrote to stderr (progress, modes).
func runAll(t *testing.T, cfg *config.Config, stdin string, args ...string) (string, string, error) {
	io, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	cmd := New(io, func() (*config.Config, error) { return cfg, nil }, func(string) string { return "" })
	cmd.SetArgs(args)
	cmd.SetIn(io.In)
	cmd.SetOut(io.Out)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestKBListStatsSchema(t *testing.T) {
	cfg := seed(t)
	out, err := run(t, cfg, "", "list")
	if err != nil || !strings.Contains(out, "jobs/acme.md") || !strings.Contains(out, "[paper/public] Old") {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, _ = run(t, cfg, "", "list", "--type", "paper")
	if strings.Contains(out, "acme") {
		t.Fatalf("type filter:\n%s", out)
	}
	out, err = run(t, cfg, "", "stats")
	if err != nil || !strings.Contains(out, "documents: 2") || !strings.Contains(out, "job_application") {
		t.Fatalf("stats: %v\n%s", err, out)
	}
	out, _ = run(t, cfg, "", "schema", "status")
	if !strings.Contains(out, "rejected") {
		t.Fatalf("schema status:\n%s", out)
	}
}

func TestKBRemoveAsksAndShowsInvariant(t *testing.T) {
	cfg := seed(t)
	out, err := run(t, cfg, "n\n", "remove", "source", "https://arxiv.org/abs/1")
	if !errs.Is(err, errs.Cancelled) || !strings.Contains(out, kbtools.RemoveNotice+": "+kbtools.NoLocalFile) {
		t.Fatalf("declined remove: %v\n%s", err, out)
	}
	out, _ = run(t, cfg, "", "list")
	if !strings.Contains(out, "arxiv") {
		t.Fatal("declining must keep the entry")
	}
	if out, err = run(t, cfg, "y\n", "remove", "source", "https://arxiv.org/abs/1"); err != nil || !strings.Contains(out, "removed 1 chunks") {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	if _, err := run(t, cfg, "", "remove", "source", "nope", "--yes"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := run(t, cfg, "", "remove", "title", "x", "--yes"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("unsupported key: %v", err)
	}
}

func TestKBSetMetaAndPendingCommands(t *testing.T) {
	cfg := seed(t)
	if out, err := run(t, cfg, "", "set-meta", "https://arxiv.org/abs/1", "--title", "New Title"); err != nil || !strings.Contains(out, "updated 1") {
		t.Fatalf("set-meta: %v %s", err, out)
	}
	out, _ := run(t, cfg, "", "list")
	if !strings.Contains(out, "New Title") {
		t.Fatalf("title not updated:\n%s", out)
	}
	if _, err := run(t, cfg, "", "set-meta", "https://arxiv.org/abs/1"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("no fields: %v", err)
	}
	// Without an embedding model, search answers by keyword (and says so).
	out, stderr, err := runAll(t, cfg, "", "search", "new title")
	if err != nil || !strings.Contains(out, "New Title") || !strings.Contains(stderr, "search mode: keyword") {
		t.Fatalf("keyword search without an embedder: %v\n%s\n%s", err, out, stderr)
	}
}

// A hit shows the part of its text where the question matched, cut at
// whole characters, the matches in bold on a terminal and plain in a pipe.
func TestSearchShowsTheMatchedPartOfAHit(t *testing.T) {
	long := strings.Repeat("这一段和问题无关，只是填充的文字。", 20) + "在设置里打开快捷键页面，就可以修改每个命令的快捷键。" + strings.Repeat("后面还有更多无关的句子。", 10)
	cfg := seedWith(t, kb.Chunk{Content: long, EmbedText: long, Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: "local", FilePath: "zh/快捷键.md", Title: "快捷键"}})
	out, err := run(t, cfg, "", "search", "怎样设置快捷键")
	if err != nil || !strings.Contains(out, "zh/快捷键.md") {
		t.Fatalf("search: %v\n%s", err, out)
	}
	if !strings.Contains(out, "打开快捷键页面") || !strings.Contains(out, "   …") || strings.Contains(out, "\x1b[") {
		t.Fatalf("a pipe gets the matched part, plain:\n%s", out)
	}
	io, _, _, _ := iostreams.Test()
	io.Color = true
	if got := excerpt(io, long, analysis.NewHighlighter("怎样设置快捷键")); !strings.Contains(got, "\x1b[1m快捷键\x1b[22m") || !strings.Contains(got, "\x1b[1m设置\x1b[22m") {
		t.Fatalf("a terminal gets the matches in bold: %q", got)
	}
}

// kb records: applications since March, newest first, each with its date;
// private ones only with --private (the default); bad flags explain
// themselves.
func TestRecordsByFieldAndDate(t *testing.T) {
	var chunks []kb.Chunk
	for _, r := range []struct{ path, vis, entity, date string }{
		{"jobs/borealis.md", kb.Public, "Borealis", "2026-03-02"},
		{"jobs/cygnus.md", kb.Public, "Cygnus", "2026-05-20"},
		{"private/dorado.md", kb.Private, "Dorado", "2026-04-11"},
		{"jobs/early.md", kb.Public, "Early", "2026-02-01"},
	} {
		chunks = append(chunks, kb.Chunk{Content: "applied", EmbedText: "applied", Meta: kb.Metadata{DocType: kb.DocNote, Visibility: r.vis, Source: kb.SourceVault,
			FilePath: r.path, Title: r.entity, Category: "job_application", Status: "sent", Entity: r.entity, EventDate: r.date, Extra: map[string]string{"x_city": "Berlin"}}})
	}
	cfg := seedWith(t, chunks...)
	dates := func(out string) string {
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			got = append(got, strings.Fields(line)[0])
		}
		return strings.Join(got, " ")
	}
	out, err := run(t, cfg, "", "records", "--where", "category=job_application", "--since", "2026-03")
	if err != nil || dates(out) != "2026-05-20 2026-04-11 2026-03-02" || !strings.Contains(out, "entity: Cygnus") {
		t.Fatalf("records since March: %v\n%s", err, out)
	}
	out, _ = run(t, cfg, "", "records", "--where", "category=job_application", "--since", "2026-03", "--private=false", "--sort", "date")
	if dates(out) != "2026-03-02 2026-05-20" {
		t.Fatalf("public only, oldest first:\n%s", out)
	}
	out, _ = run(t, cfg, "", "records", "--where", "city=Berlin", "--until", "2026-03-31", "-n", "1")
	if dates(out) != "2026-03-02" {
		t.Fatalf("by a frontmatter field, until March, one:\n%s", out)
	}
	out, _ = run(t, cfg, "", "records", "--where", "entity~OREA", "--where", "city~erl")
	if dates(out) != "2026-03-02" {
		t.Fatalf("entity and a field containing a text:\n%s", out)
	}
	if _, err := run(t, cfg, "", "records", "--where", "entity~"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("--where FIELD~ without a text: %v", err)
	}
	if _, err := run(t, cfg, "", "records", "--where", "category"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("--where without =: %v", err)
	}
	if _, err := run(t, cfg, "", "records", "--sort", "name"); !errs.Is(err, errs.Invalid) || !strings.Contains(errs.HintOf(err), "-date") {
		t.Fatalf("an unknown sort: %v", err)
	}
}

func TestTimelineOfAnEntity(t *testing.T) {
	note := func(path, vis, entity, date, text string) kb.Chunk {
		return kb.Chunk{Content: text, EmbedText: text, Meta: kb.Metadata{DocType: kb.DocNote, Visibility: vis, Source: kb.SourceVault,
			FilePath: path, Title: path, Category: "meeting", Entity: entity, EventDate: date}}
	}
	cfg := seedWith(t,
		note("meetings/may.md", kb.Public, "Tanaka", "2026-05-02", "budget"),
		note("meetings/march.md", kb.Public, "Tanaka", "2026-03-10", "plan"),
		note("private/diary.md", kb.Private, "", "", "Tanaka was short with me"),
	)
	out, _, err := runAll(t, cfg, "", "timeline", "Tanaka")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "2026-03-10  meetings/march.md") || !strings.HasPrefix(lines[1], "2026-05-02  meetings/may.md") ||
		!strings.Contains(lines[2], "private/diary.md") || !strings.Contains(lines[2], "names it") {
		t.Fatalf("timeline:\n%s", out)
	}
	out, _, _ = runAll(t, cfg, "", "timeline", "Tanaka", "--private=false")
	if strings.Contains(out, "diary") || strings.Count(out, "\n") != 2 {
		t.Fatalf("public timeline:\n%s", out)
	}
}

// kb records orders and bounds by any frontmatter field: applications by
// their deadline, soonest first, the ones due from April on; --since and
// --sort must name the same field.
func TestRecordsBySomeOtherField(t *testing.T) {
	var chunks []kb.Chunk
	for _, r := range []struct{ path, deadline string }{{"jobs/a.md", "2026-05-01"}, {"jobs/b.md", "2026-03-15"}, {"jobs/d.md", "2026-04-02"}} {
		chunks = append(chunks, kb.Chunk{Content: "applied", EmbedText: "applied", Meta: kb.Metadata{DocType: kb.DocNote, Visibility: kb.Public, Source: kb.SourceVault,
			FilePath: r.path, Title: strings.TrimSuffix(path.Base(r.path), ".md"), Category: "job_application", EventDate: "2026-01-10", Extra: map[string]string{"x_deadline": r.deadline}}})
	}
	cfg := seedWith(t, chunks...)
	order := func(out string) string { return orderOf(out, "a", "b", "d") }
	out, err := run(t, cfg, "", "records", "--where", "category=job_application", "--sort", "deadline")
	if err != nil || order(out) != "b d a" {
		t.Fatalf("by deadline, soonest first: %v\n%s", err, out)
	}
	out, err = run(t, cfg, "", "records", "--where", "category=job_application", "--since", "deadline=2026-04", "--sort", "-deadline")
	if err != nil || order(out) != "a d" {
		t.Fatalf("due from April, latest first: %v\n%s", err, out)
	}
	if _, err := run(t, cfg, "", "records", "--since", "deadline=2026-04", "--sort", "-interview"); !errs.Is(err, errs.Invalid) {
		t.Fatalf("two fields at once: %v", err)
	}
}

// kb records bounds and orders by a field's dates however the notes wrote
// them: indexed by the vault's note builder, "deadline: March 10, 2026"
// is a March deadline among ISO ones, and "TBD" none.
func TestRecordsByADeadlineWrittenInWords(t *testing.T) {
	var chunks []kb.Chunk
	for _, r := range []struct{ path, deadline string }{
		{"jobs/a.md", "March 10, 2026"}, {"jobs/b.md", "2026-02-20"}, {"jobs/c.md", "2026-04-05"}, {"jobs/d.md", "2026-03-20"}, {"jobs/e.md", "TBD"},
	} {
		built, _ := vault.BuildNote(vault.Note{FilePath: r.path, Source: kb.SourceVault, Visibility: kb.Public, Hash: r.path,
			Text: "---\ncategory: job_application\ndeadline: " + r.deadline + "\n---\n# Application\n\nCover letter sent.\n"}, 400, 0)
		chunks = append(chunks, built...)
	}
	cfg := seedWith(t, chunks...)
	order := func(out string) string { return orderOf(out, "a", "b", "c", "d", "e") }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--since", "deadline=2026-03-01", "--sort", "-deadline"}, "c d a"},
		{[]string{"--until", "deadline=2026-03-15", "--sort", "deadline"}, "b a"},
		{[]string{"--since", "deadline=March 2026", "--until", "deadline=2026-03", "--sort", "deadline"}, "a d"},
		{[]string{"--sort", "-deadline"}, "c d a b e"},
	} {
		out, err := run(t, cfg, "", append([]string{"records", "--where", "category=job_application"}, tc.args...)...)
		if err != nil || order(out) != tc.want {
			t.Errorf("records %v: %v, got %q, want %q\n%s", tc.args, err, order(out), tc.want, out)
		}
	}
}
