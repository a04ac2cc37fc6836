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

// func cgDot4x16AVX2(a *float64, c *uint16, n int, p *float64) (s0, s1, s2, s3 float64)
TEXT ·cgDot4x16AVX2(SB), NOSPLIT, $0-64
	DOT4START
	TESTQ CX, CX
	JZ    dot4x16Done

dot4x16Loop:
	MOVWQZX 0(SI)(R8*2), R10
	MOVWQZX 2(SI)(R8*2), R11
	MOVWQZX 4(SI)(R8*2), R12
	MOVWQZX 6(SI)(R8*2), R13
	DOT4STEP
	CMPQ    R8, CX
	JLT     dot4x16Loop

dot4x16Done:
	DOT4END

// func cgDot4x32AVX2(a *float64, c *uint32, n int, p *float64) (s0, s1, s2, s3 float64)
TEXT ·cgDot4x32AVX2(SB), NOSPLIT, $0-64
	DOT4START
	TESTQ CX, CX
	JZ    dot4x32Done

dot4x32Loop:
	MOVL 0(SI)(R8*4), R10
	MOVL 4(SI)(R8*4), R11
	MOVL 8(SI)(R8*4), R12
	MOVL 12(SI)(R8*4), R13
	DOT4STEP
	CMPQ R8, CX
	JLT  dot4x32Loop

dot4x32Done:
	DOT4END
