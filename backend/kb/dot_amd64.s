#include "textflag.h"

// func dotsInt8AVX2(q *int16, vecs *int8, stride int, n int, out *int32)
//
// out[i] = Σ_j q[j] * vecs[i*stride+j] for i < n; stride is a positive
// multiple of 32. Each step widens 16 int8s to int16 and multiply-adds
// them pairwise into eight int32 lanes (VPMADDWD): no int8×int8 multiply
// exists, and the sums of a 384-dim row stay far below 2^31.
TEXT ·dotsInt8AVX2(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ vecs+8(FP), DI
	MOVQ stride+16(FP), CX
	MOVQ n+24(FP), DX
	MOVQ out+32(FP), R8
	TESTQ DX, DX
	JZ   done

row:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	MOVQ  SI, R9
	MOVQ  CX, R10

step:
	VPMOVSXBW (DI), Y2
	VPMADDWD  (R9), Y2, Y2
	VPADDD    Y2, Y0, Y0
	VPMOVSXBW 16(DI), Y3
	VPMADDWD  32(R9), Y3, Y3
	VPADDD    Y3, Y1, Y1
	ADDQ      $32, DI
	ADDQ      $64, R9
	SUBQ      $32, R10
	JNZ       step

	// Fold the eight lanes into one.
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, (R8)
	ADDQ         $4, R8
	DECQ         DX
	JNZ          row

done:
	VZEROUPPER
	RET
