package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/kb"
)

// genVault writes n notes spread over 50 folders, a fifth of them records.
func genVault(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	for i := 0; i < n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("area%02d", i%50))
		if i%10 == 0 {
			dir = filepath.Join(root, "private", fmt.Sprintf("p%02d", i%7))
		}
		os.MkdirAll(dir, 0o755)
		text := fmt.Sprintf("# Note %d\n\nThe acme plan number %d mentions the grant and an interview.\n\n## Details\n\nMore words about item %d.\n", i, i, i)
		if i%5 == 0 {
			text = fmt.Sprintf("---\ntype: job_application\nstatus: applied\nentity: Acme %d\ntags: [work, 2026]\n---\n", i) + text
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%05d.md", i)), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkRefresh10k measures the refresh bookkeeping (walk, hash, parse,
// chunk, commit) on a 10k-note vault with a trivial embedder, so the number
// is the cost Jarvis adds on top of the embedding model.
func BenchmarkRefresh10k(b *testing.B) {
	root := genVault(b, 10000)
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			emb := &bowEmbedder{}
			s, err := kb.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			r := &Refresher{Root: root, PrivateDirs: []string{"private"}, Store: s, Embed: emb, ChunkSize: 1024, ChunkOverlap: 128}
			b.StartTimer()
			res, err := r.Refresh(context.Background())
			if err != nil || res.Added != 10000 {
				b.Fatalf("%v %+v", err, res)
			}
			b.StopTimer()
			s.Close()
			b.StartTimer()
		}
	})
	b.Run("noop", func(b *testing.B) {
		emb := &bowEmbedder{}
		s, err := kb.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		r := &Refresher{Root: root, PrivateDirs: []string{"private"}, Store: s, Embed: emb, ChunkSize: 1024, ChunkOverlap: 128}
		if _, err := r.Refresh(context.Background()); err != nil {
			b.Fatal(err)
		}
		calls := emb.calls
		for b.Loop() {
			res, err := r.Refresh(context.Background())
			if err != nil || res.Added+res.Updated+res.Deleted != 0 {
				b.Fatalf("%v %+v", err, res)
			}
		}
		if emb.calls != calls {
			b.Fatal("a no-op refresh embedded something")
		}
	})
}
