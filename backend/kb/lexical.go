package kb

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/jarvis-kb/jarvis/backend/analysis"
)

// The lexical index is stored per chunk: the column lex holds the chunk's
// analysed terms as (term id, count in the body, count in the metadata
// fields) triples, term ids from the lex_terms dictionary. That is the
// durable source every process builds its in-memory inverted index from
// (index.go) without re-analysing any text, and what a query's BM25 is
// computed over.
//
// Two fields: the metadata field (title, tags, section path, record header
// — the words a user remembers a note by) weighs more than the body.

// lexFields splits a chunk into its metadata text and its body text.
func lexFields(c Chunk) (meta, body string) {
	var m []string
	if c.Meta.Title != "" {
		m = append(m, c.Meta.Title)
	}
	if c.Meta.Tags != "" {
		m = append(m, strings.Join(DecodeTags(c.Meta.Tags), " "))
	}
	body = c.Content
	if head, ok := strings.CutSuffix(c.EmbedText, c.Content); ok {
		m = append(m, head) // record header and section breadcrumb
	} else {
		body = c.EmbedText
	}
	return strings.Join(m, "\n"), body
}

// termCounts is one chunk's analysed text.
type termCounts struct {
	terms            map[string][2]uint32 // term -> {body, meta} counts
	bodyLen, metaLen uint32
	lang             analysis.Lang // the stemmer's language for its Latin words
}

func analyseChunk(c Chunk) termCounts {
	meta, body := lexFields(c)
	tc := termCounts{terms: map[string][2]uint32{}, lang: analysis.Detect(meta + "\n" + body)}
	analysis.Each(body, tc.lang, func(t string) {
		n := tc.terms[t]
		n[0]++
		tc.terms[t] = n
		tc.bodyLen++
	})
	analysis.Each(meta, tc.lang, func(t string) {
		n := tc.terms[t]
		n[1]++
		tc.terms[t] = n
		tc.metaLen++
	})
	return tc
}

// lexEntry is one term of a chunk.
type lexEntry struct {
	term       uint32
	body, meta uint32
}

// encodeLexBlob writes: bodyLen, metaLen, then per term (sorted by id) the
// id delta, body count, meta count — all uvarints.
func encodeLexBlob(bodyLen, metaLen uint32, entries []lexEntry) []byte {
	slices.SortFunc(entries, func(a, b lexEntry) int { return int(a.term) - int(b.term) })
	b := make([]byte, 0, 4+len(entries)*4)
	b = binary.AppendUvarint(b, uint64(bodyLen))
	b = binary.AppendUvarint(b, uint64(metaLen))
	prev := uint32(0)
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(e.term-prev))
		b = binary.AppendUvarint(b, uint64(e.body))
		b = binary.AppendUvarint(b, uint64(e.meta))
		prev = e.term
	}
	return b
}

var errLexBlob = errors.New("malformed lexical entry")

// decodeLexBlob calls fn for every term of a stored blob.
func decodeLexBlob(b []byte, fn func(e lexEntry)) (bodyLen, metaLen uint32, err error) {
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	if len(b) == 0 {
		return 0, 0, nil
	}
	bl, ok1 := next()
	ml, ok2 := next()
	if !ok1 || !ok2 {
		return 0, 0, errLexBlob
	}
	term := uint64(0)
	for len(b) > 0 {
		d, ok1 := next()
		body, ok2 := next()
		meta, ok3 := next()
		if !ok1 || !ok2 || !ok3 {
			return 0, 0, errLexBlob
		}
		term += d
		fn(lexEntry{term: uint32(term), body: uint32(body), meta: uint32(meta)})
	}
	return uint32(bl), uint32(ml), nil
}

// termCache maps terms to their dictionary ids. Ids never change once
// assigned (terms are never deleted), so the cache is valid across
// processes; it only learns ids from committed transactions.
//
// It also remembers the terms the dictionary did not hold at generation
// absentGen: every search asks for its query terms and the vault's
// languages, and most languages (and some query words) are never there.
// The dictionary is only written by commits, which move the generation,
// so that holds until the generation moves.
type termCache struct {
	mu        sync.RWMutex
	ids       map[string]int64
	absent    map[string]bool
	absentGen int64
}

func (c *termCache) get(t string) (int64, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	id, ok := c.ids[t]
	return id, ok
}

// absentAt reports whether t was not in the dictionary at generation gen.
func (c *termCache) absentAt(t string, gen int64) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.absentGen == gen && c.absent[t]
}

// maxAbsentTerms bounds the words remembered as absent.
const maxAbsentTerms = 4096

// noteAbsent records that terms were not in the dictionary as read at or
// after generation gen (so not at gen: terms are never deleted).
func (c *termCache) noteAbsent(terms []any, found map[string]int64, gen int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Bounded: a quiet store queried with ever new words (an agent, an MCP
	// client) starts the record afresh rather than growing it.
	if c.absent == nil || c.absentGen != gen || len(c.absent) >= maxAbsentTerms {
		c.absent, c.absentGen = map[string]bool{}, gen
	}
	for _, t := range terms {
		if _, ok := found[t.(string)]; !ok {
			c.absent[t.(string)] = true
		}
	}
}

func (c *termCache) merge(m map[string]int64) {
	if len(m) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil {
		c.ids = map[string]int64{}
	}
	for k, v := range m {
		c.ids[k] = v
	}
}

// encodeLex analyses chunks and fills lex[i] with chunk i's blob, adding
// unknown terms to the dictionary inside tx. The ids it assigns go into
// learned, for the cache once tx commits.
func (s *Store) encodeLex(ctx context.Context, tx *sql.Tx, chunks []Chunk, lex [][]byte, learned map[string]int64) error {
	var ins, sel *sql.Stmt
	lookup := func(t string) (int64, error) {
		if id, ok := s.terms.get(t); ok {
			return id, nil
		}
		if id, ok := learned[t]; ok {
			return id, nil
		}
		var err error
		if ins == nil {
			if ins, err = tx.PrepareContext(ctx, `INSERT OR IGNORE INTO lex_terms(term) VALUES (?)`); err != nil {
				return 0, err
			}
			if sel, err = tx.PrepareContext(ctx, `SELECT id FROM lex_terms WHERE term = ?`); err != nil {
				return 0, err
			}
		}
		if _, err := ins.ExecContext(ctx, t); err != nil {
			return 0, err
		}
		var id int64
		if err := sel.QueryRowContext(ctx, t).Scan(&id); err != nil {
			return 0, err
		}
		learned[t] = id
		return id, nil
	}
	defer func() {
		if ins != nil {
			ins.Close()
			sel.Close()
		}
	}()
	for i, c := range chunks {
		tc := analyseChunk(c)
		if tc.lang != analysis.English {
			if _, err := lookup(langTerm(tc.lang)); err != nil {
				return err
			}
		}
		entries := make([]lexEntry, 0, len(tc.terms))
		for t, n := range tc.terms {
			id, err := lookup(t)
			if err != nil {
				return err
			}
			entries = append(entries, lexEntry{term: uint32(id), body: n[0], meta: n[1]})
		}
		lex[i] = encodeLexBlob(tc.bodyLen, tc.metaLen, entries)
	}
	return nil
}

// queryTerms analyses a query and returns the dictionary ids of its terms
// (sorted) with how often each occurs; terms never indexed are dropped.
func (s *Store) queryTerms(ctx context.Context, query string) ([]qterm, error) {
	gen, err := s.Generation(ctx) // before the lookups: what they miss is missing at gen
	if err != nil {
		return nil, err
	}
	vault, err := s.vaultLangs(ctx, gen)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	analysis.EachQuery(query, analysis.QueryLangs(query, vault), func(t string, n int) { counts[t] = n })
	out := make([]qterm, 0, len(counts))
	var missing []any
	for t, n := range counts {
		if id, ok := s.terms.get(t); ok {
			out = append(out, qterm{id: uint32(id), qtf: n})
		} else if !s.terms.absentAt(t, gen) {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		learned, err := s.lookupTerms(ctx, missing, gen)
		if err != nil {
			return nil, err
		}
		for t, id := range learned {
			out = append(out, qterm{id: uint32(id), qtf: counts[t]})
		}
	}
	slices.SortFunc(out, func(a, b qterm) int { return int(a.id) - int(b.id) })
	return out, nil
}

// vaultLangs are the languages other than English some chunk was analysed
// in (their langTerm entries in the dictionary).
func (s *Store) vaultLangs(ctx context.Context, gen int64) ([]analysis.Lang, error) {
	var out []analysis.Lang
	var missing []any
	for _, l := range analysis.Langs() {
		if l == analysis.English {
			continue
		}
		if _, ok := s.terms.get(langTerm(l)); ok {
			out = append(out, l)
		} else if !s.terms.absentAt(langTerm(l), gen) {
			missing = append(missing, langTerm(l))
		}
	}
	if len(missing) > 0 {
		learned, err := s.lookupTerms(ctx, missing, gen)
		if err != nil {
			return nil, err
		}
		for _, l := range analysis.Langs() {
			if _, ok := learned[langTerm(l)]; ok {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

// lookupTerms reads the ids of terms from the dictionary (and caches them,
// and which were missing, at generation gen read before).
func (s *Store) lookupTerms(ctx context.Context, terms []any, gen int64) (map[string]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, term FROM lex_terms WHERE term IN (`+placeholders(len(terms))+`)`, terms...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	learned := map[string]int64{}
	for rows.Next() {
		var id int64
		var t string
		if err := rows.Scan(&id, &t); err != nil {
			return nil, err
		}
		learned[t] = id
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.terms.merge(learned)
	s.terms.noteAbsent(terms, learned, gen)
	return learned, nil
}
