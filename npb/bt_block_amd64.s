//go:build amd64 && !purego

#include "textflag.h"

// BT's 5×5 block operations (bt_block.go) with four columns of a block
// row in one AVX2 vector: the same multiplications and subtractions, in
// the same order, as the Go code, so the same results bit for bit (no
// fused multiply-add). A block row is 40 bytes: columns 0 to 3 at 0,
// column 4 at 32.

// MMROW(off) sets row off/40 of c (CX) to itself minus a's row (AX)
// times b, whose columns 0 to 3 are in Y0-Y4 and column 4 in X5-X9.
#define MMROW(off) \
	VMOVUPD off(CX), Y10 \
	VMOVSD  off+32(CX), X11 \
	MMTERM(off, Y0, X5) \
	MMTERM(off+8, Y1, X6) \
	MMTERM(off+16, Y2, X7) \
	MMTERM(off+24, Y3, X8) \
	MMTERM(off+32, Y4, X9) \
	VMOVUPD Y10, off(CX) \
	VMOVSD  X11, off+32(CX)

// MMTERM(aoff, by, bx) subtracts a's entry at aoff times b's row k (by:
// columns 0 to 3, bx: column 4) from the row in Y10 and X11.
#define MMTERM(aoff, by, bx) \
	VBROADCASTSD aoff(AX), Y12 \
	VMULPD       by, Y12, Y13 \
	VSUBPD       Y13, Y10, Y10 \
	VMULSD       bx, X12, X14 \
	VSUBSD       X14, X11, X11

// ROWS03(m) loads columns 0 to 3 of the five rows of the block at m into
// Y0-Y4.
#define ROWS03(m) \
	VMOVUPD 0(m), Y0 \
	VMOVUPD 40(m), Y1 \
	VMOVUPD 80(m), Y2 \
	VMOVUPD 120(m), Y3 \
	VMOVUPD 160(m), Y4

// func btMatMulSubAVX2(a, b, c *btBlock)
TEXT ·btMatMulSubAVX2(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	ROWS03(BX)
	VMOVSD  32(BX), X5
	VMOVSD  72(BX), X6
	VMOVSD  112(BX), X7
	VMOVSD  152(BX), X8
	VMOVSD  192(BX), X9
	MMROW(0)
	MMROW(40)
	MMROW(80)
	MMROW(120)
	MMROW(160)
	VZEROUPPER
	RET

// SCALE(foff, y, x) multiplies row (y: c's columns 0 to 3, x: c's column
// 4 and r) by f's entry at foff (Go: x *= f[p][p]).
#define SCALE(foff, y, x) \
	VBROADCASTSD foff(AX), Y10 \
	VMULPD       Y10, y, y \
	VMULPD       X10, x, x

// ELIM(foff, sy, sx, dy, dx) subtracts f's entry at foff times row (sy,
// sx) from row (dy, dx) (Go: x_q -= f[q][p] * x_p).
#define ELIM(foff, sy, sx, dy, dx) \
	VBROADCASTSD foff(AX), Y10 \
	VMULPD       sy, Y10, Y11 \
	VSUBPD       Y11, dy, dy \
	VMULPD       sx, X10, X12 \
	VSUBPD       X12, dx, dx

// STEP(goff, py, px, o0, y0, x0, o1, y1, x1, o2, y2, x2, o3, y3, x3) is
// one step of the elimination: the pivot row (py, px) scaled by f's entry
// at goff, then f's entry at oi times it subtracted from row (yi, xi), for
// the four other rows in the Go code's order.
#define STEP(goff, py, px, o0, y0, x0, o1, y1, x1, o2, y2, x2, o3, y3, x3) \
	SCALE(goff, py, px) \
	ELIM(o0, py, px, y0, x0) \
	ELIM(o1, py, px, y1, x1) \
	ELIM(o2, py, px, y2, x2) \
	ELIM(o3, py, px, y3, x3)

// func btSolveColumnsAVX2(f, c *btBlock, r *[5]float64)
TEXT ·btSolveColumnsAVX2(SB), NOSPLIT, $0-24
	MOVQ f+0(FP), AX
	MOVQ c+8(FP), CX
	MOVQ r+16(FP), DX
	ROWS03(CX)
	VMOVSD  32(CX), X5
	VMOVHPD 0(DX), X5, X5
	VMOVSD  72(CX), X6
	VMOVHPD 8(DX), X6, X6
	VMOVSD  112(CX), X7
	VMOVHPD 16(DX), X7, X7
	VMOVSD  152(CX), X8
	VMOVHPD 24(DX), X8, X8
	VMOVSD  192(CX), X9
	VMOVHPD 32(DX), X9, X9
	STEP(0, Y0, X5, 40, Y1, X6, 80, Y2, X7, 120, Y3, X8, 160, Y4, X9)
	STEP(48, Y1, X6, 8, Y0, X5, 88, Y2, X7, 128, Y3, X8, 168, Y4, X9)
	STEP(96, Y2, X7, 16, Y0, X5, 56, Y1, X6, 136, Y3, X8, 176, Y4, X9)
	STEP(144, Y3, X8, 24, Y0, X5, 64, Y1, X6, 104, Y2, X7, 184, Y4, X9)
	STEP(192, Y4, X9, 32, Y0, X5, 72, Y1, X6, 112, Y2, X7, 152, Y3, X8)
	VMOVUPD Y0, 0(CX)
	VMOVUPD Y1, 40(CX)
	VMOVUPD Y2, 80(CX)
	VMOVUPD Y3, 120(CX)
	VMOVUPD Y4, 160(CX)
	VMOVSD  X5, 32(CX)
	VMOVHPD X5, 0(DX)
	VMOVSD  X6, 72(CX)
	VMOVHPD X6, 8(DX)
	VMOVSD  X7, 112(CX)
	VMOVHPD X7, 16(DX)
	VMOVSD  X8, 152(CX)
	VMOVHPD X8, 24(DX)
	VMOVSD  X9, 192(CX)
	VMOVHPD X9, 32(DX)
	VZEROUPPER
	RET

// LOWUP(off, doff, goff, f, n, out, coef, xcoef) sets row off/40 of out
// to coef·f's row − dt1·n's row (Go: −dt2·f[r][c] − dt1·n[r][c] with coef
// −dt2 in Y13, dt2·f[r][c] − dt1·n[r][c] with dt2 in Y15; dt1 in Y14;
// xcoef the same in an X register), then subtracts dt1·d[r] (d at R11,
// d[r] at doff) from its diagonal entry (at goff).
#define LOWUP(off, doff, goff, f, n, out, coef, xcoef) \
	VMULPD  off(f), coef, Y0 \
	VMULPD  off(n), Y14, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMOVUPD Y0, off(out) \
	VMULSD  off+32(f), xcoef, X2 \
	VMULSD  off+32(n), X14, X3 \
	VSUBSD  X3, X2, X2 \
	VMOVSD  X2, off+32(out) \
	VMOVSD  goff(out), X4 \
	VMULSD  doff(R11), X14, X5 \
	VSUBSD  X5, X4, X4 \
	VMOVSD  X4, goff(out)

// DIAG(off, doff, goff) sets row off/40 of b (BX) to t·n1's row (t =
// 2·dt1 in Y12, n1 at R8), its diagonal entry to 1 + t·n1[r][r] + t·d[r]
// (1.0 in X6).
#define DIAG(off, doff, goff) \
	VMULPD  off(R8), Y12, Y0 \
	VMOVUPD Y0, off(BX) \
	VMULSD  off+32(R8), X12, X2 \
	VMOVSD  X2, off+32(BX) \
	VMULSD  goff(R8), X12, X4 \
	VADDSD  X4, X6, X4 \
	VMULSD  doff(R11), X12, X5 \
	VADDSD  X5, X4, X4 \
	VMOVSD  X4, goff(BX)

// func btBlocksAVX2(a, b, c, f0, n0, n1, f2, n2 *btBlock, d *[5]float64, dt1, dt2 float64)
TEXT ·btBlocksAVX2(SB), NOSPLIT, $0-88
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	MOVQ f0+24(FP), SI
	MOVQ n0+32(FP), DI
	MOVQ n1+40(FP), R8
	MOVQ f2+48(FP), R9
	MOVQ n2+56(FP), R10
	MOVQ d+64(FP), R11
	VBROADCASTSD dt1+72(FP), Y14
	VBROADCASTSD dt2+80(FP), Y15
	MOVQ         $0x8000000000000000, R12
	VMOVQ        R12, X13
	VBROADCASTSD X13, Y13
	VXORPD       Y15, Y13, Y13 // −dt2: dt2 with its sign flipped
	VADDPD       Y14, Y14, Y12 // 2·dt1, exactly
	MOVQ         $0x3ff0000000000000, R12
	VMOVQ        R12, X6 // 1.0
	LOWUP(0, 0, 0, SI, DI, AX, Y13, X13)
	LOWUP(40, 8, 48, SI, DI, AX, Y13, X13)
	LOWUP(80, 16, 96, SI, DI, AX, Y13, X13)
	LOWUP(120, 24, 144, SI, DI, AX, Y13, X13)
	LOWUP(160, 32, 192, SI, DI, AX, Y13, X13)
	DIAG(0, 0, 0)
	DIAG(40, 8, 48)
	DIAG(80, 16, 96)
	DIAG(120, 24, 144)
	DIAG(160, 32, 192)
	LOWUP(0, 0, 0, R9, R10, CX, Y15, X15)
	LOWUP(40, 8, 48, R9, R10, CX, Y15, X15)
	LOWUP(80, 16, 96, R9, R10, CX, Y15, X15)
	LOWUP(120, 24, 144, R9, R10, CX, Y15, X15)
	LOWUP(160, 32, 192, R9, R10, CX, Y15, X15)
	VZEROUPPER
	RET
