//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// adiDerived's loop over a row of points (adi_rhs.go), four points at a
// time, one in each lane of an AVX2 vector, in the Go loop's order of
// operations (no fused multiply-adds; VSQRTPD and VDIVPD round as
// math.Sqrt and / do), so the same values bit for bit.

DATA  adiHalfOne<>+0(SB)/8, $0.5
DATA  adiHalfOne<>+8(SB)/8, $1.0
GLOBL adiHalfOne<>(SB), RODATA|NOPTR, $16

// LOADU(off, y, x) sets y to the values at off of the four points from SI.
#define LOADU(off, y, x) LOADP(SI, off, y, x)

// PACK(y, x, off) stores y at off of the four points' packed fields from
// DI (adiPacked = 6 values a point).
#define PACK(y, x, off) STOREP(DI, y, x, off, 48, X15)

// func adiDerivedAVX2(u, pk, rhoI, us, vs, ws, qs, speed, ainv *float64, n int, c1c2 float64)
// The first n points of a row (n a multiple of 4); speed and ainv nil for
// BT, which has neither.
TEXT ·adiDerivedAVX2(SB), NOSPLIT, $0-88
	MOVQ         u+0(FP), SI
	MOVQ         pk+8(FP), DI
	MOVQ         rhoI+16(FP), R8
	MOVQ         us+24(FP), R9
	MOVQ         vs+32(FP), R10
	MOVQ         ws+40(FP), R11
	MOVQ         qs+48(FP), R12
	MOVQ         speed+56(FP), R13
	MOVQ         ainv+64(FP), R14
	MOVQ         n+72(FP), CX
	VBROADCASTSD c1c2+80(FP), Y13
	VBROADCASTSD adiHalfOne<>+0(SB), Y14
	VBROADCASTSD adiHalfOne<>+8(SB), Y12
	XORQ         AX, AX

derivedLoop:
	CMPQ    AX, CX
	JGE     derivedDone
	LOADU(0, Y0, X0)
	LOADU(8, Y1, X1)
	LOADU(16, Y2, X2)
	LOADU(24, Y3, X3)
	VDIVPD  Y0, Y12, Y4        // r = 1 / p0
	VMULPD  Y1, Y1, Y5         // sq = 0.5·(p1² + p2² + p3²)·r
	VMULPD  Y2, Y2, Y6
	VADDPD  Y6, Y5, Y5
	VMULPD  Y3, Y3, Y6
	VADDPD  Y6, Y5, Y5
	VMULPD  Y14, Y5, Y5
	VMULPD  Y4, Y5, Y5
	VMULPD  Y4, Y1, Y1         // us, vs, ws = p1..p3 · r
	VMULPD  Y4, Y2, Y2
	VMULPD  Y4, Y3, Y3
	VMULPD  Y4, Y5, Y6         // qs = sq · r
	VMOVUPD Y4, (R8)(AX*8)
	VMOVUPD Y1, (R9)(AX*8)
	VMOVUPD Y2, (R10)(AX*8)
	VMOVUPD Y3, (R11)(AX*8)
	VMOVUPD Y6, (R12)(AX*8)
	PACK(Y4, X4, 0)
	PACK(Y1, X1, 8)
	PACK(Y2, X2, 16)
	PACK(Y3, X3, 24)
	PACK(Y6, X6, 32)
	PACK(Y5, X5, 40)
	TESTQ   R13, R13
	JEQ     derivedNext
	LOADU(32, Y7, X7)          // speed = sqrt(c1c2·r·(p4 − sq)), ainv = 1/speed
	VSUBPD  Y5, Y7, Y7
	VMULPD  Y13, Y4, Y8
	VMULPD  Y7, Y8, Y8
	VSQRTPD Y8, Y8
	VMOVUPD Y8, (R13)(AX*8)
	VDIVPD  Y8, Y12, Y9
	VMOVUPD Y9, (R14)(AX*8)

derivedNext:
	ADDQ $160, SI
	ADDQ $192, DI
	ADDQ $4, AX
	JMP  derivedLoop

derivedDone:
	VZEROUPPER
	RET
