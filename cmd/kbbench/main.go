// Command kbbench builds a generated knowledge base and holds it in memory,
// for measurements that need a real process: resident memory of a process
// with the index loaded (run it under /usr/bin/time -v) and the cold
// `jarvis-cli kb search` (its benchmark builds a store with this package).
//
//	kbbench build -dir DIR -chunks 60000 -dims 384
//	kbbench hold  -dir DIR -dims 384 -queries 200 [-embedder DIR -reranker DIR -model ID -rerank-int8=false -rerank-max-tokens N]
//	kbbench vault -dir VAULT -notes 20000 [-passages 3 | -words 115]
//	kbbench fill  -dir DIR -dims 384 -model ID
//
// The text and vectors come from backend/kb/synth; nothing is read from
// disk but the store. With -embedder and -reranker (model folders, e.g.
// the real-shape graphs of embed/embedtest), hold loads them as the window
// does and runs every query through them: the query vectors are then the
// graph's (matched against the synth vectors, so the ranking means
// nothing), but the time and the memory are those of a process holding
// both models.
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/jarvis-kb/jarvis/backend/daemon"
	"github.com/jarvis-kb/jarvis/backend/embed"
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
	embedDir := fs.String("embedder", "", "hold: an embedding model folder to embed the queries with")
	rerankDir := fs.String("reranker", "", "hold: a reranker model folder to rerank with")
	notes := fs.Int("notes", 20_000, "vault: notes to write")
	passages := fs.Int("passages", 3, "vault: generated passages per note")
	words := fs.Int("words", 0, "vault: write each note as one passage of this many common English words instead (115: one chunk of about 128 tokens)")
	modelID := fs.String("model", "", "fill: the model id the generated vectors are stored under; hold: the id the store's vectors have (default synth)")
	rerankInt8 := fs.Bool("rerank-int8", true, "hold: run the reranker's weights in int8 (rag.rerank_precision)")
	rerankMax := fs.Int("rerank-max-tokens", 128, "hold: cap each reranked pair (rag.rerank_max_tokens; 0: the model's limit)")
	memProfile := fs.String("memprofile", "", "hold: write a heap profile here after the searches (go tool pprof)")
	embedDocs := fs.Int("embed-docs", 0, "hold: chunks to embed with -embedder before searching (as a backfill in the process would)")
	fs.Parse(os.Args[2:])
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "-dir is required")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = Build(*dir, *chunks, *dims)
	case "vault":
		if *words > 0 {
			err = writeWordVault(*dir, *notes, *words)
		} else {
			err = writeVault(*dir, *notes, *passages)
		}
	case "fill":
		err = fill(*dir, *modelID, *dims)
	case "hold":
		err = hold(*dir, *dims, *queries, *embedDir, *modelID, *embedDocs, *memProfile,
			embed.RerankerOptions{Dir: *rerankDir, Int8: *rerankInt8, MaxPairTokens: *rerankMax})
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

// writeVault writes n Markdown notes of generated passages (three: about
// 3,000 characters, three chunks), in 100 folders, for measurements
// of the real processes on a vault of that size.
func writeVault(dir string, n, passages int) error {
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntags: [gen%d]\n---\n# %s\n", i%20, corpus.Doc(3*i).Title)
		for j := range passages {
			d := corpus.Doc(3*i + j)
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", d.Title, d.Body)
		}
		if err := writeNote(dir, i, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// writeNote writes note i, spread over 100 folders as a vault would be.
func writeNote(dir string, i int, text string) error {
	p := filepath.Join(dir, fmt.Sprintf("f%02d", i%100), fmt.Sprintf("n%05d.md", i))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

// commonWords are English words that are one WordPiece token each in the
// BERT vocabulary, so a note of n of them is about n tokens long.
var commonWords = strings.Fields(`the of and to in is was for on that with as by at from his her they have
	had were are which this be or an not but one all their there been has more when who will would can
	out so what up its into them only time some could these two may then first other new like over such
	our man also any after most made years work between well many where through even back much water
	long before same very people year used city state part world high small large under river early
	number house school music group family field light north south west east point line house study
	model data cell gene protein paper method result order power market plant heart child music night`)

// writeWordVault writes n one-passage notes of words common words each,
// drawn deterministically: the notes a whole-process indexing benchmark
// compares with a reference that runs fixed-length sequences.
func writeWordVault(dir string, n, words int) error {
	state := uint32(1)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# note %d\n\n", i)
		for w := range words {
			state = state*1664525 + 1013904223
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(commonWords[int(state>>8)%len(commonWords)])
		}
		b.WriteString(".\n")
		if err := writeNote(dir, i, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// fill gives every chunk waiting for a vector of model id a generated one
// (what a backfill with that model would store, minus the inference), so a
// store indexed by keyword can be measured as fully embedded.
func fill(dir, id string, dims int) error {
	if id == "" || dims <= 0 {
		return fmt.Errorf("fill needs -model and -dims")
	}
	s, err := kb.Open(dir)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := kb.Backfill(context.Background(), s, hashEmbedder{kb.ModelInfo{ID: id, Dims: dims}}, kb.BackfillOptions{Wait: true})
	fmt.Printf("filled %d chunks\n", res.Embedded)
	return err
}

// hashEmbedder makes a text's vector from its hash: the topic spread of a
// real model is not needed to measure time and memory.
type hashEmbedder struct{ info kb.ModelInfo }

func (h hashEmbedder) Info() kb.ModelInfo { return h.info }
func (h hashEmbedder) Backend() string    { return "synth" }
func (h hashEmbedder) EmbedQuery(ctx context.Context, q string) ([]float32, error) {
	v, err := h.EmbedDocuments(ctx, []string{q})
	return v[0], err
}
func (h hashEmbedder) EmbedDocuments(_ context.Context, ts []string) ([][]float32, error) {
	out := make([][]float32, len(ts))
	for i, t := range ts {
		f := fnv.New64a()
		f.Write([]byte(t))
		out[i] = corpus.QueryVector(int(f.Sum64()%1_000_000), h.info.Dims)
	}
	return out, nil
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

// modelEmbedder embeds queries with a loaded model but presents itself as
// the model the store's vectors belong to (synth, or -model), so they are
// the ones searched.
type modelEmbedder struct {
	kb.Embedder
	info kb.ModelInfo
}

func (m modelEmbedder) Info() kb.ModelInfo { return m.info }

// hold opens the store like the window or the tray does (index loaded with
// the vectors), runs hybrid searches, and reports time and memory.
func hold(dir string, dims, nq int, embedDir, modelID string, embedDocs int, memProfile string, rerank embed.RerankerOptions) error {
	rerankDir := rerank.Dir
	daemon.KeepHeapTight() // as the window and the tray do
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
	var rr kb.Reranker
	if embedDir != "" || rerankDir != "" {
		rt, err := embed.NewRuntime()
		if err != nil {
			return err
		}
		defer rt.Close()
		fmt.Printf("inference: %s\n", rt.Detail())
		if embedDir != "" {
			m, err := rt.Embedder(embed.EmbedderOptions{ID: "hold", Dir: embedDir})
			if err != nil {
				return err
			}
			if m.Info().Dims != dims {
				return fmt.Errorf("the embedder gives %d dimensions, the store holds %d", m.Info().Dims, dims)
			}
			info := Model(dims)
			if modelID != "" {
				info.ID = modelID
			}
			e = modelEmbedder{Embedder: m, info: info}
			if embedDocs > 0 {
				t := time.Now()
				for lo := 0; lo < embedDocs; lo += 64 { // the backfill's batch
					var texts []string
					for i := lo; i < min(lo+64, embedDocs); i++ {
						d := corpus.Doc(i)
						texts = append(texts, d.Title+"\n"+d.Body)
					}
					if _, err := m.EmbedDocuments(context.Background(), texts); err != nil {
						return err
					}
				}
				fmt.Printf("embedded %d chunks: %.1f chunks/s\n", embedDocs, float64(embedDocs)/time.Since(t).Seconds())
			}
		}
		if rerankDir != "" {
			m, err := rt.RerankerWith(rerank)
			if err != nil {
				return err
			}
			fmt.Printf("reranker: %s\n", m.Detail())
			rr = m
		}
		printMemory("models loaded")
	}
	sr := kb.NewSearcher(s, kb.SearchOptions{Hybrid: true, RerankTopN: 25}, rr, e)
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
			printMemory("after the first search")
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
	printMemory(fmt.Sprintf("after %d searches", len(qs)))
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.WriteHeapProfile(f)
	}
	return nil
}

// printMemory prints the process's resident memory now and its peak.
func printMemory(when string) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	var parts []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS") || strings.HasPrefix(line, "VmHWM") {
			parts = append(parts, strings.Join(strings.Fields(line), " "))
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	parts = append(parts, fmt.Sprintf("Go heap in use %d MB, held %d MB", ms.HeapInuse>>20, (ms.HeapSys-ms.HeapReleased)>>20))
	fmt.Printf("memory %s: %s\n", when, strings.Join(parts, "; "))
}
