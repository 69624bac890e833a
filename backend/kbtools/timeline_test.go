package kbtools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jarvis-kb/jarvis/backend/analysis"
	"github.com/jarvis-kb/jarvis/backend/kb"
	"github.com/jarvis-kb/jarvis/backend/kbtools/kbtoolstest"
	"github.com/jarvis-kb/jarvis/backend/vault"
)

// vaultKB writes notes into the vault at root (private/ is private),
// indexes it with chunks of chunkSize, and returns the tool layer over it.
func vaultKB(t *testing.T, root string, notes map[string]string, chunkSize int) *KB {
	t.Helper()
	kbtoolstest.WriteVault(t, root, notes)
	return kbAt(t, root, chunkSize)
}

// kbAt indexes the vault at root as it is.
func kbAt(t *testing.T, root string, chunkSize int) *KB {
	t.Helper()
	s, err := kb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := &vault.Refresher{Root: root, PrivateDirs: []string{"private"}, Store: s, ChunkSize: chunkSize}
	if _, err := r.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return &KB{Searcher: kb.NewSearcher(s, kb.SearchOptions{}, nil), Store: s, VaultRoot: root, PrivateDirs: []string{"private"}, NResults: 10}
}

// timelineKB is a vault about Dr. Tanaka: two meeting records filed under
// her, a note and a private diary entry that name her, and a note that
// does not.
func timelineKB(t *testing.T) *KB {
	t.Helper()
	root := t.TempDir()
	notes := map[string]string{
		"meetings/second.md": "---\ncategory: meeting\nentity: Tanaka\ndate: 2026-05-02\n---\n# Second meeting\n\nWe agreed on the sequencing budget.\n",
		"meetings/first.md":  "---\ncategory: meeting\nentity: Tanaka\ndate: 2026-03-10\n---\n# First meeting\n\nIntroductions and the project plan.\n",
		"ideas/grant.md":     "# Grant idea\n\nAsk [[Tanaka]] whether her lab shares the cell lines.\n",
		"private/diary.md":   "# Diary\n\nTanaka was short with me today.\n",
		"ideas/other.md":     "# Other\n\nNothing about anyone in particular.\n",
	}
	return vaultKB(t, root, notes, 400)
}

func TestTimelineListsRecordsAndMentionsInDateOrderEachCited(t *testing.T) {
	k, ctx := timelineKB(t), context.Background()
	var l ledger
	items, err := k.Timeline(ctx, Caller{Ledger: &l}, "Tanaka", 0)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, it := range items {
		paths = append(paths, it.Doc.FilePath)
		if it.Citation.Source == "" {
			t.Errorf("%s is not cited", it.Doc.FilePath)
		}
	}
	got := strings.Join(paths, " ")
	// The records lead, in their own dates' order; the mentions follow,
	// placed on the day their files changed (today).
	if !strings.HasPrefix(got, "meetings/first.md meetings/second.md") || len(items) != 4 ||
		!strings.Contains(got, "ideas/grant.md") || !strings.Contains(got, "private/diary.md") || strings.Contains(got, "other.md") {
		t.Fatalf("timeline = %s", got)
	}
	if !items[0].Record || items[0].Date != "2026-03-10" || items[2].Record || items[2].Excerpt == "" {
		t.Errorf("items = %+v", items)
	}
	if !l.private || len(l.cites) < 4 {
		t.Errorf("ledger = %+v: want every item cited and the caller private", l)
	}
}

func TestTimelineOfACloudCallerHoldsNoPrivateItem(t *testing.T) {
	k, ctx := timelineKB(t), context.Background()
	var l ledger
	items, err := k.Timeline(ctx, Caller{Cloud: true, Ledger: &l}, "Tanaka", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Doc.Visibility == kb.Private || strings.Contains(it.Excerpt, "short with me") {
			t.Errorf("a cloud caller was given %s", it.Doc.FilePath)
		}
	}
	if len(items) != 3 || l.private || l.withheld != 1 {
		t.Errorf("%d items, ledger %+v; want 3 public items and 1 withheld", len(items), l)
	}
}

// A timeline hands the caller only the items it returns: a short one
// that leaves out the private diary neither cites it nor makes the caller
// private.
func TestTimelineHandsOnlyWhatItReturns(t *testing.T) {
	k, ctx := timelineKB(t), context.Background()
	var l ledger
	items, err := k.Timeline(ctx, Caller{Ledger: &l}, "Tanaka", 1)
	if err != nil || len(items) != 1 || items[0].Doc.FilePath != "meetings/first.md" {
		t.Fatalf("%v %+v", err, items)
	}
	if l.private || len(l.cites) != 1 {
		t.Errorf("ledger = %+v: want the one item cited, the caller not private", l)
	}
}

func TestNameAtMatchesWholeWordsAndTheExcerptHoldsTheName(t *testing.T) {
	for text, want := range map[string]int{"I like Li.": 7, "Li": 0, "likely": -1, "Dr. LI, and more": 4, "Élise met li": 11, "Lisbon": -1} {
		if got := nameAt(text, "Li"); got != want {
			t.Errorf("nameAt(%q, Li) = %d, want %d", text, got, want)
		}
	}
	if got := nameAt("昨日田中さんと会った", "田中"); got != len("昨日") {
		t.Errorf("a Japanese name in running text: %d", got)
	}
	long := strings.Repeat("filler words here ", 40) + "then Tanaka spoke " + strings.Repeat("more words after ", 40)
	ex := analysis.Plain(analysis.Excerpt(long, "Tanaka", TimelineExcerptChars))
	if !strings.Contains(ex, "Tanaka spoke") || !strings.HasPrefix(ex, "…") || !strings.HasSuffix(ex, "…") || len([]rune(ex)) > TimelineExcerptChars+2 {
		t.Errorf("excerpt = %q", ex)
	}
}

// A model's timeline finds the mentions however few results its searches
// default to: the mention search is not cut to the configured n_results.
func TestATimelineSearchesPastTheDefaultResultCount(t *testing.T) {
	k, ctx := timelineKB(t), context.Background()
	k.NResults = 1
	items, err := k.Timeline(ctx, Caller{}, "Tanaka", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 4 {
		t.Fatalf("%d items, want the 2 records and the 2 mentions: %+v", len(items), items)
	}
}

// aliasKB is a vault where Dr. Tanaka has a note of her own with aliases:
// a record is filed under one alias, a note names her by another. A
// private note gives a project an alias that only the user may see.
func aliasKB(t *testing.T) *KB {
	t.Helper()
	root := t.TempDir()
	notes := map[string]string{
		"people/Tanaka.md":  "---\naliases: [Dr. Tanaka, 田中]\n---\n# Tanaka\n\nCollaborator on single-cell work.\n",
		"meetings/visit.md": "---\ncategory: meeting\nentity: Dr. Tanaka\ndate: 2026-04-01\n---\n# Lab visit\n\nA tour of the sequencing core.\n",
		"notes/kyoto.md":    "# Kyoto\n\n田中さんと京都で会った。\n",
		"ideas/plain.md":    "# Plain\n\nNothing about anyone in particular.\n",
		"private/Orion.md":  "---\naliases: [Bluebird]\n---\n# The project\n\nIts secret name.\n",
		"notes/bird.md":     "# Birds\n\nBluebird migration counts.\n",
		"notes/orion.md":    "# Stars\n\nOrion is visible in winter.\n",
	}
	return vaultKB(t, root, notes, 400)
}

func timelinePaths(t *testing.T, k *KB, c Caller, entity string) []string {
	t.Helper()
	items, err := k.Timeline(context.Background(), c, entity, 0)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, it := range items {
		paths = append(paths, it.Doc.FilePath)
	}
	return paths
}

// An entity is followed by all its names: asked for by its title or by any
// alias, the timeline holds the record filed under an alias and the note
// naming her by another; a private note's aliases widen only the user's
// own timeline, never a cloud caller's.
func TestTimelineFollowsAnEntityByItsAliases(t *testing.T) {
	k := aliasKB(t)
	for _, asked := range []string{"Tanaka", "Dr. Tanaka", "田中"} {
		paths := timelinePaths(t, k, Caller{Person: true}, asked)
		for _, want := range []string{"meetings/visit.md", "notes/kyoto.md"} {
			if !slices.Contains(paths, want) {
				t.Errorf("asked for %q: %s missing from %v", asked, want, paths)
			}
		}
		if slices.Contains(paths, "ideas/plain.md") {
			t.Errorf("asked for %q: a note naming nobody is in %v", asked, paths)
		}
	}
	// The private note says Bluebird is Orion: the user's timeline of
	// Bluebird includes the star note; a cloud caller's does not.
	if paths := timelinePaths(t, k, Caller{Person: true}, "Bluebird"); !slices.Contains(paths, "notes/orion.md") {
		t.Errorf("the user's timeline misses the alias from the private note: %v", paths)
	}
	if paths := timelinePaths(t, k, Caller{Cloud: true}, "Bluebird"); slices.Contains(paths, "notes/orion.md") || slices.Contains(paths, "private/Orion.md") {
		t.Errorf("a private note's alias reached a cloud caller's timeline: %v", paths)
	}
}

// A timeline runs across every kind of document: a paper and a past chat
// that name the entity stand beside the notes, in date order, each cited
// by its own source.
func TestTimelineTakesInPapersAndPastChats(t *testing.T) {
	k, ctx := timelineKB(t), context.Background()
	extra := []kb.Chunk{
		{Content: "Single-cell atlas of the gut, with Tanaka and colleagues.", EmbedText: "Single-cell atlas of the gut, with Tanaka and colleagues.",
			Meta: kb.Metadata{DocType: kb.DocPaper, Visibility: kb.Public, Source: "https://arxiv.org/abs/2604.01234", Title: "Gut atlas", DateAdded: "2026-04-15T09:00:00Z"}},
		{Content: "User: what did Tanaka say about the cell lines? Assistant: she will share them.", EmbedText: "User: what did Tanaka say about the cell lines?",
			Meta: kb.Metadata{DocType: kb.DocChat, Visibility: kb.Public, Source: "chat:20260601-100000-0123456789ab", Title: "Cell lines", DateAdded: "2026-06-01T10:00:00Z"}},
	}
	if err := k.Store.Ingest(ctx, nil, extra, nil); err != nil {
		t.Fatal(err)
	}
	items, err := k.Timeline(ctx, Caller{Person: true}, "Tanaka", 0)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, it := range items {
		if it.Doc.DocType == kb.DocPaper || it.Doc.DocType == kb.DocChat {
			if it.Citation.Source != it.Doc.Source {
				t.Errorf("%s is cited as %q", it.Doc.Source, it.Citation.Source)
			}
			order = append(order, it.Doc.Source)
		}
	}
	want := []string{"https://arxiv.org/abs/2604.01234", "chat:20260601-100000-0123456789ab"}
	if !slices.Equal(order, want) {
		t.Fatalf("papers and chats in the timeline: %v, want %v in date order", order, want)
	}
	for i := 1; i < len(items); i++ {
		if a, b := items[i-1].Date, items[i].Date; a != "" && b != "" && a > b {
			t.Fatalf("out of date order: %s before %s", a, b)
		}
	}
}
