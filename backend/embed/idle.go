package embed

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/jarvis-kb/jarvis/backend/errs"
	"github.com/jarvis-kb/jarvis/backend/logs"
)

// idleEncoder is an ONNX Runtime model that lets go of its session — the
// weights and the activation arena, most of a window's memory — once it has
// been unused for idle, and opens it again on the next run (the way Ollama
// unloads a model after its keep-alive). A run never waits for a release:
// the session goes only when no run holds it.
type idleEncoder struct {
	open   func() (*ortEncoder, error)
	idle   time.Duration // 0: never released
	graph  string
	loaded os.FileInfo // the graph file first opened; a reopen refuses another

	mu     sync.Mutex
	enc    *ortEncoder // nil while released
	busy   int         // runs holding enc
	last   time.Time   // when the last run ended
	timer  *time.Timer
	loads  int // sessions opened, the first included
	closed bool
}

// newIdleEncoder opens the session at once (a broken model fails at load,
// not on first use).
func newIdleEncoder(graph string, idle time.Duration, open func() (*ortEncoder, error)) (*idleEncoder, error) {
	fi, err := os.Stat(graph)
	if err != nil {
		return nil, err
	}
	e := &idleEncoder{open: open, idle: idle, graph: graph, loaded: fi}
	enc, err := open()
	if err != nil {
		return nil, err
	}
	e.enc, e.loads, e.last = enc, 1, time.Now()
	e.arm()
	return e, nil
}

func (e *idleEncoder) run(b *paddedBatch) (graphOutput, error) {
	enc, err := e.acquire()
	if err != nil {
		return graphOutput{}, err
	}
	defer e.done()
	return enc.run(b)
}

func (e *idleEncoder) acquire() (*ortEncoder, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errors.New("the model was closed with its runtime")
	}
	if e.enc == nil {
		if err := e.sameGraph(); err != nil {
			return nil, err
		}
		enc, err := e.open()
		if err != nil {
			return nil, err
		}
		e.enc = enc
		e.loads++
	}
	e.busy++
	return e.enc, nil
}

// sameGraph refuses to reopen a graph replaced since the first load (a
// model reinstalled under the same id): the tokenizer, id and width in use
// are the first file's, and vectors of two versions must not mix in the
// store.
func (e *idleEncoder) sameGraph() error {
	fi, err := os.Stat(e.graph)
	if err == nil && os.SameFile(fi, e.loaded) && fi.Size() == e.loaded.Size() && fi.ModTime().Equal(e.loaded.ModTime()) {
		return nil
	}
	return errs.WithHint(errs.New(errs.RAG, "embed.Run", "the model file %s changed since it was loaded", e.graph),
		"restart Jarvis to load the new model files")
}

func (e *idleEncoder) done() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.busy--
	e.last = time.Now()
	e.arm()
}

// arm (re)starts the idle timer. Caller holds e.mu.
func (e *idleEncoder) arm() {
	if e.idle <= 0 || e.busy > 0 || e.closed {
		return
	}
	if e.timer == nil {
		e.timer = time.AfterFunc(e.idle, e.expire)
	} else {
		e.timer.Reset(e.idle)
	}
}

// expire releases the session if it is still idle (a run may have started
// and ended since the timer was set: it re-armed it).
func (e *idleEncoder) expire() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.enc == nil || e.busy > 0 || e.closed || time.Since(e.last) < e.idle {
		return
	}
	// The session is unusable after a close, failed or not: the next run
	// opens a new one.
	if err := e.enc.close(); err != nil {
		logs.L().Warn("closing an idle model's session", "err", err)
	}
	e.enc = nil
	releaseFreedMemory()
}

// resident says whether the session is open, and how many were opened.
func (e *idleEncoder) resident() (open bool, loads int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enc != nil, e.loads
}

func (e *idleEncoder) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if e.timer != nil {
		e.timer.Stop()
	}
	if e.enc == nil {
		return nil
	}
	err := e.enc.close()
	e.enc = nil
	return err
}
