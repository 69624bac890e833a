package kb

import (
	"strings"
	"testing"
)

func TestSplitSectionsBreadcrumbs(t *testing.T) {
	md := "intro text\n# Alpha\nA body\n## Methods\nM body\n```\n# not a heading\n```\n## Results\nR body\n# Beta\nB body\n"
	secs := SplitSections(md)
	want := []struct{ crumb, text string }{
		{"", "intro text"}, {"Alpha", "A body"}, {"Alpha › Methods", "M body\n```\n# not a heading\n```"}, {"Alpha › Results", "R body"}, {"Beta", "B body"},
	}
	if len(secs) != len(want) {
		t.Fatalf("sections = %+v", secs)
	}
	for i, w := range want {
		if secs[i].Breadcrumb != w.crumb || secs[i].Text != w.text {
			t.Errorf("section %d = %+v, want %+v", i, secs[i], w)
		}
	}
}

func TestSplitSizeRespectsLimitOverlapAndBoundaries(t *testing.T) {
	para := strings.Repeat("word ", 60) // 300 chars
	text := para + "\n\n" + para + "\n\n" + para
	pieces := SplitSize(text, 400, 50)
	if len(pieces) < 3 {
		t.Fatalf("pieces = %d", len(pieces))
	}
	for _, p := range pieces {
		if len([]rune(p)) > 400 {
			t.Fatalf("piece over size: %d", len(p))
		}
		if strings.HasPrefix(p, "ord") || strings.HasSuffix(p, "wor") {
			t.Fatalf("cut mid-word: %q", p[:20])
		}
	}
	if SplitSize("short", 400, 50)[0] != "short" {
		t.Fatal("short text is one piece")
	}
	// A zero size (a Refresher built without settings) once cut forever.
	if got := SplitSize(text, 0, 50); len(got) != 1 || got[0] != text {
		t.Fatalf("size 0 gave %d pieces", len(got))
	}
}

func TestChunkMarkdownPrependsHeadersToEmbedTextOnly(t *testing.T) {
	chunks := ChunkMarkdown("# Jobs\n## Acme\nApplied in May.\n", 1024, 128, "job_application · Acme Bio · rejected")
	if len(chunks) != 1 {
		t.Fatalf("%+v", chunks)
	}
	c := chunks[0]
	if c.Content != "Applied in May." || c.Meta.Section != "Jobs › Acme" {
		t.Fatalf("content/section: %+v", c)
	}
	if c.EmbedText != "job_application · Acme Bio · rejected\nJobs › Acme\nApplied in May." {
		t.Fatalf("embed text: %q", c.EmbedText)
	}
}

func TestTags(t *testing.T) {
	if got := EncodeTags([]string{"remote", " remote-first", "remote", ""}); got != "|remote|remote-first|" {
		t.Fatalf("%q", got)
	}
	if strings.Contains(EncodeTags([]string{"remote-first"}), "|remote|") {
		t.Fatal("separators must prevent prefix matches")
	}
	if got := DecodeTags("|a|b|"); len(got) != 2 || got[1] != "b" {
		t.Fatal(got)
	}
}
