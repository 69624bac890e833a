package embed

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Fusions done while writing the int8 copy. Profiled through ONNX Runtime
// on the MiniLM-L6-shaped graph (25 pairs of 128 tokens), once the
// projections ran in int8 the elementwise passes around them took a third
// of a rerank: the bias Add after every projection and the five passes of
// an exported exact GELU (Div, Erf, Add, Mul, Mul) over the 1,536-wide
// feed-forward activations. ONNX Runtime's own GELU fusion left that
// export's pattern alone, and its bias fusions do not see through
// DynamicQuantizeMatMul. So the copy folds each bias into the
// DynamicQuantizeMatMul (its optional bias input) and writes each GELU as
// ONNX Runtime's Gelu: the same arithmetic in one pass. A pattern that
// does not match exactly is left as it is.

const (
	attrName    = 1  // AttributeProto.name
	attrFloat   = 2  // AttributeProto.f
	attrInt     = 3  // AttributeProto.i
	attrT       = 5  // AttributeProto.t
	attrType    = 20 // AttributeProto.type
	attrTypeInt = 2  // AttributeProto.AttributeType INT
)

// graphNodes is the graph's nodes with what the fusions look up.
type graphNodes struct {
	nodes    map[int]nodeInfo
	producer map[string]int   // tensor -> the node writing it
	readers  map[string][]int // tensor -> the nodes reading it
	inits    map[string][]field
	declared map[string]bool // graph inputs and outputs: fixed names
}

type nodeInfo struct {
	fs      []field
	op      string
	domain  string
	inputs  []string
	outputs []string
}

// onlyReader is the single node reading tensor t, when t is neither a
// graph output nor read anywhere else.
func (g *graphNodes) onlyReader(t string) (int, bool) {
	if r := g.readers[t]; len(r) == 1 && !g.declared[t] {
		return r[0], true
	}
	return 0, false
}

// is reports whether node i is the plain ONNX op with n inputs.
func (g *graphNodes) is(i int, op string, n int) bool {
	nd, ok := g.nodes[i]
	return ok && nd.op == op && nd.domain == "" && len(nd.inputs) == n && len(nd.outputs) == 1
}

// other is the input of the two-input node i that is not t ("" when t is
// not one of them).
func (g *graphNodes) other(i int, t string) string {
	in := g.nodes[i].inputs
	switch {
	case in[0] == t:
		return in[1]
	case in[1] == t:
		return in[0]
	}
	return ""
}

// scalar reads a constant holding one float32: an initializer of one
// element or a Constant node's value.
func (g *graphNodes) scalar(name string) (float32, bool) {
	if g.declared[name] {
		return 0, false // a graph input may be fed another value
	}
	if t, ok := g.inits[name]; ok {
		return floatScalar(t)
	}
	i, ok := g.producer[name]
	if !ok || !g.is(i, "Constant", 0) {
		return 0, false
	}
	for _, f := range g.nodes[i].fs {
		if f.num != nodeAttribute || f.typ != protowire.BytesType {
			continue
		}
		attr, err := fields(f.val)
		if err != nil {
			return 0, false
		}
		switch firstString(attr, attrName) {
		case "value_float":
			for _, af := range attr {
				if af.num == attrFloat && af.typ == protowire.Fixed32Type {
					v, _ := protowire.ConsumeFixed32(af.raw[protowire.SizeTag(attrFloat):])
					return math.Float32frombits(v), true
				}
			}
		case "value":
			for _, af := range attr {
				if af.num == attrT && af.typ == protowire.BytesType {
					if t, err := fields(af.val); err == nil {
						return floatScalar(t)
					}
				}
			}
		}
	}
	return 0, false
}

// floatScalar reads a float32 TensorProto of exactly one element and rank
// 0 or 1 (a higher rank would broadcast what it multiplies to more
// dimensions, which the fused node does not).
func floatScalar(t []field) (float32, bool) {
	var dtype uint64
	var data []byte
	elems, rank := int64(1), 0
	for _, f := range t {
		switch f.num {
		case tensorDims:
			if f.typ != protowire.VarintType {
				return 0, false // packed dims: not what exporters write for a scalar
			}
			elems *= int64(f.n)
			rank++
		case tensorDataType:
			dtype = f.n
		case tensorRaw:
			data = f.val
		case tensorFloat:
			switch f.typ {
			case protowire.BytesType:
				data = f.val
			case protowire.Fixed32Type:
				data = f.raw[protowire.SizeTag(tensorFloat):]
			}
		case tensorLocation:
			if f.n == 1 {
				return 0, false
			}
		}
	}
	if dtype != onnxFloat || elems != 1 || rank > 1 || len(data) != 4 {
		return 0, false
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(data)), true
}

// vectorOf says whether initializer name is a 1-D float32 tensor of n
// elements (a bias for n output columns).
func (g *graphNodes) vectorOf(name string, n int) bool {
	t, ok := g.inits[name]
	if !ok || g.declared[name] {
		return false
	}
	// Read as a 1×n matrix: a leading dimension of 1 before its own.
	m, ok := matrixOf(append([]field{{num: tensorDims, typ: protowire.VarintType, n: 1}}, t...))
	return ok && m.rows == 1 && m.cols == n
}

func near(v float32, want float64) bool { return math.Abs(float64(v)-want) <= 1e-4*math.Abs(want) }

// foldBias finds the bias Add after the quantized MatMul at node i (output
// columns cols): the node to drop, the bias tensor and the tensor the
// fused node then writes.
func (g *graphNodes) foldBias(i, cols int) (add int, bias, out string, ok bool) {
	y := g.nodes[i].outputs[0]
	add, ok = g.onlyReader(y)
	if !ok || !g.is(add, "Add", 2) {
		return 0, "", "", false
	}
	bias = g.other(add, y)
	if bias == y || !g.vectorOf(bias, cols) {
		return 0, "", "", false
	}
	return add, bias, g.nodes[add].outputs[0], true
}

// gelu matches an exact GELU around the Erf node e, x·0.5·(1 + erf(x/√2))
// in the orders exporters write it: the nodes it spans (e among them), x,
// and the tensor it writes. Nodes already in rewritten are not taken twice.
func (g *graphNodes) gelu(e int, rewritten map[int][]byte) (span []int, x, out string, ok bool) {
	if !g.is(e, "Erf", 1) {
		return nil, "", "", false
	}
	// x/√2, as Div(x, √2) or Mul(x, 1/√2).
	t := g.nodes[e].inputs[0]
	d, found := g.producer[t]
	if !found || g.declared[t] || len(g.readers[t]) != 1 {
		return nil, "", "", false
	}
	switch {
	case g.is(d, "Div", 2):
		x = g.nodes[d].inputs[0]
		if c, ok := g.scalar(g.nodes[d].inputs[1]); !ok || !near(c, math.Sqrt2) {
			return nil, "", "", false
		}
	case g.is(d, "Mul", 2):
		for _, in := range g.nodes[d].inputs {
			if c, ok := g.scalar(in); ok && near(c, 1/math.Sqrt2) {
				x = g.other(d, in)
			}
		}
	}
	if x == "" {
		return nil, "", "", false
	}
	// 1 + erf(…)
	a, ok := g.onlyReader(g.nodes[e].outputs[0])
	if !ok || !g.is(a, "Add", 2) {
		return nil, "", "", false
	}
	if c, ok := g.scalar(g.other(a, g.nodes[e].outputs[0])); !ok || !near(c, 1) {
		return nil, "", "", false
	}
	one := g.nodes[a].outputs[0]
	// Two Muls bring in x, 0.5 and 1 + erf(…) in some order.
	m1, ok := g.onlyReader(one)
	if !ok || !g.is(m1, "Mul", 2) {
		return nil, "", "", false
	}
	half := func(name string) bool { c, ok := g.scalar(name); return ok && near(c, 0.5) }
	var m2 int
	switch first := g.other(m1, one); {
	case first == x || half(first): // x·(1+erf) or 0.5·(1+erf), then the third factor
		if m2, ok = g.onlyReader(g.nodes[m1].outputs[0]); !ok || !g.is(m2, "Mul", 2) {
			return nil, "", "", false
		}
		rest := g.other(m2, g.nodes[m1].outputs[0])
		if !(first == x && half(rest) || half(first) && rest == x) {
			return nil, "", "", false
		}
	default: // (x·0.5)·(1+erf): the other factor is a Mul of x and 0.5
		h, found := g.producer[first]
		if !found || !g.is(h, "Mul", 2) || len(g.readers[first]) != 1 || g.declared[first] || !half(g.other(h, x)) {
			return nil, "", "", false
		}
		m2, span = m1, []int{h}
	}
	span = append(span, d, e, a, m1)
	if m2 != m1 {
		span = append(span, m2)
	}
	for _, n := range span {
		if _, taken := rewritten[n]; taken {
			return nil, "", "", false
		}
	}
	return span, x, g.nodes[m2].outputs[0], true
}

// geluNode is ONNX Runtime's Gelu reading x and writing out.
func geluNode(x, out, name string) []byte {
	return nodeField("Gelu", msDomain, []string{x}, []string{out}, name, "_gelu")
}

// nodeField is a graph's node field: op (of domain; "" for ONNX's own)
// reading ins and writing outs, with attrs (whole attribute fields). It is
// named name+suffix after the node it stands for; an unnamed one stays so
// (node names are optional).
func nodeField(op, domain string, ins, outs []string, name, suffix string, attrs ...[]byte) []byte {
	var b []byte
	for _, in := range ins {
		b = appendString(b, nodeInput, in)
	}
	for _, out := range outs {
		b = appendString(b, nodeOutput, out)
	}
	if name != "" {
		b = appendString(b, nodeName, name+suffix)
	}
	b = appendString(b, nodeOpType, op)
	for _, a := range attrs {
		b = append(b, a...)
	}
	if domain != "" {
		b = appendString(b, nodeDomain, domain)
	}
	return appendBytes(nil, graphNode, b)
}

// gatherAxis is a Gather node's axis attribute (0 when absent); -1 stands
// for any axis other than 0, which the int8 table does not serve.
func gatherAxis(node []field) int {
	for _, f := range node {
		if f.num != nodeAttribute || f.typ != protowire.BytesType {
			continue
		}
		attr, err := fields(f.val)
		if err != nil || firstString(attr, attrName) != "axis" {
			continue
		}
		for _, af := range attr {
			if af.num == attrInt && af.typ == protowire.VarintType && af.n != 0 {
				return -1
			}
		}
	}
	return 0
}

// int8Gather is the Gather node n reading the int8 table tb (its rows and
// their scales) in place of the float one: the rows and their scales are
// gathered, and the rows cast to float and scaled, into n's output.
func int8Gather(n nodeInfo, tb [2]string, fresh func(string) string) [][]byte {
	ids, out := n.inputs[1], n.outputs[0]
	rows, scale, float := fresh(out+"_int8"), fresh(out+"_scale"), fresh(out+"_float")
	name := firstString(n.fs, nodeName)
	var attrs [][]byte // the Gather's own (its axis)
	for _, f := range n.fs {
		if f.num == nodeAttribute {
			attrs = append(attrs, f.raw)
		}
	}
	node := func(op string, ins []string, outName, suffix string, extra ...[]byte) []byte {
		return nodeField(op, "", ins, []string{outName}, name, suffix, extra...)
	}
	var to []byte // Cast's "to": FLOAT
	to = appendString(to, attrName, "to")
	to = appendVarint(to, attrInt, onnxFloat)
	to = appendVarint(to, attrType, attrTypeInt)
	return [][]byte{
		node("Gather", []string{tb[0], ids}, rows, "_int8", attrs...),
		node("Gather", []string{tb[1], ids}, scale, "_scale", attrs...),
		node("Cast", []string{rows}, float, "_cast", appendBytes(nil, nodeAttribute, to)),
		node("Mul", []string{float, scale}, out, "_dequant"),
	}
}
