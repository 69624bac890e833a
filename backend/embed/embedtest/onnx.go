// Package embedtest writes small ONNX model directories (model.onnx,
// tokenizer.json, config.json, special_tokens_map.json) in the exact layout
// of a Hugging Face export, so tests can drive backend/embed through the real
// tokenizer and the real ONNX runtime.
//
// The weights are NOT learned: the embedder is a bag-of-words projection and
// the reranker scores word overlap between query and passage. They exist to
// test plumbing (tokenising, batching, pooling, truncation, ordering) and the
// retrieval pipeline around them. They are never installed as a user's model
// and say nothing about semantic retrieval quality.
package embedtest

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ONNX protobuf field numbers and enum values (onnx/onnx.proto3) used here.
const (
	tensorFloat = 1
	tensorInt64 = 7

	attrFloat = 1
	attrInt   = 2
	attrInts  = 7
)

// msg is a protobuf message under construction.
type msg []byte

func (m msg) bytes(field protowire.Number, b []byte) msg {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendBytes(m, b)
}

func (m msg) str(field protowire.Number, s string) msg { return m.bytes(field, []byte(s)) }

func (m msg) varint(field protowire.Number, v int64) msg {
	m = protowire.AppendTag(m, field, protowire.VarintType)
	return protowire.AppendVarint(m, uint64(v))
}

// dim is one tensor dimension: a fixed size or a symbolic name.
type dim struct {
	size  int64
	param string
}

// valueInfo encodes ValueInfoProto{name, type.tensor_type{elem_type, shape}}.
func valueInfo(name string, elem int64, dims ...dim) []byte {
	var shape msg
	for _, d := range dims {
		var dm msg
		if d.param != "" {
			dm = dm.str(2, d.param)
		} else {
			dm = dm.varint(1, d.size)
		}
		shape = shape.bytes(1, dm)
	}
	tensorType := msg{}.varint(1, elem).bytes(2, shape)
	typ := msg{}.bytes(1, tensorType)
	return msg{}.str(1, name).bytes(2, typ)
}

// tensor encodes a TensorProto with raw little-endian data.
func tensor(name string, elem int64, dims []int64, raw []byte) []byte {
	var t msg
	for _, d := range dims {
		t = t.varint(1, d)
	}
	return t.varint(2, elem).str(8, name).bytes(9, raw)
}

func floatTensor(name string, dims []int64, data []float32) []byte {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return tensor(name, tensorFloat, dims, raw)
}

func int64Tensor(name string, dims []int64, data []int64) []byte {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return tensor(name, tensorInt64, dims, raw)
}

// attr is one node attribute: a float, an int or a list of ints.
type attr struct {
	name string
	f    *float32
	i    *int64
	ints []int64
}

func floatAttr(name string, v float32) attr { return attr{name: name, f: &v} }
func intAttr(name string, v int64) attr     { return attr{name: name, i: &v} }
func intsAttr(name string, v ...int64) attr { return attr{name: name, ints: v} }

// node encodes a NodeProto.
func node(op string, inputs, outputs []string, attrs ...attr) []byte {
	var n msg
	for _, in := range inputs {
		n = n.str(1, in)
	}
	for _, out := range outputs {
		n = n.str(2, out)
	}
	n = n.str(3, outputs[0]).str(4, op)
	for _, a := range attrs {
		am := msg{}.str(1, a.name)
		switch {
		case a.f != nil:
			am = protowire.AppendTag(am, 2, protowire.Fixed32Type)
			am = protowire.AppendFixed32(am, math.Float32bits(*a.f))
			am = am.varint(20, attrFloat)
		case a.i != nil:
			am = am.varint(3, *a.i).varint(20, attrInt)
		default:
			for _, v := range a.ints {
				am = am.varint(8, v)
			}
			am = am.varint(20, attrInts)
		}
		n = n.bytes(5, am)
	}
	return n
}

// graph is an ONNX graph under construction.
type graph struct {
	nodes, inits, inputs, outputs [][]byte
	opset                         int64 // default domain's opset; 0 means 13
}

// model encodes a ModelProto (IR 8).
func (g *graph) model(name string) []byte {
	var gm msg
	for _, n := range g.nodes {
		gm = gm.bytes(1, n)
	}
	gm = gm.str(2, name)
	for _, t := range g.inits {
		gm = gm.bytes(5, t)
	}
	for _, v := range g.inputs {
		gm = gm.bytes(11, v)
	}
	for _, v := range g.outputs {
		gm = gm.bytes(12, v)
	}
	version := g.opset
	if version == 0 {
		version = 13
	}
	opset := msg{}.str(1, "").varint(2, version)
	return msg{}.varint(1, 8).str(2, "jarvis-embedtest").bytes(7, gm).bytes(8, opset)
}
