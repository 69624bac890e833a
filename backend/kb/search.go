package kb

import (
	"context"
	"database/sql"
	"math"
	"sort"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// Hit is one ranked chunk.
type Hit struct {
	Chunk Chunk
	Score float64
}

// BM25 ranks the filtered pool by keyword relevance and returns the best
// limit chunks in full. It syncs the index without vectors; searches that
// also rank by vector go through the Searcher.
func (s *Store) BM25(ctx context.Context, query string, f Filter, limit int) ([]Hit, error) {
	if _, _, err := f.where(); err != nil {
		return nil, err
	}
	ix := s.Index()
	if err := ix.Sync(ctx, s, ix.model()); err != nil {
		return nil, err
	}
	terms, err := s.queryTerms(ctx, query)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, "kb.BM25", err)
	}
	ix.mu.RLock()
	ranked := ix.keyword(ix.poolOf(f), terms, limit)
	ids := ix.ids(ranked)
	rk := ranking{gen: ix.gen, revs: ix.revs(ranked)}
	ix.mu.RUnlock()
	return s.hits(ctx, ids, rk, ranked)
}

// model is the vector model the index currently holds.
func (ix *Index) model() ModelInfo {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.vecModel
}

// ids maps ranked rows to chunk ids. Caller holds ix.mu.
func (ix *Index) ids(ranked []scored) []int64 {
	out := make([]int64, len(ranked))
	for i, r := range ranked {
		out[i] = ix.rows[r.row].id
	}
	return out
}

// revs maps ranked rows' chunk ids to their revisions. Caller holds ix.mu.
func (ix *Index) revs(ranked ...[]scored) map[int64]int64 {
	out := map[int64]int64{}
	for _, rs := range ranked {
		for _, r := range rs {
			out[ix.rows[r.row].id] = ix.rows[r.row].rev
		}
	}
	return out
}

// hits loads the ranked chunks in full, keeping their scores.
func (s *Store) hits(ctx context.Context, ids []int64, rk ranking, ranked []scored) ([]Hit, error) {
	chunks, err := s.chunksAt(ctx, ids, rk)
	if err != nil {
		return nil, err
	}
	score := make(map[int64]float64, len(ids))
	for i, id := range ids {
		score[id] = float64(ranked[i].score)
	}
	out := make([]Hit, len(chunks))
	for i, c := range chunks {
		out[i] = Hit{Chunk: c, Score: score[c.ID]}
	}
	return out, nil
}

// Chunks loads chunks by id, in the order given (ids that no longer exist
// are skipped).
func (s *Store) Chunks(ctx context.Context, ids []int64) ([]Chunk, error) {
	const op = "kb.Chunks"
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	byID := make(map[int64]Chunk, len(ids))
	if _, err := s.load(ctx, args, byID, nil); err != nil {
		return nil, errs.Wrap(errs.RAG, op, err)
	}
	return inOrder(ids, byID), nil
}

// load reads the chunks with the given ids into byID: packed, and column
// by column where a row did not pack; got (if not nil) is told of each
// packed one. It returns the revision of every row read.
func (s *Store) load(ctx context.Context, ids []any, byID map[int64]Chunk, got func(c Chunk, rev int64)) (map[int64]int64, error) {
	revs := make(map[int64]int64, len(ids))
	odd, err := s.readPacked(ctx, ids, revs, func(c Chunk, rev int64) {
		byID[c.ID] = c
		if got != nil {
			got(c, rev)
		}
	})
	if err != nil || len(odd) == 0 {
		return revs, err
	}
	return revs, s.readColumns(ctx, odd, byID)
}

// inOrder is the chunks of byID in the order of ids (ids not there, rows
// gone meanwhile, are skipped).
func inOrder(ids []int64, byID map[int64]Chunk) []Chunk {
	out := make([]Chunk, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out
}

// readPacked reads the chunks with the given ids, handing each to got with
// its revision, and returns the ids of those whose packed row did not parse.
func (s *Store) readPacked(ctx context.Context, ids []any, revs map[int64]int64, got func(c Chunk, rev int64)) ([]any, error) {
	rows, err := s.queryByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var odd []any
	for rows.Next() {
		var id, rev int64
		var packed sql.NullString // NULL if a column was: the column read says which
		if err := rows.Scan(&id, &rev, &packed); err != nil {
			return nil, err
		}
		revs[id] = rev
		if c, ok := unpackChunk(id, packed.String); ok && packed.Valid {
			got(c, rev)
		} else {
			odd = append(odd, id)
		}
	}
	return odd, rows.Err()
}

// readColumns reads the chunks with the given ids column by column.
func (s *Store) readColumns(ctx context.Context, ids []any, byID map[int64]Chunk) error {
	rows, err := s.db.QueryContext(ctx, `SELECT `+selectCols+` FROM chunks WHERE id IN (`+placeholders(len(ids))+`)`, ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return err
		}
		byID[c.ID] = c
	}
	return rows.Err()
}

// maxPreparedIDs is the longest id list kept prepared (a search asks for
// at most 50 results; reranking reads its candidates so too).
const maxPreparedIDs = 64

// queryByIDs selects the id, rev and packedSQL of the chunks with the
// given ids, in no order.
func (s *Store) queryByIDs(ctx context.Context, ids []any) (*sql.Rows, error) {
	q := `SELECT id, rev, ` + packedSQL + ` FROM chunks WHERE id IN (` + placeholders(len(ids)) + `)`
	if len(ids) > maxPreparedIDs {
		return s.db.QueryContext(ctx, q, ids...)
	}
	st, err := s.prepare(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, ids...)
}

// RRF fuses rankings by reciprocal rank: score(d) = Σ 1/(c + rank). Ties keep
// the order of first appearance, so the result is deterministic.
func RRF(c float64, rankings ...[]int64) []int64 {
	score := map[int64]float64{}
	order := map[int64]int{}
	n := 0
	for _, ranking := range rankings {
		for rank, id := range ranking {
			score[id] += 1 / (c + float64(rank+1))
			if _, seen := order[id]; !seen {
				order[id] = n
				n++
			}
		}
	}
	ids := make([]int64, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if score[ids[i]] != score[ids[j]] {
			return score[ids[i]] > score[ids[j]]
		}
		return order[ids[i]] < order[ids[j]]
	})
	return ids
}

func normalise(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}
