package mcpcmd_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-kb/jarvis/backend/kb/synth"
)

// BenchmarkSearchOverStdio is a search as an MCP client sees it: the SDK's
// client starts `jarvis-cli mcp` and calls search over its stdio, on a
// vault of 10,000 generated notes (one in ten private), keyword search
// (no models here). It reports the median and 95th percentile latency.
//
//	go test -run '^$' -bench SearchOverStdio -benchtime 200x ./cmd/jarvis-cli/internal/mcpcmd
func BenchmarkSearchOverStdio(b *testing.B) {
	const notes = 10000
	root := repoRoot(b)
	cli := buildCLI(b, root)
	home, vault := b.TempDir(), b.TempDir()
	corpus := synth.New(30000, 1)
	for i := range notes {
		d := corpus.Doc(i)
		dir := "notes"
		if d.Private {
			dir = "private"
		}
		p := filepath.Join(vault, dir, fmt.Sprintf("n%05d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("# "+d.Title+"\n\n"+d.Body+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := fmt.Sprintf("[vault]\npath = %q\nprivate_dirs = [\"private\"]\n", vault)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	index := exec.Command(cli, "kb", "index-vault")
	index.Env = append(os.Environ(), "JARVIS_HOME="+home)
	if out, err := index.CombinedOutput(); err != nil {
		b.Fatalf("index: %v\n%s", err, out)
	}
	server := exec.Command(cli, "mcp")
	server.Env = append(os.Environ(), "JARVIS_HOME="+home)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	queries := corpus.Queries(500, notes)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": queries[i%len(queries)]}})
		if err != nil || res.IsError {
			b.Fatalf("search: %v %+v", err, res)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
