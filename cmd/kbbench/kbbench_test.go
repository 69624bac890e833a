package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

// These benchmarks run real processes on generated stores (go test -bench
// . ./cmd/kbbench; each builds its store first, which takes a minute or
// two at these sizes).

// goBuild builds a command of this module into dir.
func goBuild(b *testing.B, dir, pkg string) string {
	b.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = "../.."
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// BenchmarkColdCLISearch runs `jarvis-cli kb search` (keyword mode: no
// models installed) as a new process per query on a store of 100k chunks.
// "first" is the very first search, which reads every row from SQLite and
// leaves the index snapshot; the p50/p95 are the searches after it.
func BenchmarkColdCLISearch(b *testing.B) {
	home := b.TempDir()
	cli := goBuild(b, b.TempDir(), "./cmd/jarvis-cli")
	const n = 100_000
	if err := Build(filepath.Join(home, "rag"), n, 0); err != nil {
		b.Fatal(err)
	}
	queries := corpus.Queries(100, n)
	search := func(q string) time.Duration {
		cmd := exec.Command(cli, "kb", "search", "-n", "5", q)
		cmd.Env = append(os.Environ(), "JARVIS_HOME="+home)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("search mode: keyword")) {
			b.Fatalf("kb search %q: %v\n%s", q, err, out)
		}
		return time.Since(start)
	}
	first := search(queries[0])
	var lat []time.Duration
	i := 1
	for b.Loop() {
		lat = append(lat, search(queries[i%len(queries)]))
		i++
	}
	slices.Sort(lat)
	b.ReportMetric(float64(first.Milliseconds()), "first-ms")
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Milliseconds()), "p95-ms")
	b.ReportMetric(0, "ns/op")
}

var hwm = regexp.MustCompile(`VmHWM: (\d+) kB`)

// BenchmarkHoldMemory: peak resident memory of a process that opens a
// store of 60k chunks (a 20k-note vault) with 384-dim vectors, loads its
// index with the vectors and runs hybrid searches — what the window and the
// tray hold for search (the embedding model's own weights come on top).
func BenchmarkHoldMemory(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "rag")
	bin := goBuild(b, b.TempDir(), "./cmd/kbbench")
	if err := Build(dir, 60_000, 384); err != nil {
		b.Fatal(err)
	}
	var peak []int
	for b.Loop() {
		os.Remove(filepath.Join(dir, "index.snapshot")) // each run loads from the store
		out, err := exec.Command(bin, "hold", "-dir", dir, "-dims", "384", "-queries", "100").CombinedOutput()
		m := hwm.FindSubmatch(out)
		if err != nil || m == nil {
			b.Fatalf("hold: %v\n%s", err, out)
		}
		kb, _ := strconv.Atoi(string(m[1]))
		peak = append(peak, kb)
		b.Log(string(out))
	}
	b.ReportMetric(float64(slices.Max(peak))/1024, "peak-RSS-MB")
	b.ReportMetric(0, "ns/op")
}
