//go:build amd64 && !purego

#include "textflag.h"

// cgDot4's loop (cg_spmv.go) with its four chains in the lanes of Y0:
// each step gathers p at four column indices (two VMOVSD, two VMOVHPD and
// a VINSERTF128), multiplies them by the four values of a and adds the
// products to the chains, as the Go loop does, so that each row is summed
// in its order and the results are the Go loop's bit for bit. BX holds a,
// SI c, CX n, DX p, R8 the step's first value.

// DOT4START loads the arguments and clears the chains.
#define DOT4START \
	MOVQ   a+0(FP), BX \
	MOVQ   c+8(FP), SI \
	MOVQ   n+16(FP), CX \
	MOVQ   p+24(FP), DX \
	VXORPD Y0, Y0, Y0 \
	XORQ   R8, R8

// DOT4STEP multiplies p at the indices in R10-R13 by a's four values at
// R8 and adds them to the chains, then moves to the next step.
#define DOT4STEP \
	VMOVSD      (DX)(R10*8), X1 \
	VMOVHPD     (DX)(R11*8), X1, X1 \
	VMOVSD      (DX)(R12*8), X2 \
	VMOVHPD     (DX)(R13*8), X2, X2 \
	VINSERTF128 $1, X2, Y1, Y1 \
	VMULPD      (BX)(R8*8), Y1, Y1 \
	VADDPD      Y1, Y0, Y0 \
	ADDQ        $4, R8

// DOT4END returns the four chains.
#define DOT4END \
	VMOVSD       X0, s0+32(FP) \
	VMOVHPD      X0, s1+40(FP) \
	VEXTRACTF128 $1, Y0, X0 \
	VMOVSD       X0, s2+48(FP) \
	VMOVHPD      X0, s3+56(FP) \
	VZEROUPPER \
	RET

// DOT4(load, w) is the whole function for indices of w bytes, which load
// moves into a register (R10-R13) from c.
#define DOT4(load, w) \
	DOT4START \
	TESTQ CX, CX \
	JZ    done \
loop: \
	load 0(SI)(R8*w), R10 \
	load w(SI)(R8*w), R11 \
	load 2*w(SI)(R8*w), R12 \
	load 3*w(SI)(R8*w), R13 \
	DOT4STEP \
	CMPQ  R8, CX \
	JLT   loop \
done: \
	DOT4END

// func cgDot4x16AVX2(a *float64, c *uint16, n int, p *float64) (s0, s1, s2, s3 float64)
TEXT ·cgDot4x16AVX2(SB), NOSPLIT, $0-64
	DOT4(MOVWQZX, 2)

// func cgDot4x32AVX2(a *float64, c *uint32, n int, p *float64) (s0, s1, s2, s3 float64)
TEXT ·cgDot4x32AVX2(SB), NOSPLIT, $0-64
	DOT4(MOVL, 4)
