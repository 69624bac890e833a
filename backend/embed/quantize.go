package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"net"
	"os"
	"slices"

	"github.com/jarvis-kb/jarvis/backend/fsutil"
	"github.com/jarvis-kb/jarvis/backend/logs"

	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
	"google.golang.org/protobuf/encoding/protowire"
)

// Weight-only int8 quantization of an ONNX graph, done on the user's machine
// from the model they downloaded: every MatMul whose second input is a
// constant 2-D float matrix (a BERT's projections and feed-forward layers,
// about 95% of its arithmetic) becomes ONNX Runtime's DynamicQuantizeMatMul,
// which quantizes the activations per call and multiplies in int8. The
// weights are quantized per output column, symmetrically. Attention
// (activation x activation) and everything else stay float32.
//
// The graph is read and written with protowire against the field numbers
// of onnx.proto, so no generated ONNX package is needed; fields this code
// does not touch are copied byte for byte.

// onnx.proto field numbers used here.
const (
	modelGraph       = 7 // ModelProto.graph
	modelOpsetImport = 8 // ModelProto.opset_import
	opsetDomain      = 1 // OperatorSetIdProto.domain
	opsetVersion     = 2 // OperatorSetIdProto.version

	graphNode        = 1  // GraphProto.node
	graphInitializer = 5  // GraphProto.initializer
	graphInput       = 11 // GraphProto.input
	graphOutputs     = 12 // GraphProto.output
	nodeAttribute    = 5  // NodeProto.attribute
	attrGraph        = 6  // AttributeProto.g
	attrGraphs       = 11 // AttributeProto.graphs
	valueInfoName    = 1  // ValueInfoProto.name

	nodeInput  = 1
	nodeOutput = 2
	nodeName   = 3
	nodeOpType = 4
	nodeDomain = 7

	tensorDims     = 1
	tensorDataType = 2
	tensorFloat    = 4 // TensorProto.float_data
	tensorName     = 8
	tensorRaw      = 9
	tensorLocation = 14 // data_location: 1 = EXTERNAL

	onnxFloat = 1 // TensorProto.DataType FLOAT
	onnxInt8  = 3 // TensorProto.DataType INT8
)

const msDomain = "com.microsoft"

// quantizeStats says what a quantization did, for the log and the tests.
type quantizeStats struct {
	MatMuls    int // MatMul nodes rewritten
	Weights    int // weight matrices quantized
	FloatBytes int // bytes of float32 weights replaced
	Int8Bytes  int // bytes of int8 weights and scales written
	Biases     int // bias Adds folded into the int8 MatMuls
	Gelus      int // exact GELUs written as one Gelu node
	Tables     int // lookup tables (word embeddings) stored in int8
}

// weightRange is the int8 range the weights are scaled into. Without
// AVX-512 VNNI (or AVX-VNNI), x86 int8 kernels multiply unsigned
// activations by signed weights with an instruction that saturates 16-bit
// sums; weights in 7 bits cannot saturate it (ONNX Runtime's own
// quantizer calls this reduce_range).
func weightRange() float64 {
	if cpu.X86.HasAVX512VNNI || cpu.X86.HasAVXVNNI || !(cpu.X86.HasAVX2 || cpu.X86.HasAVX512F) {
		return 127
	}
	return 63
}

type field struct {
	num protowire.Number
	typ protowire.Type
	raw []byte // the whole field, tag included
	val []byte // for bytes fields: the payload
	n   uint64 // for varint fields
}

func fields(b []byte) ([]field, error) {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		f := field{num: num, typ: typ, raw: b[:n+m]}
		switch typ {
		case protowire.BytesType:
			f.val, _ = protowire.ConsumeBytes(b[n:])
		case protowire.VarintType:
			f.n, _ = protowire.ConsumeVarint(b[n:])
		}
		out = append(out, f)
		b = b[n+m:]
	}
	return out, nil
}

func stringsOf(fs []field, num protowire.Number) []string {
	var out []string
	for _, f := range fs {
		if f.num == num && f.typ == protowire.BytesType {
			out = append(out, string(f.val))
		}
	}
	return out
}

func firstString(fs []field, num protowire.Number) string {
	if s := stringsOf(fs, num); len(s) > 0 {
		return s[0]
	}
	return ""
}

// floatMatrix is a 2-D float32 initializer, read in place: raw holds its
// rows*cols little-endian floats.
type floatMatrix struct {
	rows, cols int
	raw        []byte
}

func (m floatMatrix) at(i int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(m.raw[4*i:]))
}

// matrixOf reads a TensorProto if it is a 2-D float32 tensor held in the
// file (not external data).
func matrixOf(fs []field) (floatMatrix, bool) {
	var dims []int64
	var dtype uint64
	var raw, packed []byte
	for _, f := range fs {
		switch f.num {
		case tensorDims:
			if f.typ == protowire.VarintType {
				dims = append(dims, int64(f.n))
			} else if f.typ == protowire.BytesType {
				for b := f.val; len(b) > 0; {
					v, n := protowire.ConsumeVarint(b)
					if n < 0 {
						return floatMatrix{}, false
					}
					dims = append(dims, int64(v))
					b = b[n:]
				}
			}
		case tensorDataType:
			dtype = f.n
		case tensorRaw:
			raw = f.val
		case tensorFloat:
			if f.typ == protowire.BytesType {
				packed = append(packed, f.val...)
			}
		case tensorLocation:
			if f.n == 1 {
				return floatMatrix{}, false
			}
		}
	}
	if dtype != onnxFloat || len(dims) != 2 || dims[0] <= 0 || dims[1] <= 0 {
		return floatMatrix{}, false
	}
	if raw == nil {
		raw = packed
	}
	if int64(len(raw)) != 4*dims[0]*dims[1] {
		return floatMatrix{}, false
	}
	return floatMatrix{rows: int(dims[0]), cols: int(dims[1]), raw: raw}, true
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func tensorProto(name string, dtype uint64, dims []int64, raw []byte) []byte {
	var t []byte
	for _, d := range dims {
		t = appendVarint(t, tensorDims, uint64(d))
	}
	t = appendVarint(t, tensorDataType, dtype)
	t = appendString(t, tensorName, name)
	return appendBytes(t, tensorRaw, raw)
}

// quantizeColumns quantizes m per column into int8 with the given range:
// q = round(w / scale), scale = max|w| / limit, zero point 0.
func quantizeColumns(m floatMatrix, limit float64) (q []byte, scales []float32) {
	peak := make([]float64, m.cols)
	for i := range m.rows * m.cols {
		c := i % m.cols
		peak[c] = max(peak[c], math.Abs(float64(m.at(i))))
	}
	scales = make([]float32, m.cols)
	for c, p := range peak {
		if p == 0 {
			p = 1
		}
		scales[c] = float32(p / limit)
	}
	q = make([]byte, m.rows*m.cols)
	for i := range q {
		v := math.Round(float64(m.at(i)) / float64(scales[i%m.cols]))
		q[i] = byte(int8(max(-limit, min(limit, v))))
	}
	return q, scales
}

// quantizeRows quantizes m per row into int8: q = round(w / scale),
// scale = max|w| / 127 over the row (a lookup table's rows are read one at
// a time and differ in size). The dequantized row is a Cast and a Mul, in
// float, so the full 8-bit range is safe.
func quantizeRows(m floatMatrix) (q []byte, scales []float32) {
	scales = make([]float32, m.rows)
	q = make([]byte, m.rows*m.cols)
	for r := range m.rows {
		peak := 0.0
		for c := range m.cols {
			peak = max(peak, math.Abs(float64(m.at(r*m.cols+c))))
		}
		if peak == 0 {
			peak = 1
		}
		scales[r] = float32(peak / 127)
		for c := range m.cols {
			v := math.Round(float64(m.at(r*m.cols+c)) / float64(scales[r]))
			q[r*m.cols+c] = byte(int8(max(-127, min(127, v))))
		}
	}
	return q, scales
}

func floatBytes(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

// quantizeGraph returns model with its constant-weight MatMuls in int8,
// as pieces to write out in order. A model with none (or one already
// quantized) comes back unchanged with zero stats.
func quantizeGraph(model []byte, limit float64) (net.Buffers, quantizeStats, error) {
	return quantizeGraphWith(model, limit, quantizeOptions{tableBytes: 1 << 20})
}

// quantizeOptions are what tests and benchmarks vary.
type quantizeOptions struct {
	noFuse bool // leave out the fusions of fuse.go
	// tableBytes is the smallest lookup table (a Gather's constant float
	// matrix: the word embeddings) stored in int8, one scale per row. The
	// vocabulary's table is a sixth of a MiniLM's weights; the small
	// position and token-type tables are not worth the extra nodes.
	tableBytes int
}

// quantizeGraphWith is quantizeGraph with options.
func quantizeGraphWith(model []byte, limit float64, o quantizeOptions) (net.Buffers, quantizeStats, error) {
	fuse := !o.noFuse
	var st quantizeStats
	top, err := fields(model)
	if err != nil {
		return nil, st, fmt.Errorf("read the model: %w", err)
	}
	gi := -1
	for i, f := range top {
		if f.num == modelGraph && f.typ == protowire.BytesType {
			gi = i
		}
	}
	if gi < 0 {
		return nil, st, errors.New("the model has no graph")
	}
	graph, err := fields(top[gi].val)
	if err != nil {
		return nil, st, fmt.Errorf("read the graph: %w", err)
	}

	// Which initializers may be replaced: 2-D float, used only as the
	// second input of plain MatMuls, and neither declared a graph input
	// (an input could be overridden at run time) nor a graph output. A
	// graph with subgraphs (If, Loop, Scan: they may name any tensor) or
	// with tensors in external files (the copy would not find them) is
	// left as it is.
	unchanged := net.Buffers{model}
	inits := map[string]int{} // name -> index in graph
	declared := map[string]bool{}
	names := map[string]bool{} // every tensor name, for new names that clash with none
	for i, f := range graph {
		switch f.num {
		case graphInitializer:
			t, err := fields(f.val)
			if err != nil {
				return nil, st, err
			}
			for _, tf := range t {
				if tf.num == tensorLocation && tf.n == 1 {
					return unchanged, quantizeStats{}, nil
				}
			}
			name := firstString(t, tensorName)
			inits[name], names[name] = i, true
		case graphInput, graphOutputs:
			v, err := fields(f.val)
			if err != nil {
				return nil, st, err
			}
			declared[firstString(v, valueInfoName)] = true
		}
	}
	nodes := map[int]nodeInfo{}
	producer, readers := map[string]int{}, map[string][]int{}
	asWeight := map[string]int{} // uses as a MatMul weight
	asTable := map[string]int{}  // uses as the data of a Gather along rows
	uses := map[string]int{}     // uses anywhere
	for i, f := range graph {
		if f.num != graphNode {
			continue
		}
		fs, err := fields(f.val)
		if err != nil {
			return nil, st, err
		}
		n := nodeInfo{fs: fs, op: firstString(fs, nodeOpType), domain: firstString(fs, nodeDomain), inputs: stringsOf(fs, nodeInput), outputs: stringsOf(fs, nodeOutput)}
		nodes[i] = n
		for _, in := range n.inputs {
			uses[in]++
			names[in] = true
			readers[in] = append(readers[in], i)
		}
		for _, out := range n.outputs {
			names[out] = true
			producer[out] = i
		}
		if n.op == "DynamicQuantizeMatMul" || n.op == "MatMulInteger" {
			return unchanged, quantizeStats{}, nil // already quantized
		}
		for _, f := range fs {
			if f.num != nodeAttribute || f.typ != protowire.BytesType {
				continue
			}
			attr, err := fields(f.val)
			if err != nil {
				return nil, st, err
			}
			for _, af := range attr {
				if af.num == attrGraph || af.num == attrGraphs {
					return unchanged, quantizeStats{}, nil
				}
			}
		}
		if n.op == "MatMul" && n.domain == "" && len(n.inputs) == 2 {
			asWeight[n.inputs[1]]++
		}
		if n.op == "Gather" && n.domain == "" && len(n.inputs) == 2 && len(n.outputs) == 1 && gatherAxis(fs) == 0 {
			asTable[n.inputs[0]]++
		}
	}
	// fresh is a tensor name no tensor of the graph has yet.
	fresh := func(base string) string {
		name := base
		for k := 2; names[name]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		names[name] = true
		return name
	}
	weights := slices.Sorted(maps.Keys(asWeight)) // the same bytes every run
	quantized := map[string][3]string{}           // weight -> its int8, scale and zero point
	columns := map[string]int{}                   // weight -> its output columns
	initFields := map[string][]field{}
	var added [][]byte
	for _, name := range weights {
		i, ok := inits[name]
		if !ok || declared[name] || uses[name] != asWeight[name] {
			continue
		}
		t, _ := fields(graph[i].val)
		m, ok := matrixOf(t)
		if !ok {
			continue
		}
		q, scales := quantizeColumns(m, limit)
		as := [3]string{fresh(name + "_int8"), fresh(name + "_scale"), fresh(name + "_zero")}
		added = append(added,
			tensorProto(as[0], onnxInt8, []int64{int64(m.rows), int64(m.cols)}, q),
			tensorProto(as[1], onnxFloat, []int64{int64(m.cols)}, floatBytes(scales)),
			tensorProto(as[2], onnxInt8, []int64{int64(m.cols)}, make([]byte, m.cols)))
		quantized[name], columns[name] = as, m.cols
		st.Weights++
		st.FloatBytes += len(m.raw)
		st.Int8Bytes += len(q) + 5*m.cols
	}
	tables := map[string][2]string{} // table -> its int8 rows and their scales
	for _, name := range slices.Sorted(maps.Keys(asTable)) {
		i, ok := inits[name]
		if !ok || declared[name] || uses[name] != asTable[name] {
			continue
		}
		t, _ := fields(graph[i].val)
		m, ok := matrixOf(t)
		if !ok || len(m.raw) < o.tableBytes {
			continue
		}
		q, scales := quantizeRows(m)
		as := [2]string{fresh(name + "_int8"), fresh(name + "_row_scale")}
		added = append(added,
			tensorProto(as[0], onnxInt8, []int64{int64(m.rows), int64(m.cols)}, q),
			tensorProto(as[1], onnxFloat, []int64{int64(m.rows), 1}, floatBytes(scales)))
		tables[name] = as
		st.Tables++
		st.FloatBytes += len(m.raw)
		st.Int8Bytes += len(q) + 4*m.rows
	}
	if st.Weights == 0 && st.Tables == 0 {
		return net.Buffers{model}, quantizeStats{}, nil
	}

	// Fusions (fuse.go): node index -> what it becomes (nil: dropped).
	for name, i := range inits {
		if t, err := fields(graph[i].val); err == nil {
			initFields[name] = t
		}
	}
	gn := &graphNodes{nodes: nodes, producer: producer, readers: readers, inits: initFields, declared: declared}
	rewritten := map[int][]byte{}
	type fusedMatMul struct{ bias, out string }
	fused := map[int]fusedMatMul{}
	for i, n := range nodes {
		if !fuse || n.op != "MatMul" || n.domain != "" || len(n.inputs) != 2 || len(n.outputs) != 1 {
			continue
		}
		if _, ok := quantized[n.inputs[1]]; !ok {
			continue
		}
		if add, bias, out, ok := gn.foldBias(i, columns[n.inputs[1]]); ok {
			fused[i] = fusedMatMul{bias, out}
			rewritten[add] = nil
			st.Biases++
		}
	}
	for _, e := range slices.Sorted(maps.Keys(nodes)) {
		if !fuse {
			break
		}
		span, x, out, ok := gn.gelu(e, rewritten)
		if !ok {
			continue
		}
		for _, n := range span {
			rewritten[n] = nil
		}
		rewritten[e] = geluNode(x, out, firstString(nodes[e].fs, nodeName))
		st.Gelus++
	}

	// The output is a list of pieces, most of them slices of model itself:
	// a 100 MB graph is not copied to be rewritten.
	var g net.Buffers
	glen := 0
	add := func(b []byte) { g = append(g, b); glen += len(b) }
	for i, f := range graph {
		if f.num == graphInitializer {
			t, _ := fields(f.val)
			name := firstString(t, tensorName)
			if _, ok := quantized[name]; ok {
				continue
			}
			if _, ok := tables[name]; ok {
				continue
			}
		}
		if b, ok := rewritten[i]; ok {
			if b != nil {
				add(b)
			}
			continue
		}
		n, isNode := nodes[i]
		if isNode && n.op == "Gather" && len(n.inputs) == 2 {
			if tb, ok := tables[n.inputs[0]]; ok {
				for _, b := range int8Gather(n, tb, fresh) {
					add(b)
				}
				continue
			}
		}
		var as [3]string
		ok := false
		if isNode && n.op == "MatMul" && len(n.inputs) == 2 {
			as, ok = quantized[n.inputs[1]]
		}
		if !ok {
			add(f.raw)
			continue
		}
		ins, outs := []string{n.inputs[0], as[0], as[1], as[2]}, n.outputs
		if f, ok := fused[i]; ok {
			ins, outs = append(ins, f.bias), []string{f.out}
		}
		add(nodeField("DynamicQuantizeMatMul", msDomain, ins, outs, firstString(n.fs, nodeName), "_quant"))
		st.MatMuls++
	}
	for _, t := range added {
		add(protowire.AppendVarint(protowire.AppendTag(nil, graphInitializer, protowire.BytesType), uint64(len(t))))
		add(t)
	}

	var out net.Buffers
	hasMS := false
	for i, f := range top {
		if i == gi {
			out = append(out, protowire.AppendVarint(protowire.AppendTag(nil, modelGraph, protowire.BytesType), uint64(glen)))
			out = append(out, g...)
			continue
		}
		if f.num == modelOpsetImport && f.typ == protowire.BytesType {
			if o, err := fields(f.val); err == nil && firstString(o, opsetDomain) == msDomain {
				hasMS = true
			}
		}
		out = append(out, f.raw)
	}
	if !hasMS {
		var o []byte
		o = appendString(o, opsetDomain, msDomain)
		o = appendVarint(o, opsetVersion, 1)
		out = append(out, appendBytes(nil, modelOpsetImport, o))
	}
	return out, st, nil
}

// quantize is quantizeGraph; tests replace it to make a graph ONNX Runtime
// refuses.
var quantize = quantizeGraph

// quantizeFormat names this quantizer's output; a change to what it writes
// changes the name, so an old cached graph is never reused.
const quantizeFormat = "dqmm-col-v5"

// int8Graph returns the path of an int8 copy of the graph at src (its
// weights mapped, mapped.go), cached in cacheDir per source and weight
// range, so a re-downloaded model or another CPU gets a fresh copy. An
// empty cacheDir writes a temporary copy that cleanup removes once the
// session has read it. A graph with nothing to quantize comes back as src.
func int8Graph(src, cacheDir string) (path string, cleanup func(), err error) {
	noop := func() {}
	limit := weightRange()
	c, err := cachedCopy(src, cacheDir, "", fmt.Sprintf("%v\x00%s", limit, quantizeFormat))
	if err != nil || c.path != "" {
		return c.path, c.cleanup, err
	}
	// A failure removes only what this call wrote: another process making
	// the same copy at the same moment may have finished its own.
	var wrote []string
	fail := func(err error) (string, func(), error) {
		c.cleanup()
		for _, p := range wrote {
			_ = os.Remove(p) // a failure leaves a file the next start replaces
		}
		return "", noop, err
	}
	model, release, err := mapFile(src)
	if err != nil {
		return fail(err)
	}
	defer release()
	q, st, err := quantize(model, limit)
	if err != nil {
		return fail(fmt.Errorf("quantize %s: %w", src, err))
	}
	if st.Weights == 0 {
		c.cleanup()
		return src, noop, nil
	}
	// The int8 graph is written whole as the weights, and the graph opened
	// reads its initializers from there.
	if err := fsutil.WriteAtomic(c.base+".weights", 0o600, func(w io.Writer) error { _, err := q.WriteTo(w); return err }); err != nil {
		return fail(err)
	}
	wrote = append(wrote, c.base+".weights")
	if path, err = writeMapped(c.base); err != nil {
		return fail(fmt.Errorf("map the int8 copy of %s: %w", src, err))
	}
	if path == "" { // nothing large enough to move: the graph is the whole file
		path = c.base + ".onnx"
		// Another process that got here first linked the same bytes.
		if err := os.Link(c.base+".weights", path); err != nil && !errors.Is(err, fs.ErrExist) {
			return fail(err)
		}
	}
	c.prune()
	logs.L().Info("quantized a graph to int8", "graph", src, "matrices", st.Weights, "float_mb", st.FloatBytes>>20, "int8_mb", st.Int8Bytes>>20)
	return path, c.cleanup, nil
}

// mapFile maps a file read-only: the graph is read in place, from the page
// cache, instead of into the Go heap (a 90 MB model would otherwise stay
// in the process's resident memory after its session is built).
func mapFile(path string) ([]byte, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() == 0 {
		return nil, func() {}, nil
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", path, err)
	}
	return b, func() { _ = unix.Munmap(b) }, nil
}

// openInt8 opens the int8 copy of graph, or returns nil (and says why in
// the log) when none can be made or ONNX Runtime refuses it: the model then
// runs in float32, slower but the same, rather than not at all. A refused
// copy is deleted, so it is made again rather than reused.
func openInt8(graph, cacheDir string, threads int) *ortEncoder {
	q, cleanup, err := int8Graph(graph, cacheDir)
	if err != nil {
		logs.L().Warn("running the model in float32: its int8 copy could not be made", "graph", graph, "err", err)
		return nil
	}
	defer cleanup()
	if q == graph {
		return nil // nothing to quantize
	}
	e, err := newORTEncoder(q, threads)
	if err != nil {
		logs.L().Warn("running the model in float32: ONNX Runtime refused its int8 copy", "copy", q, "err", err)
		removeCopy(q, cacheDir)
		return nil
	}
	return e
}
