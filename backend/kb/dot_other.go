//go:build !amd64

package kb

var haveInt8Kernel = false

func dotsInt8(q []int16, vecs []int8, stride int, out []int32) { dotsInt8Go(q, vecs, stride, out) }
