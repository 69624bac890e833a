package kb

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"

	"github.com/jarvis-kb/jarvis/backend/errs"
)

// A store's vectors belong to models. The active model's vectors serve
// dense search. While the user switches models, the new one (the target)
// fills in beside the active one; when the last chunk has its target
// vector, one transaction makes the target active and drops the old
// vectors. A store with no active model is searched by keyword only.

// Models is the store's model record.
type Models struct {
	Active ModelInfo // zero: no vectors yet
	Target ModelInfo // zero: no switch under way
}

const modelsSQL = `SELECT
	(SELECT value FROM meta WHERE key='embed_model'), (SELECT value FROM meta WHERE key='embed_dims'),
	(SELECT value FROM meta WHERE key='target_model'), (SELECT value FROM meta WHERE key='target_dims')`

func readModels(ctx context.Context, q rowQuerier) (Models, error) {
	var a, ad, t, td sql.NullString
	if err := q.QueryRowContext(ctx, modelsSQL).Scan(&a, &ad, &t, &td); err != nil {
		return Models{}, err
	}
	info := func(id, dims sql.NullString) ModelInfo {
		if id.String == "" {
			return ModelInfo{}
		}
		n, _ := strconv.Atoi(dims.String) // written by setModel from an int
		return ModelInfo{ID: id.String, Dims: n}
	}
	return Models{Active: info(a, ad), Target: info(t, td)}, nil
}

// Models reads the store's model record.
func (s *Store) Models(ctx context.Context) (Models, error) {
	m, err := readModels(ctx, s.db)
	return m, errs.Wrap(errs.RAG, "kb.Models", err)
}

func setModel(ctx context.Context, tx *sql.Tx, role string, m ModelInfo) error {
	for k, v := range map[string]string{role + "_model": m.ID, role + "_dims": strconv.Itoa(m.Dims)} {
		if m.IsZero() {
			v = ""
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return err
		}
	}
	return nil
}

func sameModel(a, b ModelInfo) bool { return !a.IsZero() && a.ID == b.ID && a.Dims == b.Dims }

// acceptVectors decides inside a write whether vectors of vm are stored:
// yes for the active or target model; a store with no model yet adopts vm.
func acceptVectors(ctx context.Context, tx *sql.Tx, vm ModelInfo) (bool, error) {
	m, err := readModels(ctx, tx)
	if err != nil {
		return false, err
	}
	switch {
	case m.Active.IsZero() && m.Target.IsZero():
		return true, setModel(ctx, tx, "embed", vm)
	case sameModel(m.Active, vm), sameModel(m.Target, vm):
		return true, nil
	}
	return false, nil
}

// UseModel records that vectors should be made with m (the configured
// embedding model): a store without a model adopts it; a store whose
// active model differs starts (or retargets) a switch to m, served by the
// old vectors until the backfill completes. It returns the record after.
func (s *Store) UseModel(ctx context.Context, m ModelInfo) (Models, error) {
	const op = "kb.UseModel"
	if m.IsZero() || m.Dims <= 0 {
		return Models{}, errs.New(errs.Invalid, op, "a model needs an id and a dimension")
	}
	cur, err := s.Models(ctx)
	if err != nil {
		return cur, err
	}
	if sameModel(cur.Active, m) && cur.Target.IsZero() || sameModel(cur.Target, m) {
		return cur, nil
	}
	var out Models
	err = s.writeTx(ctx, op, func(tx *sql.Tx) error {
		if out, err = readModels(ctx, tx); err != nil {
			return err
		}
		switch {
		case out.Active.IsZero():
			out.Active = m
			return setModel(ctx, tx, "embed", m)
		case sameModel(out.Active, m):
			// Switching back before the switch finished: drop the half-made vectors.
			if !out.Target.IsZero() {
				if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE model = ?`, out.Target.ID); err != nil {
					return err
				}
			}
			out.Target = ModelInfo{}
			return setModel(ctx, tx, "target", ModelInfo{})
		case sameModel(out.Target, m):
			return nil
		}
		if !out.Target.IsZero() {
			if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE model = ?`, out.Target.ID); err != nil {
				return err
			}
		}
		// A model id with other dims is another model: its old vectors go.
		if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE model = ?`, m.ID); err != nil {
			return err
		}
		out.Target = m
		return setModel(ctx, tx, "target", m)
	})
	return out, err
}

// fillModel is the model the backfill embeds for: the target during a
// switch, else the active model.
func (m Models) fillModel() ModelInfo {
	if !m.Target.IsZero() {
		return m.Target
	}
	return m.Active
}

// Pending is one chunk waiting for a vector.
type Pending struct {
	ID        int64
	EmbedText string
}

// PendingCount counts chunks without a vector of model (and all chunks).
func (s *Store) PendingCount(ctx context.Context, model string) (pending, total int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT count(*), count(*) - (SELECT count(*) FROM vectors WHERE model = ?) FROM chunks`, model).Scan(&total, &pending)
	return pending, total, errs.Wrap(errs.RAG, "kb.PendingCount", err)
}

// PendingChunks lists up to limit chunks with id > after that have no
// vector of model, in id order (so a resumed backfill continues where it
// stopped and never loops on a chunk it could not embed).
func (s *Store) PendingChunks(ctx context.Context, model string, after int64, limit int) ([]Pending, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.embed_text FROM chunks c
		WHERE c.id > ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ? AND v.chunk_id = c.id)
		ORDER BY c.id LIMIT ?`, after, model, limit)
	if err != nil {
		return nil, errs.Wrap(errs.RAG, "kb.PendingChunks", err)
	}
	defer rows.Close()
	var out []Pending
	for rows.Next() {
		var p Pending
		if err := rows.Scan(&p.ID, &p.EmbedText); err != nil {
			return nil, errs.Wrap(errs.RAG, "kb.PendingChunks", err)
		}
		out = append(out, p)
	}
	return out, errs.Wrap(errs.RAG, "kb.PendingChunks", rows.Err())
}

// PutVectors stores one batch of vectors of model m in one transaction.
// Chunks deleted meanwhile are skipped; a model that is no longer active
// or target (the user switched again) stores nothing and reports so.
func (s *Store) PutVectors(ctx context.Context, m ModelInfo, ids []int64, vecs [][]float32) (stored int, err error) {
	const op = "kb.PutVectors"
	if len(ids) != len(vecs) {
		return 0, errs.New(errs.Internal, op, "%d ids for %d vectors", len(ids), len(vecs))
	}
	for i, v := range vecs {
		if len(v) != m.Dims {
			return 0, errs.New(errs.Invalid, op, "vector for chunk %d has %d dims, model %s has %d", ids[i], len(v), m.ID, m.Dims)
		}
	}
	err = s.writeTx(ctx, op, func(tx *sql.Tx) error {
		ok, err := acceptVectors(ctx, tx, m)
		if err != nil {
			return err
		}
		if !ok {
			return errs.WithHint(errs.New(errs.Conflict, op, "the knowledge base no longer uses %s (the embedding model was changed meanwhile)", m.ID),
				"the backfill restarts with the new model")
		}
		gen, err := bumpGeneration(ctx, tx)
		if err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO vectors(model, chunk_id, gen, vector)
			SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?)
			ON CONFLICT(model, chunk_id) DO UPDATE SET vector = excluded.vector, gen = excluded.gen`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, id := range ids {
			res, err := stmt.ExecContext(ctx, m.ID, id, gen, encodeVector(vecs[i]), id)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected() // the driver always reports it
			stored += int(n)
		}
		return nil
	})
	return stored, err
}

// FinishSwitch makes the target model active when every chunk has its
// vector, dropping the old model's vectors in the same transaction. It
// reports whether the swap happened.
func (s *Store) FinishSwitch(ctx context.Context, target ModelInfo) (bool, error) {
	const op = "kb.FinishSwitch"
	swapped := false
	err := s.writeTx(ctx, op, func(tx *sql.Tx) error {
		m, err := readModels(ctx, tx)
		if err != nil {
			return err
		}
		if !sameModel(m.Target, target) {
			return nil
		}
		var missing int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks c WHERE NOT EXISTS
			(SELECT 1 FROM vectors v WHERE v.model = ? AND v.chunk_id = c.id)`, target.ID).Scan(&missing); err != nil {
			return err
		}
		if missing > 0 {
			return nil
		}
		if _, err := bumpGeneration(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE model != ?`, target.ID); err != nil {
			return err
		}
		if err := setModel(ctx, tx, "embed", target); err != nil {
			return err
		}
		swapped = true
		return setModel(ctx, tx, "target", ModelInfo{})
	})
	return swapped, err
}

// ForgetVectors drops every vector of model (used by `kb reindex --force`
// to re-embed the active model from scratch).
func (s *Store) ForgetVectors(ctx context.Context, model string) error {
	return s.writeTx(ctx, "kb.ForgetVectors", func(tx *sql.Tx) error {
		if _, err := bumpGeneration(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE model = ?`, model)
		return err
	})
}

func (m Models) String() string {
	switch {
	case m.Active.IsZero() && m.Target.IsZero():
		return "no embedding model"
	case m.Target.IsZero():
		return fmt.Sprintf("%s (%d dims)", m.Active.ID, m.Active.Dims)
	case m.Active.IsZero():
		return fmt.Sprintf("filling in %s (%d dims)", m.Target.ID, m.Target.Dims)
	}
	return fmt.Sprintf("%s (%d dims), switching to %s (%d dims)", m.Active.ID, m.Active.Dims, m.Target.ID, m.Target.Dims)
}

// rescore ranks dense candidates (index rows with their chunk ids) on the
// float vectors of vm that the store holds and returns the best k, best
// first. A candidate whose vector is gone since the index synced (its
// chunk deleted or rewritten) is left out.
func (s *Store) rescore(ctx context.Context, vm ModelInfo, q []float32, cands []scored, ids []int64, k int) ([]scored, []int64, error) {
	if len(cands) == 0 {
		return nil, nil, nil
	}
	vecs := make(map[int64][]float32, len(ids))
	for part := range slices.Chunk(ids, rescoreBatch) {
		if err := s.readVectors(ctx, vm, part, vecs); err != nil {
			return nil, nil, err
		}
	}
	idOf := make(map[int32]int64, len(cands))
	for i, c := range cands {
		idOf[c.row] = ids[i]
	}
	top := rescoreRows(cands, q, k, func(r int32) ([]float32, bool) {
		v, ok := vecs[idOf[r]]
		return v, ok
	})
	outIDs := make([]int64, len(top))
	for i, t := range top {
		outIDs[i] = idOf[t.row]
	}
	return top, outIDs, nil
}

// rescoreBatch keeps one query's variables far below SQLite's limit (32,766)
// however many candidates a search asks for.
const rescoreBatch = 2000

// readVectors adds the normalised vectors of vm for ids to vecs.
func (s *Store) readVectors(ctx context.Context, vm ModelInfo, ids []int64, vecs map[int64][]float32) error {
	args := make([]any, 0, len(ids)+1)
	args = append(args, vm.ID)
	for _, id := range ids {
		args = append(args, id)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT chunk_id, vector FROM vectors WHERE model = ? AND chunk_id IN (`+placeholders(len(ids))+`)`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var blob sql.RawBytes
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		v := make([]float32, vm.Dims)
		if decodeVectorInto(v, blob) {
			vecs[id] = normalise(v)
		}
	}
	return rows.Err()
}
