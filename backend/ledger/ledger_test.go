package ledger_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/ledger"
)

func open(t *testing.T, dir string, keepDays int) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(dir, keepDays)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func begin(t *testing.T, l *ledger.Ledger, r ledger.Record) int64 {
	t.Helper()
	id, err := l.Begin(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestTheLedgerIsPrivateAndKeepsNoBodyWhenToldSo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ledger")
	l := open(t, dir, 0)
	begin(t, l, ledger.Record{Purpose: "chat turn", Provider: "anthropic", Model: "m", Body: "the private passage"})
	for _, p := range []string{dir, filepath.Join(dir, ledger.FileName)} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if st.IsDir() {
			want = 0o700
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v", p, st.Mode().Perm())
		}
	}
	rs, err := l.List(context.Background(), ledger.Filter{})
	if err != nil || len(rs) != 1 || rs[0].Body != "" || rs[0].Outcome != ledger.Sending {
		t.Fatalf("%+v %v", rs, err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ledger.FileName))
	if strings.Contains(string(raw), "private passage") {
		t.Error("keep_days 0 still wrote the body")
	}
}

func TestFiltersAndPerDocumentCounts(t *testing.T) {
	l := open(t, t.TempDir(), 30)
	ctx := context.Background()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	a := ledger.Source{Key: "notes/a.md", Title: "A"}
	b := ledger.Source{Key: "paper:1", Title: "B"}
	ids := []int64{
		begin(t, l, ledger.Record{Started: day(1), Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m", Session: "s1", Sources: []ledger.Source{a, b, a}}),
		begin(t, l, ledger.Record{Started: day(2), Purpose: ledger.PurposeCompaction, Provider: "anthropic", Model: "m", Session: "s1", Sources: []ledger.Source{a}}),
		begin(t, l, ledger.Record{Started: day(3), Purpose: ledger.PurposeDigest, Provider: "openrouter", Model: "x", Sources: []ledger.Source{b}}),
		begin(t, l, ledger.Record{Started: day(4), Purpose: ledger.PurposeChat, Provider: "ollama", Model: "q", Local: true, Session: "s2", Sources: []ledger.Source{a}}),
	}
	for _, id := range ids {
		if err := l.Finish(id, ledger.Result{ResponseBytes: 10}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(f ledger.Filter) int {
		rs, err := l.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	for name, c := range map[string]struct {
		f    ledger.Filter
		want int
	}{
		"all":        {ledger.Filter{}, 4},
		"session":    {ledger.Filter{Session: "s1"}, 2},
		"source":     {ledger.Filter{Source: a.Key}, 3},
		"source b":   {ledger.Filter{Source: b.Key, Provider: "openrouter"}, 1},
		"since":      {ledger.Filter{Since: day(3)}, 2},
		"cloud only": {ledger.Filter{CloudOnly: true}, 3},
		"purpose":    {ledger.Filter{Purpose: ledger.PurposeChat}, 2},
		"limit":      {ledger.Filter{Limit: 1}, 1},
	} {
		if got := count(c.f); got != c.want {
			t.Errorf("%s: %d records, want %d", name, got, c.want)
		}
	}
	rs, _ := l.List(ctx, ledger.Filter{Session: "s1"})
	if rs[0].Purpose != ledger.PurposeCompaction || len(rs[1].Sources) != 2 || rs[1].Sources[0] != a || rs[1].Sources[1] != b {
		t.Errorf("newest first, sources once each in order: %+v", rs)
	}
	sent, err := l.SentByDocument(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The Ollama request stayed on the machine: not counted as sent.
	if sent[a.Key].Times != 2 || !sent[a.Key].Last.Equal(day(2)) || sent[b.Key].Times != 2 || !sent[b.Key].Last.Equal(day(3)) {
		t.Errorf("sent %+v", sent)
	}
}

func TestPruneDropsOldBodiesAndKeepsTheRecords(t *testing.T) {
	l := open(t, t.TempDir(), 30)
	ctx := context.Background()
	old := begin(t, l, ledger.Record{Started: time.Now().AddDate(0, 0, -40), Provider: "anthropic", Body: "old body"})
	recent := begin(t, l, ledger.Record{Started: time.Now().AddDate(0, 0, -2), Provider: "anthropic", Body: "recent body"})
	n, err := l.Prune(ctx, 30)
	if err != nil || n != 1 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	rs, _ := l.List(ctx, ledger.Filter{})
	bodies := map[int64]string{}
	for _, r := range rs {
		bodies[r.ID] = r.Body
	}
	if len(rs) != 2 || bodies[old] != "" || bodies[recent] != "recent body" {
		t.Fatalf("%+v", rs)
	}
	if n, _ := l.Prune(ctx, 0); n != 1 {
		t.Errorf("keep_days 0 prunes every body: %d", n)
	}
}

// A process killed while its request was in flight leaves a record that
// says so: the request may have reached the service.
func TestAKilledProcessLeavesItsRecordIncomplete(t *testing.T) {
	if dir := os.Getenv("LEDGER_CHILD_DIR"); dir != "" {
		l, err := ledger.Open(dir, 30)
		if err != nil {
			os.Exit(2)
		}
		if _, err := l.Begin(context.Background(), ledger.Record{Purpose: ledger.PurposeChat, Provider: "anthropic", Model: "m"}); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("begun\n")
		time.Sleep(time.Minute) // killed here
		os.Exit(4)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestAKilledProcessLeavesItsRecordIncomplete$")
	cmd.Env = append(os.Environ(), "LEDGER_CHILD_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "begun\n" {
		cmd.Process.Kill()
		t.Fatalf("child said %q, %v", buf, err)
	}
	l := open(t, dir, 30)
	rs, _ := l.List(context.Background(), ledger.Filter{})
	if len(rs) != 1 || rs[0].Outcome != ledger.Sending || rs[0].PID != cmd.Process.Pid {
		t.Fatalf("while it runs: %+v", rs)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait() //nolint:errcheck // killed on purpose
	rs, _ = l.List(context.Background(), ledger.Filter{})
	if len(rs) != 1 || rs[0].Outcome != ledger.Incomplete || !rs[0].Finished.IsZero() {
		t.Fatalf("after the kill: %+v", rs)
	}
}

// A pruned body is gone from the disk, not only from the list: the file
// (with its WAL) holds none of its bytes afterwards and shrinks.
func TestPrunedBodiesLeaveNoBytesOnDisk(t *testing.T) {
	dir := t.TempDir()
	l := open(t, dir, 30)
	ctx := context.Background()
	marker := "prunedpassagemarker"
	for i := 0; i < 50; i++ {
		begin(t, l, ledger.Record{Started: time.Now().AddDate(0, 0, -40), Provider: "anthropic", Body: strings.Repeat(marker+" ", 2000)})
	}
	size := func() (n int64, text string) {
		for _, name := range []string{ledger.FileName, ledger.FileName + "-wal"} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			n += int64(len(b))
			text += string(b)
		}
		return n, text
	}
	before, _ := size()
	if n, err := l.Prune(ctx, 30); err != nil || n != 50 {
		t.Fatalf("pruned %d, %v", n, err)
	}
	l.Close()
	after, text := size()
	if strings.Contains(text, marker) {
		t.Error("a pruned body's text is still in the ledger's files")
	}
	if after*4 > before {
		t.Errorf("the ledger kept its size: %d bytes before, %d after", before, after)
	}
}
