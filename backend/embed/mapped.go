package embed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/logs"

	"google.golang.org/protobuf/encoding/protowire"
)

// Weights read in place. ONNX Runtime copies every initializer held inside
// a graph file into its own memory, but an initializer kept in an external
// data file it maps (copy-on-write) and reads where it lies. For a lookup
// table that matters: of the word embeddings (30,522 rows, a third of
// bge-small's weights) a query touches a few dozen rows, and only those
// pages become resident, as page cache the kernel can take back. The
// projections are repacked by ONNX Runtime at load either way.
//
// So a session opens a copy of the graph whose large initializers point
// into a weights file holding the original graph's bytes unchanged: a hard
// link to the source (a copy where linking fails), or the int8 copy
// itself. The arithmetic is the same to the bit. Measured on the
// bge-small-shaped graph: 193 MB resident after 20 queries inline, 150 MB
// mapped.

// externalMinBytes is the smallest initializer moved out of the graph: the
// weight matrices and tables; small constants (shapes, axes) stay inline
// for the optimizers that read them.
const externalMinBytes = 64 << 10

// typedData marks TensorProto's typed data fields (float_data, int32_data,
// string_data, int64_data, double_data, uint64_data).
var typedData = map[protowire.Number]bool{4: true, 5: true, 6: true, 7: true, 10: true, 11: true}

// onnx.proto fields of external data.
const (
	tensorExternal = 13 // TensorProto.external_data
	entryKey       = 1  // StringStringEntryProto.key
	entryValue     = 2  // StringStringEntryProto.value
)

// externalize returns model with each top-level initializer of at least
// externalMinBytes read from weights (a file name beside the graph that
// holds model's own bytes) at the offset its raw data has in model. model
// must be a whole file, as mapFile returns it. moved counts them; with none
// (or a graph that already keeps data outside, whose locations a copy
// elsewhere would break) model comes back unchanged.
func externalize(model []byte, weights string) (out net.Buffers, moved int, err error) {
	top, err := fields(model)
	if err != nil {
		return nil, 0, fmt.Errorf("read the model: %w", err)
	}
	unchanged := net.Buffers{model}
	var graph []byte
	for _, f := range top {
		if f.num == modelGraph && f.typ == protowire.BytesType {
			graph = f.val
		}
	}
	if graph == nil {
		return nil, 0, errors.New("the model has no graph")
	}
	gfs, err := fields(graph)
	if err != nil {
		return nil, 0, fmt.Errorf("read the graph: %w", err)
	}
	var g net.Buffers
	glen := 0
	add := func(b []byte) { g = append(g, b); glen += len(b) }
	for _, f := range gfs {
		if f.num != graphInitializer {
			add(f.raw)
			continue
		}
		t, err := fields(f.val)
		if err != nil {
			return nil, 0, err
		}
		var raw []byte
		raws, typed := 0, false
		for _, tf := range t {
			switch {
			case tf.num == tensorLocation && tf.n == 1:
				return unchanged, 0, nil
			case tf.num == tensorRaw && tf.typ == protowire.BytesType:
				raw = tf.val
				raws++
			case typedData[tf.num]:
				typed = true
			}
		}
		// A tensor with its data in two places (raw and typed fields, or
		// raw_data twice) is odd enough that ONNX Runtime may refuse it
		// moved; inline it stays as ONNX Runtime reads it now, and the
		// copy is not rebuilt on every start.
		if len(raw) < externalMinBytes || raws > 1 || typed {
			add(f.raw)
			continue
		}
		var tb []byte
		for _, tf := range t {
			if tf.num != tensorRaw {
				tb = append(tb, tf.raw...)
			}
		}
		// raw is a slice of model: where it starts is how much of model's
		// capacity lies before it.
		offset := cap(model) - cap(raw)
		for _, kv := range [][2]string{{"location", weights}, {"offset", strconv.Itoa(offset)}, {"length", strconv.Itoa(len(raw))}} {
			var e []byte
			e = appendString(e, entryKey, kv[0])
			e = appendString(e, entryValue, kv[1])
			tb = appendBytes(tb, tensorExternal, e)
		}
		tb = appendVarint(tb, tensorLocation, 1)
		add(appendBytes(nil, graphInitializer, tb))
		moved++
	}
	if moved == 0 {
		return unchanged, 0, nil
	}
	for _, f := range top {
		if f.num == modelGraph && f.typ == protowire.BytesType {
			out = append(out, protowire.AppendVarint(protowire.AppendTag(nil, modelGraph, protowire.BytesType), uint64(glen)))
			out = append(out, g...)
			continue
		}
		out = append(out, f.raw)
	}
	return out, moved, nil
}

// writeMapped writes base+".onnx", the graph in base+".weights" with its
// large initializers read from that file, and returns its path; "" when
// the graph has nothing to move out (open base+".weights" as it is, then).
func writeMapped(base string) (string, error) {
	weights := base + ".weights"
	model, release, err := mapFile(weights)
	if err != nil {
		return "", err
	}
	defer release()
	g, moved, err := externalize(model, filepath.Base(weights))
	if err != nil || moved == 0 {
		return "", err
	}
	path := base + ".onnx"
	if err := fsutil.WriteAtomic(path, 0o600, func(w io.Writer) error { _, err := g.WriteTo(w); return err }); err != nil {
		return "", err
	}
	return path, nil
}

// linkWeights puts the bytes of src at weights: a hard link when link is
// set, else (or where one cannot be made: another file system) a copy.
// Only a model that is replaced by rename may be linked: one rewritten in
// place would change, or shrink, under the mapped session (SIGBUS), and
// only the models Jarvis downloads are known to be (models.Install). The
// link is made under a temporary name and renamed, so a process opening
// the weights of the same source at the same moment never finds the name
// missing.
func linkWeights(src, weights string, link bool) error {
	tmp := fmt.Sprintf("%s.%d%s", weights, os.Getpid(), tmpSuffix)
	_ = os.Remove(tmp) // left by a crash; absence is the normal case
	if !link || linkFile(src, tmp) != nil {
		if err := fsutil.CopyNew(src, tmp); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	err := os.Rename(tmp, weights)
	// Renaming a link onto another link of the same file does nothing and
	// leaves the temporary name behind.
	_ = os.Remove(tmp)
	return err
}

// linkFile is os.Link; tests make it fail as it does across file systems.
var linkFile = os.Link

// tmpSuffix ends the names of weights being linked or copied; those a
// crashed process left are swept (sweepTemps).
const tmpSuffix = ".tmp"

// staleTemp is the age past which such a file is a crash's leftover.
var staleTemp = time.Hour

// mappedFormat names what writeMapped writes; a change to it changes the
// name of the cached float copies, so an old one is never reused.
const mappedFormat = "mapped-v1"

// mappedGraph returns the path of a copy of the float graph at src whose
// weights are read in place from src's bytes, kept in cacheDir (or a
// temporary folder that cleanup removes once the session has opened; ONNX
// Runtime's mappings outlive the names). It returns src when there is
// nothing to move out.
func mappedGraph(src, cacheDir string, link bool) (path string, cleanup func(), err error) {
	noop := func() {}
	kind := "f"
	if !link {
		kind = "c" // a copy of the bytes, never a link to them: a name of its own
	}
	c, err := cachedCopy(src, cacheDir, kind, mappedFormat)
	if err != nil || c.path != "" {
		return c.path, c.cleanup, err
	}
	if err := linkWeights(src, c.base+".weights", link); err != nil {
		c.cleanup()
		return "", noop, err
	}
	path, err = writeMapped(c.base)
	if err != nil || path == "" {
		c.cleanup()
		return src, noop, err
	}
	c.prune()
	return path, c.cleanup, nil
}

// openMapped opens graph through its mapped copy, or as it is when no copy
// can be made or ONNX Runtime refuses it (saying why in the log): the
// model then takes more memory but runs the same.
func openMapped(graph, cacheDir string, link bool, threads int) (*ortEncoder, error) {
	m, cleanup, err := mappedGraph(graph, cacheDir, link)
	if err != nil {
		logs.L().Warn("reading the model's weights into memory: its mapped copy could not be made", "graph", graph, "err", err)
		return newORTEncoder(graph, threads)
	}
	defer cleanup()
	if m == graph {
		return newORTEncoder(graph, threads)
	}
	e, err := newORTEncoder(m, threads)
	if err != nil {
		logs.L().Warn("reading the model's weights into memory: ONNX Runtime refused its mapped copy", "copy", m, "err", err)
		removeCopy(m, cacheDir)
		return newORTEncoder(graph, threads)
	}
	return e, nil
}

// removeCopy deletes a refused cached copy and its weights, so it is made
// again rather than refused again; a temporary one goes with its folder.
func removeCopy(path, cacheDir string) {
	if cacheDir == "" {
		return
	}
	base := path[:len(path)-len(filepath.Ext(path))]
	_ = os.Remove(path) // a failure leaves it to be refused again, nothing worse
	_ = os.Remove(base + ".weights")
}

// cachedGraph is where a derived copy of a graph (int8, mapped) lives.
type cachedGraph struct {
	path    string // the copy, when a cached one is already there
	base    string // where to write one: base+".onnx" and base+".weights"
	cleanup func() // removes a temporary copy once its session has opened
	prune   func() // removes the older copies of the same source and kind
}

// cachedCopy names the copy of kind of the graph at src in cacheDir: one
// copy per source and kind, named from the source's path, then from its size,
// modification time and format, so a re-downloaded model or another format
// gets a fresh copy and writing it prunes the older ones. An empty
// cacheDir gives a temporary folder.
func cachedCopy(src, cacheDir, kind, format string) (cachedGraph, error) {
	c := cachedGraph{cleanup: func() {}, prune: func() {}}
	fi, err := os.Stat(src)
	if err != nil {
		return c, err
	}
	// The device and inode tell a model replaced by rename (a download)
	// from the one it replaced, even at the same size and time.
	var dev, ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		dev, ino = uint64(st.Dev), st.Ino
	}
	key := sha256.Sum256(fmt.Appendf(nil, "%d\x00%d\x00%d\x00%d\x00%s", fi.Size(), fi.ModTime().UnixNano(), dev, ino, format))
	prefix := copyPrefix(src, kind)
	name := prefix + hex.EncodeToString(key[:8])
	if cacheDir == "" {
		dir, err := os.MkdirTemp("", "jarvis-graph-")
		if err != nil {
			return c, err
		}
		c.base, c.cleanup = filepath.Join(dir, name), func() { os.RemoveAll(dir) }
		return c, nil
	}
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return c, err
	}
	c.base = filepath.Join(cacheDir, name)
	if fileExists(c.base+".onnx") && fileExists(c.base+".weights") {
		c.path = c.base + ".onnx"
		return c, nil
	}
	c.prune = func() {
		sweepTemps(cacheDir)
		for _, ext := range []string{".onnx", ".weights"} {
			old, _ := filepath.Glob(filepath.Join(cacheDir, prefix+"*"+ext))
			for _, p := range old {
				if p != c.base+ext {
					_ = os.Remove(p) // an older copy of this graph; a failure only leaves disk space
				}
			}
		}
	}
	return c, nil
}

// sweepTemps removes the weights a crashed process was linking or copying
// (name.<pid>.tmp) once they are staleTemp old: a live process finishes
// its own within seconds.
func sweepTemps(cacheDir string) {
	temps, _ := filepath.Glob(filepath.Join(cacheDir, "*.weights.*"+tmpSuffix))
	for _, p := range temps {
		if fi, err := os.Stat(p); err == nil && time.Since(changedAt(fi)) > staleTemp {
			_ = os.Remove(p) // a failure only leaves disk space
		}
	}
}

// changedAt is when fi's inode last changed: for a fresh link the moment
// it was made (its modification time is the source's, often years old).
func changedAt(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}

// copyPrefix begins the name of every copy of kind ("" int8, "f" float
// with linked weights, "c" float with copied weights) of the graph at src.
func copyPrefix(src, kind string) string {
	of := sha256.Sum256([]byte(src))
	return hex.EncodeToString(of[:6]) + kind + "-"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
