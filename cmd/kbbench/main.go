// Command kbbench builds a generated knowledge base and holds it in memory,
// for measurements that need a real process: resident memory of a process
// with the index loaded (run it under /usr/bin/time -v) and the cold
// `jarvis-cli kb search` (its benchmark builds a store with this package).
//
//	kbbench build -dir DIR -chunks 60000 -dims 384
//	kbbench hold  -dir DIR -dims 384 -queries 200
//
// The text and vectors come from backend/kb/synth; nothing is read from
// disk but the store.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kb/synth"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kbbench build|hold [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", "", "the store's folder (the rag dir)")
	chunks := fs.Int("chunks", 60_000, "chunks to generate (three per note)")
	dims := fs.Int("dims", 384, "vector dimensions (0: keyword only)")
	queries := fs.Int("queries", 200, "searches to run while holding")
	fs.Parse(os.Args[2:])
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "-dir is required")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = Build(*dir, *chunks, *dims)
	case "hold":
		err = hold(*dir, *dims, *queries)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// Model is the (made-up) model the generated vectors belong to.
func Model(dims int) kb.ModelInfo { return kb.ModelInfo{ID: "synth", Dims: dims} }

var corpus = synth.New(60_000, 1)

// Build writes n generated chunks (vectors of dims when > 0) to the store in
// dir, 2,000 per commit.
func Build(dir string, n, dims int) error {
	s, err := kb.Open(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	if dims > 0 {
		if _, err := s.UseModel(context.Background(), Model(dims)); err != nil {
			return err
		}
	}
	emb := &embedder{dims: dims}
	for lo := 0; lo < n; lo += 2000 {
		batch := make([]kb.Chunk, 0, 2000)
		for i := lo; i < min(lo+2000, n); i++ {
			d := corpus.Doc(i)
			vis := kb.Public
			if d.Private {
				vis = kb.Private
			}
			path := fmt.Sprintf("notes/n%d.md", i/3)
			batch = append(batch, kb.Chunk{Content: d.Body, EmbedText: d.Title + "\n" + d.Body, Meta: kb.Metadata{
				DocType: kb.DocNote, Visibility: vis, Source: kb.SourceVault, FilePath: path, Title: d.Title, ChunkIndex: i % 3}})
			if dims > 0 {
				emb.next = append(emb.next, corpus.Vector(d, i, dims))
			}
		}
		var e kb.Embedder
		if dims > 0 {
			e = emb
		}
		if err := s.Ingest(context.Background(), e, batch, nil); err != nil {
			return err
		}
		emb.next = emb.next[:0]
	}
	return nil
}

// embedder hands out the generated vectors: the chunks' in order while
// building, a query's by its position in the query list.
type embedder struct {
	dims    int
	next    [][]float32
	queries map[string]int
}

func (e *embedder) Info() kb.ModelInfo { return Model(e.dims) }
func (e *embedder) Backend() string    { return "synth" }
func (e *embedder) EmbedDocuments(_ context.Context, ts []string) ([][]float32, error) {
	return e.next[:len(ts)], nil
}
func (e *embedder) EmbedQuery(_ context.Context, q string) ([]float32, error) {
	return corpus.QueryVector(e.queries[q], e.dims), nil
}

// hold opens the store like the window or the tray does (index loaded with
// the vectors), runs hybrid searches, and reports time and memory.
func hold(dir string, dims, nq int) error {
	start := time.Now()
	s, err := kb.Open(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	_, total, err := s.PendingCount(context.Background(), Model(dims).ID)
	if err != nil {
		return err
	}
	emb := &embedder{dims: dims, queries: map[string]int{}}
	var e kb.Embedder
	if dims > 0 {
		e = emb
	}
	sr := kb.NewSearcher(s, kb.SearchOptions{Hybrid: true, RerankTopN: 25}, nil, e)
	qs := corpus.Queries(nq, total)
	for i, q := range qs {
		emb.queries[q] = i
	}
	ctx := context.Background()
	var lat []time.Duration
	var mode kb.Mode
	for i, q := range qs {
		t := time.Now()
		res, err := sr.Search(ctx, q, 8, kb.Filter{Visibility: []string{kb.Public}})
		if err != nil {
			return err
		}
		if i == 0 {
			fmt.Printf("first search (opens and loads the index): %s\n", time.Since(t).Round(time.Millisecond))
			continue
		}
		mode = res.Mode
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	fmt.Printf("chunks: %d; mode: %s; %d searches p50 %s p95 %s; total %s\n", total, mode.Kind(), len(lat),
		lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*95/100].Round(time.Microsecond), time.Since(start).Round(time.Millisecond))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("go heap in use after GC: %d MB; heap sys %d MB; total sys %d MB\n", ms.HeapInuse>>20, ms.HeapSys>>20, ms.Sys>>20)
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "VmRSS") || strings.HasPrefix(line, "VmHWM") {
				fmt.Println(strings.Join(strings.Fields(line), " "))
			}
		}
	}
	return nil
}
