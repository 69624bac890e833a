package main

// Many processes, one store: the scheduler (jarvis-cli sync runs the tray's
// jobs, live vault watcher and embedding backfill), kb index-vault, kb add,
// kb embed and searches run together on one data dir while the vault
// changes under them. Every command must succeed, and the store must end up
// as a serial run makes it. Then SIGKILL at random points of the backfill,
// the watcher and the PDF inbox: the store stays consistent and a restart
// finishes the work.
//
// The processes are this test binary re-executed as jarvis-cli (TestMain),
// so they are real processes running the real main.
// JARVIS_STRESS_ROUNDS sets the rounds (CI runs a few; 50 locally).

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jarvis-kb/jarvis/backend/embed/embedtest"
	"github.com/jarvis-kb/jarvis/backend/kb"
)

const asCLI = "JARVIS_TEST_RUN_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// home is one data dir with a vault, a fixture embedding model and the
// outside files kb add takes.
type home struct {
	t       *testing.T
	dir     string
	vault   string
	outside string
	env     []string
}

var stressWords = strings.Fields(`landlord deposit lease tomato garden prune compost kernel register cache attention
	token sparse window grant budget protein folding sequence cluster partition sourdough starter passport renewal
	insurance pension travel ferry glacier harbour crane kettle descale meeting onboarding reviewer ablation`)

func noteText(r *rand.Rand, title string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	for i := range 40 + r.IntN(80) {
		if i > 0 && i%15 == 0 {
			b.WriteString(".\n\n")
		}
		b.WriteString(stressWords[r.IntN(len(stressWords))])
		b.WriteByte(' ')
	}
	return b.String()
}

func newHome(t *testing.T, notes int) *home {
	t.Helper()
	h := &home{t: t, dir: t.TempDir(), vault: t.TempDir(), outside: t.TempDir()}
	model := filepath.Join(t.TempDir(), "bow")
	if err := embedtest.WriteEmbedder(model, append(slices.Clone(stressWords), "note", "outside", "file", "round")); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[vault]\npath = %q\nprivate_dirs = [\"private\"]\n[rag]\nembed_model = %q\nrerank_model = \"\"\n[chat]\nollama_url = \"http://127.0.0.1:1\"\n", h.vault, model)
	if err := os.WriteFile(filepath.Join(h.dir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, uint64(notes)))
	for i := range notes {
		dir := []string{"notes", "work", "private"}[i%3]
		h.write(filepath.Join(dir, fmt.Sprintf("n%03d.md", i)), noteText(r, fmt.Sprintf("Note %d", i)))
	}
	for i := range 4 {
		os.WriteFile(filepath.Join(h.outside, fmt.Sprintf("outside%d.md", i)), []byte(noteText(r, fmt.Sprintf("Outside file %d", i))), 0o644)
	}
	h.env = append(os.Environ(), asCLI+"=1", "JARVIS_HOME="+h.dir, "VAULT_PATH=", "OLLAMA_HOST=", "CHAT_PROVIDER=")
	return h
}

func (h *home) write(rel, text string) {
	p := filepath.Join(h.vault, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// cli runs one command to completion and returns its output and error.
func (h *home) cli(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = h.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// start runs a command in the background; stop ends it by its pid.
func (h *home) start(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = h.env
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { stop(cmd, syscall.SIGKILL) })
	return cmd
}

func stop(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.ProcessState != nil {
		return
	}
	cmd.Process.Signal(sig) // our own child, by pid
	cmd.Wait()
}

// mutate changes the vault the way a user does: edits, new notes, deletions.
func (h *home) mutate(round int) {
	r := rand.New(rand.NewPCG(uint64(round), 99))
	entries, _ := filepath.Glob(filepath.Join(h.vault, "*", "*.md"))
	slices.Sort(entries)
	for i := 0; i < 8 && len(entries) > 0; i++ {
		p := entries[r.IntN(len(entries))]
		os.WriteFile(p, []byte(noteText(r, fmt.Sprintf("Edited round %d", round))), 0o644)
	}
	for i := range 4 {
		h.write(filepath.Join([]string{"notes", "private"}[i%2], fmt.Sprintf("r%02d-%d.md", round, i)), noteText(r, fmt.Sprintf("Round %d note %d", round, i)))
	}
	for i := 0; i < 2 && len(entries) > 0; i++ {
		os.Remove(entries[r.IntN(len(entries))])
	}
}

// snapshot is the store's content in a canonical form, ids aside: what a
// user can observe (documents, chunks, visibility, metadata, vectors).
func snapshot(t *testing.T, dir string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "rag", kb.DBName)+"?mode=ro&_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT c.doc_type, c.visibility, c.source, c.file_path, c.chunk_index, c.title, c.section, c.content,
		c.content_hash, (SELECT count(*) FROM vectors v WHERE v.chunk_id = c.id), hex(c.lex) FROM chunks c`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var dt, vis, src, fp, title, sec, content, hash, lex string
		var idx, vecs int
		if err := rows.Scan(&dt, &vis, &src, &fp, &idx, &title, &sec, &content, &hash, &vecs, &lex); err != nil {
			t.Fatal(err)
		}
		// Source of files added from outside is their absolute path, which
		// differs between homes only in the temp dir part: compare names.
		if strings.HasPrefix(src, "file://") {
			src, fp = "file://"+filepath.Base(src), filepath.Base(fp)
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%d|%s|%s|%x|%s|vectors=%d", dt, vis, src, fp, idx, title, sec, content, hash, vecs))
	}
	slices.Sort(out)
	return out
}

// vectorCount reports stored vectors and chunks.
func vectorCount(t *testing.T, dir string) (vectors, chunks int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "rag", kb.DBName)+"?mode=ro&_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.QueryRow(`SELECT (SELECT count(*) FROM vectors), (SELECT count(*) FROM chunks)`).Scan(&vectors, &chunks)
	return vectors, chunks
}

// checkIntegrity asserts what a crash must never break.
func checkIntegrity(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "rag", kb.DBName)+"?_pragma=busy_timeout(30000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
	var orphans, halfDocs int
	db.QueryRow(`SELECT count(*) FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = v.chunk_id)`).Scan(&orphans)
	// A document is whole: its chunk indexes run 0..n-1 without a gap.
	db.QueryRow(`SELECT count(*) FROM (SELECT CASE WHEN file_path != '' THEN file_path ELSE source END AS k, count(*) AS n, max(chunk_index) AS m
		FROM chunks WHERE doc_type = 'note' GROUP BY k) WHERE m != n - 1`).Scan(&halfDocs)
	if orphans != 0 || halfDocs != 0 {
		t.Fatalf("%d vectors without a chunk, %d half-written notes", orphans, halfDocs)
	}
}

// serial builds the same final state one command at a time in a new home.
func serial(t *testing.T, h *home, added []string) []string {
	t.Helper()
	s := &home{t: t, dir: t.TempDir(), vault: h.vault, outside: h.outside}
	cfg, _ := os.ReadFile(filepath.Join(h.dir, "config.toml"))
	os.WriteFile(filepath.Join(s.dir, "config.toml"), cfg, 0o600)
	s.env = append(os.Environ(), asCLI+"=1", "JARVIS_HOME="+s.dir, "VAULT_PATH=", "OLLAMA_HOST=", "CHAT_PROVIDER=")
	ctx := context.Background()
	for _, f := range added {
		if out, err := s.cli(ctx, "kb", "add", f); err != nil {
			t.Fatalf("serial kb add: %v\n%s", err, out)
		}
	}
	if out, err := s.cli(ctx, "kb", "index-vault"); err != nil {
		t.Fatalf("serial index-vault: %v\n%s", err, out)
	}
	return snapshot(t, s.dir)
}

func rounds(def int) int {
	if n, err := strconv.Atoi(os.Getenv("JARVIS_STRESS_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return def
}

func TestManyProcessesOneStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts many processes")
	}
	h := newHome(t, 60)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	sched := h.start("sync") // the scheduler: vault job, watcher, backfill
	var added []string
	for round := range rounds(2) {
		h.mutate(round)
		add := filepath.Join(h.outside, fmt.Sprintf("outside%d.md", round%4))
		if !slices.Contains(added, add) {
			added = append(added, add)
		}
		cmds := [][]string{
			{"kb", "index-vault"}, {"kb", "index-vault", "--no-embed"}, {"kb", "add", add}, {"kb", "embed"},
			{"kb", "search", "landlord deposit"}, {"kb", "search", "--type", "note", "garden compost"}, {"kb", "stats"},
		}
		var wg sync.WaitGroup
		failures := make(chan string, len(cmds))
		for _, args := range cmds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if out, err := h.cli(ctx, args...); err != nil {
					failures <- fmt.Sprintf("round %d: jarvis-cli %s: %v\n%s", round, strings.Join(args, " "), err, out)
				}
			}()
		}
		wg.Wait()
		close(failures)
		for f := range failures {
			t.Error(f)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	// Let the scheduler go, then one last index-vault: the vault may have
	// changed after the round's own index-vault started.
	stop(sched, syscall.SIGTERM)
	if out, err := h.cli(ctx, "kb", "index-vault"); err != nil {
		t.Fatalf("final index-vault: %v\n%s", err, out)
	}
	checkIntegrity(t, h.dir)
	got, want := snapshot(t, h.dir), serial(t, h, added)
	if !slices.Equal(got, want) {
		t.Fatalf("the concurrent store differs from a serial run: %d vs %d chunks\nonly concurrent: %v\nonly serial: %v",
			len(got), len(want), diff(got, want), diff(want, got))
	}
	for _, row := range got {
		if !strings.HasSuffix(row, "vectors=1") {
			t.Fatalf("a chunk without exactly one vector: %s", row)
		}
	}
}

func diff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && len(out) < 3 {
			out = append(out, x)
		}
	}
	return out
}

// killWhen starts args and SIGKILLs it as soon as cond holds (polled); it
// reports whether it killed the process before the process ended.
func (h *home) killWhen(cond func() bool, args ...string) bool {
	cmd := h.start(args...)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	for {
		select {
		case <-done:
			return false
		case <-time.After(5 * time.Millisecond):
			if cond() {
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				return true
			}
		}
	}
}

func TestSIGKILLDuringBackfillWatcherAndInbox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts many processes")
	}
	ctx := context.Background()
	t.Run("backfill", func(t *testing.T) {
		h := newHome(t, 300)
		if out, err := h.cli(ctx, "kb", "index-vault", "--no-embed"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		// Kill each run once it has stored another batch, while chunks are
		// still waiting: the store must stay consistent every time, and each
		// run must keep what the one before it stored.
		var seen []int
		last := 0
		for range 4 {
			killed := h.killWhen(func() bool { n, total := vectorCount(t, h.dir); return n > last && n < total }, "kb", "embed")
			checkIntegrity(t, h.dir)
			n, total := vectorCount(t, h.dir)
			seen = append(seen, n)
			if !killed || n < last || n >= total {
				break
			}
			last = n
		}
		if len(seen) < 2 || seen[0] == 0 {
			t.Fatalf("the kills did not land mid-backfill: vectors after each kill %v", seen)
		}
		if out, err := h.cli(ctx, "kb", "embed"); err != nil {
			t.Fatalf("resume: %v\n%s", err, out)
		}
		for _, row := range snapshot(t, h.dir) {
			if !strings.HasSuffix(row, "vectors=1") {
				t.Fatalf("after resuming: %s", row)
			}
		}
		t.Logf("vectors after each kill: %v", seen)
	})
	t.Run("watcher", func(t *testing.T) {
		h := newHome(t, 60)
		for i := range 5 {
			sched := h.start("sync")
			time.Sleep(time.Duration(150+i*40) * time.Millisecond)
			h.mutate(i)
			time.Sleep(time.Duration(30*i) * time.Millisecond)
			sched.Process.Signal(syscall.SIGKILL)
			sched.Wait()
			checkIntegrity(t, h.dir)
		}
		// A restart converges: the scheduler's own refresh at start, then a
		// last index-vault to be sure it has run.
		sched := h.start("sync")
		time.Sleep(500 * time.Millisecond)
		stop(sched, syscall.SIGTERM)
		if out, err := h.cli(ctx, "kb", "index-vault"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if got, want := snapshot(t, h.dir), serial(t, h, nil); !slices.Equal(got, want) {
			t.Fatalf("after kills and a restart: %d vs %d chunks\n%v\n%v", len(got), len(want), diff(got, want), diff(want, got))
		}
	})
	t.Run("inbox", func(t *testing.T) {
		h := newHome(t, 3)
		inbox := t.TempDir()
		cfg, _ := os.ReadFile(filepath.Join(h.dir, "config.toml"))
		cfg = append(cfg, []byte(fmt.Sprintf("[sync]\npdf_watch_dir = %q\n", inbox))...)
		os.WriteFile(filepath.Join(h.dir, "config.toml"), cfg, 0o600)
		src, err := os.ReadFile(filepath.Join("..", "..", "backend", "pdf", "testdata", "annotated.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		// Distinct files: the same bytes with a trailing comment each.
		for i := range 6 {
			os.WriteFile(filepath.Join(inbox, fmt.Sprintf("paper%d.pdf", i)), append(slices.Clone(src), []byte(fmt.Sprintf("\n%% copy %d\n", i))...), 0o644)
		}
		papers := func() int {
			db, _ := sql.Open("sqlite", "file:"+filepath.Join(h.dir, "rag", kb.DBName)+"?mode=ro&_pragma=busy_timeout(30000)")
			defer db.Close()
			var n int
			db.QueryRow(`SELECT count(DISTINCT source) FROM chunks WHERE doc_type = 'paper'`).Scan(&n)
			return n
		}
		time.Sleep(2100 * time.Millisecond) // the inbox reads files that have held still
		// Kill the scheduler each time its inbox scan has stored another
		// paper; every restart carries on with the rest.
		var seen []int
		for range 3 {
			last := papers()
			if !h.killWhen(func() bool { return papers() > last }, "sync") {
				t.Fatal("the scheduler ended by itself")
			}
			checkIntegrity(t, h.dir)
			seen = append(seen, papers())
			if seen[len(seen)-1] == 6 {
				break
			}
		}
		sched := h.start("sync")
		deadline := time.Now().Add(60 * time.Second)
		for papers() < 6 {
			if time.Now().After(deadline) {
				t.Fatalf("inbox after kills %v and a restart: %d distinct papers of 6", seen, papers())
			}
			time.Sleep(100 * time.Millisecond)
		}
		stop(sched, syscall.SIGTERM)
		checkIntegrity(t, h.dir)
		// Six copies of one paper, each whole: the same number of chunks.
		db, _ := sql.Open("sqlite", "file:"+filepath.Join(h.dir, "rag", kb.DBName)+"?mode=ro")
		defer db.Close()
		var n, sizes int
		db.QueryRow(`SELECT count(*), count(DISTINCT c) FROM (SELECT count(*) AS c FROM chunks WHERE doc_type = 'paper' GROUP BY source)`).Scan(&n, &sizes)
		if n != 6 || sizes != 1 {
			t.Fatalf("%d papers with %d different chunk counts", n, sizes)
		}
		t.Logf("papers after each kill: %v", seen)
	})
}
