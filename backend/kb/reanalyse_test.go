package kb

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/jarvis-kb/jarvis/backend/analysis"
)

// makeLegacy rewrites every chunk's lexical entries the way the analyser
// before lexVersion 2 made them (a CJK run one whole term, English
// stemming) and drops the version, as a store written by that release.
func makeLegacy(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	err := s.writeTx(ctx, "test", func(tx *sql.Tx) error {
		gen, err := bumpGeneration(ctx, tx)
		if err != nil {
			return err
		}
		chunks, err := chunksAfter(ctx, tx, 0, 1000)
		if err != nil {
			return err
		}
		for _, c := range chunks {
			counts := map[string]uint32{}
			var n uint32
			for _, w := range strings.FieldsFunc(strings.ToLower(c.Content), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				if terms := analysis.Terms(w, analysis.English); w[0] < 0x80 {
					if len(terms) == 0 {
						continue
					}
					w = terms[0]
				}
				counts[w]++
				n++
			}
			var entries []lexEntry
			for w, k := range counts {
				if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO lex_terms(term) VALUES (?)`, w); err != nil {
					return err
				}
				var id int64
				if err := tx.QueryRowContext(ctx, `SELECT id FROM lex_terms WHERE term = ?`, w).Scan(&id); err != nil {
					return err
				}
				entries = append(entries, lexEntry{term: uint32(id), body: k})
			}
			if _, err := tx.ExecContext(ctx, `UPDATE chunks SET lex = ?, rev = ? WHERE id = ?`, encodeLexBlob(n, 0, entries), gen, c.ID); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN ('lex_version', 'lex_cursor')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func firstHit(t *testing.T, sr *Searcher, q string) string {
	t.Helper()
	r, err := sr.Search(context.Background(), q, 3, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) == 0 {
		return ""
	}
	return r.Hits[0].Chunk.Meta.FilePath
}

// An existing store's entries are re-analysed in batches: search keeps
// answering throughout, a stopped pass resumes at its cursor, and the CJK
// question the old entries could not answer is answered at the end.
func TestReanalyseLexMigratesInBackground(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	var chunks []Chunk
	chunks = append(chunks, note("hotkeys.md", "在设置里打开快捷键页面，按下新的按键组合即可更改。", Public, nil))
	chunks = append(chunks, note("landlord.md", "the landlord kept the deposit", Public, nil))
	for i := range 8 {
		chunks = append(chunks, note("filler"+string(rune('a'+i))+".md", "unrelated words about gardening and tomatoes", Public, nil))
	}
	if err := s.Commit(chunks, ""); err != nil {
		t.Fatal(err)
	}
	if stale, _, err := s.LexStale(context.Background()); err != nil || stale {
		t.Fatalf("a new store is stale: %v %v", stale, err)
	}
	makeLegacy(t, s)
	s.Close()

	s = open(t, dir) // as the next release opens it
	ctx := context.Background()
	sr := NewSearcher(s, SearchOptions{}, nil)
	stale, left, err := s.LexStale(ctx)
	if err != nil || !stale || left != len(chunks) {
		t.Fatalf("legacy store: stale %v left %d err %v", stale, left, err)
	}
	if got := firstHit(t, sr, "怎样设置快捷键"); got != "" {
		t.Fatalf("old entries already answer the CJK question (%s): the legacy store is not legacy", got)
	}
	if got := firstHit(t, sr, "landlords deposits"); got != "landlord.md" {
		t.Fatalf("before: %q", got)
	}

	defer func(b int) { ReanalyseBatch = b }(ReanalyseBatch)
	ReanalyseBatch = 3
	stop, cancel := context.WithCancel(ctx)
	var seen []int
	n, err := ReanalyseLex(stop, s, func(done, total int) {
		seen = append(seen, done)
		if done >= 3 {
			cancel() // a kill between batches
		}
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Fatalf("stopped pass: %d %v", n, err)
	}
	if _, left, _ := s.LexStale(ctx); left != len(chunks)-3 {
		t.Fatalf("after one batch %d left", left)
	}
	if got := firstHit(t, sr, "landlords deposits"); got != "landlord.md" {
		t.Fatalf("meanwhile: %q", got)
	}

	n, err = ReanalyseLex(ctx, s, nil)
	if err != nil || n != len(chunks)-3 {
		t.Fatalf("resumed pass: %d %v", n, err)
	}
	if stale, _, _ := s.LexStale(ctx); stale {
		t.Fatal("still stale after the pass")
	}
	if got := firstHit(t, sr, "怎样设置快捷键"); got != "hotkeys.md" {
		t.Fatalf("after: %q", got)
	}
	if got := firstHit(t, sr, "landlords deposits"); got != "landlord.md" {
		t.Fatalf("after: %q", got)
	}
	if n, err := ReanalyseLex(ctx, s, nil); n != 0 || err != nil {
		t.Fatalf("a current store re-analysed again: %d %v", n, err)
	}
}
