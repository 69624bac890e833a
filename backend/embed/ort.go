package embed

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/jarvis-kb/jarvis/backend/config"
)

// ORTLibraryName is the ONNX Runtime shared library Jarvis loads: the build
// that npm's onnxruntime-node@1.30.0 ships (bin/napi-v6/linux/x64/), which
// build/scripts/setup.sh installs.
const ORTLibraryName = "libonnxruntime.so.1"

// ORTLibraryEnv names the library explicitly; "off" keeps inference on the
// pure-Go backend.
const ORTLibraryEnv = "JARVIS_ORT_LIB"

// ortLocation is where the runtime looks for the library and what it found.
type ortLocation struct {
	path     string   // the library to load; empty when none was found
	explicit bool     // named by the caller or JARVIS_ORT_LIB
	searched []string // every place looked at, for the report
	off      bool     // JARVIS_ORT_LIB=off
}

// locateORT finds the library: the explicit path (option, else
// JARVIS_ORT_LIB), then the data directory's lib/ ($JARVIS_HOME/lib or
// ~/.jarvis/lib), then beside the running executable, then the installed
// layout's private dir (<prefix>/lib/jarvis next to <prefix>/bin).
func locateORT(explicit string, dirs []string) ortLocation {
	if explicit == "" {
		explicit = os.Getenv(ORTLibraryEnv)
	}
	if strings.EqualFold(explicit, "off") {
		return ortLocation{off: true}
	}
	if explicit != "" {
		loc := ortLocation{explicit: true, searched: []string{explicit}}
		if _, err := os.Stat(explicit); err == nil {
			loc.path = explicit
		}
		return loc
	}
	var loc ortLocation
	for _, d := range dirs {
		p := filepath.Join(d, ORTLibraryName)
		loc.searched = append(loc.searched, p)
		if _, err := os.Stat(p); err == nil {
			loc.path = p
			return loc
		}
	}
	return loc
}

// ortSearchDirs are the implicit places, in order.
func ortSearchDirs() []string {
	dirs := []string{filepath.Join(config.HomeDir(), "lib")}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		bin := filepath.Dir(exe)
		// The .deb and the tar.gz keep the library out of the system's
		// search path: /usr/lib/jarvis beside /usr/bin.
		dirs = append(dirs, bin, filepath.Join(filepath.Dir(bin), "lib", "jarvis"))
	}
	return dirs
}

// The ONNX Runtime environment is one per process: the first library that
// loads stays loaded, and every later runtime shares it.
var ortEnv struct {
	sync.Mutex
	path, version string
}

// initORT loads the library at path unless one is loaded already, and
// returns the loaded library's path and version.
func initORT(path string) (loaded, version string, err error) {
	ortEnv.Lock()
	defer ortEnv.Unlock()
	if ort.IsInitialized() {
		return ortEnv.path, ortEnv.version, nil
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return "", "", err
	}
	ortEnv.path, ortEnv.version = path, ort.GetVersion()
	return ortEnv.path, ortEnv.version, nil
}

// ortEncoder is one model loaded into an ONNX Runtime session. Runs may
// overlap (ONNX Runtime allows it); close waits for them, and a run after
// close is an error rather than a call into a released session.
type ortEncoder struct {
	mu      sync.RWMutex
	session *ort.DynamicAdvancedSession // nil once closed
	inputs  []string                    // graph input names, in the order run feeds them
	rank    int                         // rank of the output read (3: token vectors)
}

// newORTEncoder opens graph with the inputs a BERT-style text model takes
// and reads its first output, as hugot's pipelines do.
func newORTEncoder(graph string, threads int) (*ortEncoder, error) {
	ins, outs, err := ort.GetInputOutputInfo(graph)
	if err != nil {
		return nil, err
	}
	if len(outs) == 0 {
		return nil, errors.New("the model has no outputs")
	}
	e := &ortEncoder{rank: len(outs[0].Dimensions)}
	for _, in := range ins {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
			e.inputs = append(e.inputs, in.Name)
		default:
			return nil, fmt.Errorf("model input %q is not one a text encoder takes (input_ids, attention_mask, token_type_ids)", in.Name)
		}
	}
	if e.rank != 2 && e.rank != 3 {
		return nil, fmt.Errorf("model output %q has rank %d (want [batch, width] or [batch, sequence, width])", outs[0].Name, e.rank)
	}
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	defer opts.Destroy()
	// 0 leaves the intra-op thread count to ONNX Runtime: one per physical core.
	for _, set := range []error{
		opts.SetIntraOpNumThreads(max(threads, 0)),
		opts.SetInterOpNumThreads(1),
		opts.SetExecutionMode(ort.ExecutionModeSequential),
		opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll),
		// The arena reuses activation buffers from run to run. Without it
		// every run's buffers came fresh from the system and were zeroed by
		// page faults: 0.25-0.33x onnxruntime-node's speed, 2.5 s to rerank
		// 25 candidates instead of 0.6 s. What it keeps is bounded by the
		// largest batch, which maxBatchTokens caps. (One arena shared by
		// the sessions through the environment held 280 MB more: the
		// weights went into it too.) The per-shape memory pattern is off:
		// shapes vary from batch to batch.
		opts.SetCpuMemArena(true),
		opts.SetMemPattern(false),
	} {
		if set != nil {
			return nil, set
		}
	}
	e.session, err = ort.NewDynamicAdvancedSession(graph, e.inputs, []string{outs[0].Name}, opts)
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (e *ortEncoder) run(b *paddedBatch) (out graphOutput, err error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.session == nil {
		return out, errors.New("the model was closed with its runtime")
	}
	shape := ort.NewShape(int64(b.rows), int64(b.seq))
	feeds := make([]ort.Value, len(e.inputs))
	defer func() {
		for _, f := range feeds {
			if f != nil {
				err = errors.Join(err, f.Destroy())
			}
		}
	}()
	for i, name := range e.inputs {
		data := b.ids
		switch name {
		case "attention_mask":
			data = b.mask
		case "token_type_ids":
			data = b.types
		}
		if feeds[i], err = ort.NewTensor(shape, data); err != nil {
			return out, err
		}
	}
	results := []ort.Value{nil}
	if err := e.session.Run(feeds, results); err != nil {
		return out, err
	}
	defer func() { err = errors.Join(err, results[0].Destroy()) }()
	t, ok := results[0].(*ort.Tensor[float32])
	if !ok {
		return out, fmt.Errorf("model output is %T, want float32", results[0])
	}
	dims := t.GetShape()
	// onnxruntime_go copies the output into Go memory: the slice outlives
	// the tensor.
	out.data = t.GetData()
	out.width = int(dims[len(dims)-1])
	out.tokenLevel = len(dims) == 3
	if len(dims) != e.rank || dims[0] != int64(b.rows) || out.tokenLevel && dims[1] != int64(b.seq) {
		return out, fmt.Errorf("model output has shape %v for a batch of %dx%d", dims, b.rows, b.seq)
	}
	return out, nil
}

func (e *ortEncoder) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.session == nil {
		return nil
	}
	err := e.session.Destroy()
	e.session = nil
	return err
}
