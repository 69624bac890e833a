package kb

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/fsutil"
)

// BackfillBatch is how many chunks are embedded per commit: a kill loses
// at most one batch of work, and no writer holds the lock for long.
const BackfillBatch = 64

// BackfillProgress reports chunks embedded so far of the chunks that were
// waiting (the total grows if chunks arrive meanwhile).
type BackfillProgress func(done, total int)

// BackfillOptions adjust one backfill.
type BackfillOptions struct {
	Progress BackfillProgress
	// Wait makes a backfill that finds another process embedding wait for
	// it, then embed whatever is left (a command the user ran); without it
	// the call returns a conflict at once (background workers, which are
	// kicked again later).
	Wait bool
	// Waiting is told once, naming the holder, when the wait begins.
	Waiting func(holder string)
}

// backfillPoll is how often a waiting backfill retries the lock.
const backfillPoll = 250 * time.Millisecond

// BackfillResult says what a backfill did.
type BackfillResult struct {
	Model    ModelInfo
	Embedded int
	Swapped  bool // a model switch completed: the new model now serves search
}

// Backfill embeds, with e, every chunk that has no vector of e's model,
// one committed batch at a time, so search keeps serving throughout and a
// stopped backfill resumes where it was. e is the configured model: a store
// without a model adopts it, a store built with another model switches to
// it (the old vectors serve until the last chunk is done, then one
// transaction swaps). One process backfills a store at a time; another gets
// a conflict error naming it.
func Backfill(ctx context.Context, s *Store, e Embedder, o BackfillOptions) (BackfillResult, error) {
	const op = "kb.Backfill"
	progress := o.Progress
	res := BackfillResult{Model: e.Info()}
	lock, err := backfillLock(ctx, s, o)
	if err != nil {
		return res, err
	}
	defer lock.Release()
	models, err := s.UseModel(ctx, res.Model)
	if err != nil {
		return res, err
	}
	fill := models.fillModel()
	if !sameModel(fill, res.Model) {
		return res, errs.New(errs.Internal, op, "store fills %s, embedder is %s", fill.ID, res.Model.ID)
	}
	for {
		n, err := backfillPass(ctx, s, e, &res, progress)
		if err != nil {
			return res, err
		}
		if models.Target.IsZero() {
			return res, nil
		}
		swapped, err := s.FinishSwitch(ctx, fill)
		if err != nil {
			return res, err
		}
		if swapped || n == 0 {
			res.Swapped = swapped
			return res, nil
		}
		// Chunks arrived after the pass looked: one more pass picks them up.
	}
}

// backfillLock takes the store's backfill lock, waiting for another
// process's backfill when asked to.
func backfillLock(ctx context.Context, s *Store, o BackfillOptions) (*fsutil.Lock, error) {
	const op = "kb.Backfill"
	path := filepath.Join(s.dir, "backfill.lock")
	told := false
	for {
		lock, err := fsutil.Acquire(path, "an embedding backfill")
		var held *fsutil.HeldError
		switch {
		case err == nil:
			return lock, nil
		case !errors.As(err, &held):
			return nil, errs.Wrap(errs.Internal, op, err)
		case !o.Wait:
			return nil, errs.WithHint(errs.Wrapf(errs.Conflict, op, err, "another Jarvis process is already embedding this knowledge base"),
				"it continues in the background; search uses each vector as soon as it is stored")
		}
		if !told && o.Waiting != nil {
			o.Waiting(held.Holder.String())
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, errs.Wrap(errs.Cancelled, op, ctx.Err())
		case <-time.After(backfillPoll):
		}
	}
}

// embeddedBatch is one batch on its way from the model to the store.
type embeddedBatch struct {
	ids  []int64
	vecs [][]float32
	err  error
}

// backfillPass embeds what is pending now, in id order. Reading and
// embedding the next batch overlaps with committing this one (a queue of
// one batch, so memory stays flat); every batch is its own commit, so a
// stopped pass loses at most the batches in flight.
func backfillPass(ctx context.Context, s *Store, e Embedder, res *BackfillResult, progress BackfillProgress) (int, error) {
	const op = "kb.Backfill"
	m := res.Model
	pending, _, err := s.PendingCount(ctx, m.ID)
	if err != nil {
		return 0, err
	}
	total := res.Embedded + pending
	if progress != nil {
		progress(res.Embedded, total)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	queue := make(chan embeddedBatch, 1)
	go embedAhead(ctx, s, e, m.ID, queue)
	n := 0
	for b := range queue {
		if b.err != nil {
			return n, b.err
		}
		// Vectors already computed are kept even when the pass is being
		// stopped: the commit takes milliseconds, the embedding took seconds.
		if _, err := s.PutVectors(context.WithoutCancel(ctx), m, b.ids, b.vecs); err != nil {
			return n, err
		}
		n += len(b.ids)
		res.Embedded += len(b.ids)
		total = max(total, res.Embedded)
		if progress != nil {
			progress(res.Embedded, total)
		}
	}
	// A cancelled pass may lose the race to queue its error: say it here.
	if err := ctx.Err(); err != nil {
		return n, errs.Wrap(errs.Cancelled, op, err)
	}
	return n, nil
}

// embedAhead reads the pending chunks batch by batch, embeds them and
// queues the vectors, until none are left, the context ends or a step
// fails (the failure is the last thing queued).
func embedAhead(ctx context.Context, s *Store, e Embedder, model string, queue chan<- embeddedBatch) {
	const op = "kb.Backfill"
	defer close(queue)
	send := func(b embeddedBatch) bool {
		select {
		case queue <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var after int64
	for {
		if err := ctx.Err(); err != nil {
			send(embeddedBatch{err: errs.Wrap(errs.Cancelled, op, err)})
			return
		}
		batch, err := s.PendingChunks(ctx, model, after, BackfillBatch)
		if err != nil {
			send(embeddedBatch{err: err})
			return
		}
		if len(batch) == 0 {
			return
		}
		texts := make([]string, len(batch))
		ids := make([]int64, len(batch))
		for i, p := range batch {
			texts[i], ids[i] = p.EmbedText, p.ID
		}
		vecs, err := e.EmbedDocuments(ctx, texts)
		if err != nil {
			if ctx.Err() != nil {
				err = errs.Wrap(errs.Cancelled, op, ctx.Err())
			} else {
				err = errs.Wrap(errs.RAG, op, err)
			}
			send(embeddedBatch{err: err})
			return
		}
		if !send(embeddedBatch{ids: ids, vecs: vecs}) {
			return
		}
		after = ids[len(ids)-1]
	}
}
