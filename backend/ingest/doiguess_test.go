package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/pdf/pdftest"
)

// A local PDF that prints no DOI gets one guessed by the model, marked as a
// guess on every chunk and in a warning; a reply that is no DOI is
// ignored; a paper from a server is never guessed for.
func TestDOIIsGuessedWhenTheTextHasNone(t *testing.T) {
	ctx := context.Background()
	path := pdftest.Text(t, "Gating cells at scale", "Ada Example and Bo Sample", "We gate a million cells per second with sparse attention.")
	m := &fakeModel{completeReply: `{"title": "Gating cells at scale", "authors": "Ada Example; Bo Sample", "doi": "10.5555/gating.42"}`}
	res, err := BuildPaper(ctx, Paper{Path: path, Mode: FullText}, Options{ChunkSize: 1024, Model: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.DOI != "10.5555/gating.42" || m.completes != 1 || !strings.Contains(strings.Join(res.Warnings, " "), "guessed by the model") {
		t.Fatalf("doi %q completes %d warnings %v", res.DOI, m.completes, res.Warnings)
	}
	for _, c := range res.Chunks {
		if c.Meta.DOI != "10.5555/gating.42" || c.Meta.Extra[DOIGuessField] == "" {
			t.Fatalf("chunk not marked as a guess: %+v", c.Meta)
		}
	}
	m = &fakeModel{completeReply: `{"title": "Gating cells at scale", "authors": "Ada Example", "doi": "unknown"}`}
	if res, _ = BuildPaper(ctx, Paper{Path: path, Mode: FullText}, Options{ChunkSize: 1024, Model: m}); res.DOI != "" || res.Chunks[0].Meta.Extra[DOIGuessField] != "" {
		t.Fatalf("a non-DOI answer was stored: %q", res.DOI)
	}
	// A DOI printed in the paper is read, not guessed.
	m = &fakeModel{completeReply: `{"title": "x", "authors": "y", "doi": "10.5555/other"}`}
	res, _ = BuildPaper(ctx, Paper{Path: "../pdf/testdata/annotated.pdf", Mode: FullText}, Options{ChunkSize: 1024, Model: m})
	if res.DOI != "10.1234/jarvis.5678" || res.Chunks[0].Meta.Extra[DOIGuessField] != "" {
		t.Fatalf("printed DOI: %q %+v", res.DOI, res.Chunks[0].Meta.Extra)
	}
	// A paper filed under its server's link keeps that identity.
	m = &fakeModel{completeReply: `{"title": "x", "authors": "y", "doi": "10.5555/other"}`}
	res, _ = BuildPaper(ctx, Paper{Path: path, Source: "https://arxiv.org/abs/2611.01234", Title: "T", Authors: "A", Mode: FullText}, Options{ChunkSize: 1024, Model: m})
	if res.DOI != "" || m.completes != 0 {
		t.Fatalf("a server's paper got a guessed DOI: %q (%d calls)", res.DOI, m.completes)
	}
}
