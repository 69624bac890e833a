package kb

import "golang.org/x/sys/cpu"

// haveInt8Kernel: the int8 first pass of the dense scan runs in assembly
// (AVX2); elsewhere the float32 scan is faster than int8 in plain Go, so
// slabs keep float32 rows.
var haveInt8Kernel = cpu.X86.HasAVX2

//go:noescape
func dotsInt8AVX2(q *int16, vecs *int8, stride, n int, out *int32)

// dotsInt8 writes out[i] = q · row i of vecs, for len(out) rows.
func dotsInt8(q []int16, vecs []int8, stride int, out []int32) {
	if len(out) == 0 {
		return
	}
	if !haveInt8Kernel {
		dotsInt8Go(q, vecs, stride, out)
		return
	}
	_ = vecs[len(out)*stride-1] // bounds: the kernel reads len(out) whole rows
	_ = q[stride-1]
	dotsInt8AVX2(&q[0], &vecs[0], stride, len(out), &out[0])
}
