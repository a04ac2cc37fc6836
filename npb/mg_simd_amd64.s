//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 line kernels of MG (see mg_simd.go and mg_simd_amd64.go). Each
// step of the loop does the four points j..j+3 of the line. The edge and
// corner sums U1, U2 are formed once, at j+1..j+4, and the step keeps
// them for the next one, which takes its j−1, j from their upper half
// (VPERM2F128) and the values at j..j+3 from both (VSHUFPD). Only
// separate multiplies and adds, in the Go version's order, so that the
// results are the Go version's bit for bit. The restriction's kernel,
// whose coarse points lie over every other fine point, is at the end.

// func mgResidLineAVX2(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu []float64, a *[4]float64)
TEXT ·mgResidLineAVX2(SB), NOSPLIT, $0-272
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), DX
	MOVQ v_base+24(FP), SI
	MOVQ u_base+48(FP), R8
	MOVQ ub_base+72(FP), R9
	MOVQ uf_base+96(FP), R10
	MOVQ ud_base+120(FP), R11
	MOVQ uu_base+144(FP), R12
	MOVQ ubd_base+168(FP), R13
	MOVQ ufd_base+192(FP), R14
	MOVQ ubu_base+216(FP), AX
	MOVQ ufu_base+240(FP), BX
	MOVQ a+264(FP), CX
	VBROADCASTSD 0(CX), Y13  // a0
	VBROADCASTSD 16(CX), Y14 // a2
	VBROADCASTSD 24(CX), Y15 // a3

	// DX = 1 + 4k, the end of the points done here.
	SUBQ $2, DX
	ANDQ $-4, DX
	INCQ DX

	// The upper halves of Y11, Y12: U1 and U2 at points 0 and 1.
	VMOVUPD (R9), X11
	VADDPD  (R10), X11, X11
	VADDPD  (R11), X11, X11
	VADDPD  (R12), X11, X11
	VINSERTF128 $1, X11, Y11, Y11
	VMOVUPD (R13), X12
	VADDPD  (R14), X12, X12
	VADDPD  (AX), X12, X12
	VADDPD  (BX), X12, X12
	VINSERTF128 $1, X12, Y12, Y12

	MOVQ $1, CX

residLoop:
	// Y0 = U1(j+1..j+4), Y1 = U2(j+1..j+4).
	VMOVUPD 8(R9)(CX*8), Y0
	VADDPD  8(R10)(CX*8), Y0, Y0
	VADDPD  8(R11)(CX*8), Y0, Y0
	VADDPD  8(R12)(CX*8), Y0, Y0
	VMOVUPD 8(R13)(CX*8), Y1
	VADDPD  8(R14)(CX*8), Y1, Y1
	VADDPD  8(AX)(CX*8), Y1, Y1
	VADDPD  8(BX)(CX*8), Y1, Y1

	// Y2 = U1(j−1..j+2), Y3 = U2(j−1..j+2), Y4 = U2(j..j+3).
	VPERM2F128 $0x21, Y0, Y11, Y2
	VPERM2F128 $0x21, Y1, Y12, Y3
	VSHUFPD    $5, Y1, Y3, Y4

	// Y5 = U2(j) + U1(j−1) + U1(j+1), Y6 = U2(j−1) + U2(j+1).
	VADDPD Y2, Y4, Y5
	VADDPD Y0, Y5, Y5
	VADDPD Y1, Y3, Y6

	// r = v − a0·u − a2·Y5 − a3·Y6.
	VMULPD  (R8)(CX*8), Y13, Y7
	VMOVUPD (SI)(CX*8), Y8
	VSUBPD  Y7, Y8, Y8
	VMULPD  Y5, Y14, Y5
	VSUBPD  Y5, Y8, Y8
	VMULPD  Y6, Y15, Y6
	VSUBPD  Y6, Y8, Y8
	VMOVUPD Y8, (DI)(CX*8)

	VMOVAPD Y0, Y11
	VMOVAPD Y1, Y12
	ADDQ $4, CX
	CMPQ CX, DX
	JLT  residLoop

	VZEROUPPER
	RET

// func mgPsinvLineAVX2(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu []float64, c *[4]float64)
TEXT ·mgPsinvLineAVX2(SB), NOSPLIT, $0-248
	MOVQ u_base+0(FP), DI
	MOVQ u_len+8(FP), DX
	MOVQ r_base+24(FP), SI
	MOVQ rb_base+48(FP), R9
	MOVQ rf_base+72(FP), R10
	MOVQ rd_base+96(FP), R11
	MOVQ ru_base+120(FP), R12
	MOVQ rbd_base+144(FP), R13
	MOVQ rfd_base+168(FP), R14
	MOVQ rbu_base+192(FP), AX
	MOVQ rfu_base+216(FP), BX
	MOVQ c+240(FP), CX
	VBROADCASTSD 0(CX), Y13  // c0
	VBROADCASTSD 8(CX), Y14  // c1
	VBROADCASTSD 16(CX), Y15 // c2

	// DX = 1 + 4k, the end of the points done here.
	SUBQ $2, DX
	ANDQ $-4, DX
	INCQ DX

	// The upper half of Y11: U1 at points 0 and 1.
	VMOVUPD (R9), X11
	VADDPD  (R10), X11, X11
	VADDPD  (R11), X11, X11
	VADDPD  (R12), X11, X11
	VINSERTF128 $1, X11, Y11, Y11

	MOVQ $1, CX

psinvLoop:
	// Y0 = U1(j+1..j+4), Y1 = U2(j..j+3).
	VMOVUPD 8(R9)(CX*8), Y0
	VADDPD  8(R10)(CX*8), Y0, Y0
	VADDPD  8(R11)(CX*8), Y0, Y0
	VADDPD  8(R12)(CX*8), Y0, Y0
	VMOVUPD (R13)(CX*8), Y1
	VADDPD  (R14)(CX*8), Y1, Y1
	VADDPD  (AX)(CX*8), Y1, Y1
	VADDPD  (BX)(CX*8), Y1, Y1

	// Y2 = U1(j−1..j+2), Y3 = U1(j..j+3).
	VPERM2F128 $0x21, Y0, Y11, Y2
	VSHUFPD    $5, Y0, Y2, Y3

	// Y4 = r(j−1) + r(j+1) + U1(j), Y5 = U2(j) + U1(j−1) + U1(j+1).
	VMOVUPD -8(SI)(CX*8), Y4
	VADDPD  8(SI)(CX*8), Y4, Y4
	VADDPD  Y3, Y4, Y4
	VADDPD  Y2, Y1, Y5
	VADDPD  Y0, Y5, Y5

	// u = u + c0·r + c1·Y4 + c2·Y5.
	VMULPD  (SI)(CX*8), Y13, Y6
	VMOVUPD (DI)(CX*8), Y7
	VADDPD  Y6, Y7, Y7
	VMULPD  Y4, Y14, Y4
	VADDPD  Y4, Y7, Y7
	VMULPD  Y5, Y15, Y5
	VADDPD  Y5, Y7, Y7
	VMOVUPD Y7, (DI)(CX*8)

	VMOVAPD Y0, Y11
	ADDQ $4, CX
	CMPQ CX, DX
	JLT  psinvLoop

	VZEROUPPER
	RET

// BROADCAST sets every lane of y (whose low half is x) to the float64 of
// the bits imm.
#define BROADCAST(imm, x, y) \
	MOVQ         imm, BX \
	MOVQ         BX, x \
	VBROADCASTSD x, y

// SUM4 sets dst to the sum, in this order, of the four values at CX
// (plus off bytes) of the lines at a, b, c and d.
#define SUM4(off, a, b, c, d, dst) \
	VMOVUPD off(a)(CX*8), dst \
	VADDPD  off(b)(CX*8), dst, dst \
	VADDPD  off(c)(CX*8), dst, dst \
	VADDPD  off(d)(CX*8), dst, dst

// DEINTERLEAVE splits the eight values of lo, hi (f0..f3, f4..f7) into
// ev = f0 f2 f4 f6 and od = f1 f3 f5 f7.
#define DEINTERLEAVE(lo, hi, ev, od) \
	VUNPCKLPD hi, lo, ev \
	VUNPCKHPD hi, lo, od \
	VPERMPD   $0xD8, ev, ev \
	VPERMPD   $0xD8, od, od

// BEFORE sets dst to the values one point before those of od (the odd
// fine points of this step) and keeps od in prev, whose last value is
// the odd point before this step's first.
#define BEFORE(od, prev, dst) \
	VPERM2F128 $0x21, od, prev, dst \
	VSHUFPD    $5, od, dst, dst \
	VMOVAPD    od, prev

// func mgRprj3LineAVX2(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu []float64)
//
// Each step does the coarse points j..j+3, over the fine points 2j−1 to
// 2j+7: the sums X (rb+rf+rdn+rup) and Y (rbd+rbu+rfd+rfu) and r itself
// at the fine points 2j..2j+7, split into the points under the coarse
// ones (even) and those after them (odd); the values before them are the
// odd ones one point back, the last of the step before carried over.
TEXT ·mgRprj3LineAVX2(SB), NOSPLIT, $0-240
	MOVQ sc_base+0(FP), DI
	MOVQ sc_len+8(FP), DX
	MOVQ rl_base+24(FP), SI
	MOVQ rb_base+48(FP), R8
	MOVQ rf_base+72(FP), R9
	MOVQ rdn_base+96(FP), R10
	MOVQ rup_base+120(FP), R11
	MOVQ rbd_base+144(FP), R12
	MOVQ rbu_base+168(FP), R13
	MOVQ rfd_base+192(FP), R14
	MOVQ rfu_base+216(FP), AX

	// DX = 2(1 + 4k), the fine point under the first coarse point not
	// done here.
	SUBQ $2, DX
	ANDQ $-4, DX
	INCQ DX
	SHLQ $1, DX

	BROADCAST($0x3FE0000000000000, X12, Y12) // 0.5
	BROADCAST($0x3FD0000000000000, X13, Y13) // 0.25
	BROADCAST($0x3FC0000000000000, X14, Y14) // 0.125
	BROADCAST($0x3FB0000000000000, X15, Y15) // 0.0625

	// The carried values: X, Y and r at fine point 1.
	VMOVSD 8(R8), X9
	VADDSD 8(R9), X9, X9
	VADDSD 8(R10), X9, X9
	VADDSD 8(R11), X9, X9
	VBROADCASTSD X9, Y9
	VMOVSD 8(R12), X10
	VADDSD 8(R13), X10, X10
	VADDSD 8(R14), X10, X10
	VADDSD 8(AX), X10, X10
	VBROADCASTSD X10, Y10
	VMOVSD 8(SI), X11
	VBROADCASTSD X11, Y11

	// CX: the fine point under the step's first coarse point, 2j.
	MOVQ $2, CX

rprj3Loop:
	// Y2 = X under the coarse points (x2), Y4 = X before plus after
	// (x1m + x1p).
	SUM4(0, R8, R9, R10, R11, Y0)
	SUM4(32, R8, R9, R10, R11, Y1)
	DEINTERLEAVE(Y0, Y1, Y2, Y3)
	BEFORE(Y3, Y9, Y4)
	VADDPD Y3, Y4, Y4

	// Y4 = x1m + x1p + y2, Y7 = Y before plus after (y1m + y1p).
	SUM4(0, R12, R13, R14, AX, Y0)
	SUM4(32, R12, R13, R14, AX, Y1)
	DEINTERLEAVE(Y0, Y1, Y5, Y6)
	BEFORE(Y6, Y10, Y7)
	VADDPD Y6, Y7, Y7
	VADDPD Y5, Y4, Y4

	// Y5 = r under the coarse points, Y8 = rm + rp + x2.
	VMOVUPD (SI)(CX*8), Y0
	VMOVUPD 32(SI)(CX*8), Y1
	DEINTERLEAVE(Y0, Y1, Y5, Y6)
	BEFORE(Y6, Y11, Y8)
	VADDPD Y6, Y8, Y8
	VADDPD Y2, Y8, Y8

	// s = 0.5·r + 0.25·Y8 + 0.125·Y4 + 0.0625·Y7.
	VMULPD  Y12, Y5, Y5
	VMULPD  Y13, Y8, Y8
	VADDPD  Y8, Y5, Y5
	VMULPD  Y14, Y4, Y4
	VADDPD  Y4, Y5, Y5
	VMULPD  Y15, Y7, Y7
	VADDPD  Y7, Y5, Y5
	VMOVUPD Y5, (DI)(CX*4) // sc[j..j+3]: 8j bytes on

	ADDQ $8, CX
	CMPQ CX, DX
	JLT  rprj3Loop

	VZEROUPPER
	RET

// func mgPrefetch(a, b, c, d *float64): PREFETCHT0 of each.
TEXT ·mgPrefetch(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), AX
	PREFETCHT0 (AX)
	MOVQ b+8(FP), AX
	PREFETCHT0 (AX)
	MOVQ c+16(FP), AX
	PREFETCHT0 (AX)
	MOVQ d+24(FP), AX
	PREFETCHT0 (AX)
	RET
