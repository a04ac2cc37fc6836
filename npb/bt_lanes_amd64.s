//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// BT's block operations for four lines at once (bt_lanes_amd64.go): a
// lane block holds entry e = 5·row + column of four 5×5 blocks at 32·e,
// lane l the block of line l; a lane vector holds value i of four vectors
// at 32·i. Every lane goes through the Go code's operations (bt_block.go)
// in their order, without fused multiply-adds (a negation as an exclusive
// or with −0), so every value is the Go code's bit for bit.

// E(i, j) is the offset of entry (i, j) of a lane block.
#define E(i, j) ((i*5+j)*32)

// V(i) is the offset of value i of a lane vector.
#define V(i) (i*32)

// The constants of btJacLanes (btJacLaneConsts), at K (R10).
#define KONE 0(R10)
#define KC2 32(R10)
#define KC2X2 64(R10)
#define K2MC2 96(R10)
#define KC1 128(R10)
#define KNEGC2 160(R10)
#define KC1345 192(R10)
#define KNEGVISC(m) (224+(m-1)*32)(R10)
#define KVISC(m) (320+(m-1)*32)(R10)
#define KVISCMC(m) (416+(m-1)*32)(R10)
#define KNEGVISCMC1 512(R10)
#define KNEGZERO 544(R10)

// JACSTORE(y, i, j) stores y as entry (i, j) of f (DI).
#define JACSTORE(y, i, j) VMOVUPD y, E(i, j)(DI)

// JACF(un) sets the entries of f (DI) in rows 0, un and 4 and column 0 of
// row 4 from t1 = 1/ρ (Y0), t2 (Y1), w = u[un] (Y3), w·t1 (Y4), qs (Y5)
// and u (R8); it leaves w·w·t2 in Y6.
#define JACF(un) \
	VMOVUPD KONE, Y6 \
	JACSTORE(Y6, 0, un) \
	VMULPD  Y3, Y3, Y6 \
	VMULPD  Y1, Y6, Y6 \
	VXORPD  KNEGZERO, Y6, Y7 \
	VMULPD  KC2, Y5, Y8 \
	VADDPD  Y8, Y7, Y7 \
	JACSTORE(Y7, un, 0) \
	VMULPD  K2MC2, Y4, Y7 \
	JACSTORE(Y7, un, un) \
	VMOVUPD KC2, Y7 \
	JACSTORE(Y7, un, 4) \
	VMULPD  KC2X2, Y5, Y7 \
	VMOVUPD V(4)(R8), Y8 \
	VMULPD  Y0, Y8, Y9 \
	VMULPD  KC1, Y9, Y10 \
	VSUBPD  Y10, Y7, Y7 \
	VMULPD  Y4, Y7, Y7 \
	JACSTORE(Y7, 4, 0) \
	VMULPD  KC1, Y8, Y10 \
	VMULPD  Y0, Y10, Y10 \
	VADDPD  Y5, Y6, Y11 \
	VMULPD  KC2, Y11, Y11 \
	VSUBPD  Y11, Y10, Y10 \
	JACSTORE(Y10, 4, un) \
	VMULPD  KC1, Y4, Y10 \
	JACSTORE(Y10, 4, 4)

// JACOTHER(un, m) sets the entries of f (DI) that the momentum component
// m, not the direction's un, enters.
#define JACOTHER(un, m) \
	VMOVUPD V(m)(R8), Y7 \
	VMULPD  Y0, Y7, Y8 \
	VMULPD  KNEGC2, Y8, Y9 \
	JACSTORE(Y9, un, m) \
	JACSTORE(Y8, m, un) \
	VMULPD  Y7, Y3, Y9 \
	VXORPD  KNEGZERO, Y9, Y10 \
	VMULPD  Y1, Y10, Y10 \
	JACSTORE(Y10, m, 0) \
	JACSTORE(Y4, m, m) \
	VMULPD  KNEGC2, Y9, Y10 \
	VMULPD  Y1, Y10, Y10 \
	JACSTORE(Y10, 4, m)

// JACVISC(m) sets the entries of n (SI) in row and column m.
#define JACVISC(m) \
	VMOVUPD V(m)(R8), Y7 \
	VMULPD  KNEGVISC(m), Y1, Y8 \
	VMULPD  Y7, Y8, Y8 \
	VMOVUPD Y8, E(m, 0)(SI) \
	VMULPD  KVISC(m), Y0, Y8 \
	VMOVUPD Y8, E(m, m)(SI) \
	VMULPD  KVISCMC(m), Y1, Y8 \
	VMULPD  Y7, Y8, Y8 \
	VMOVUPD Y8, E(4, m)(SI)

// JACN40(m) subtracts the term of momentum component m (2 or 3) of
// n[4][0] from Y8.
#define JACN40(m) \
	VMOVUPD V(m)(R8), Y7 \
	VMULPD  Y7, Y7, Y7 \
	VMULPD  KVISCMC(m), Y2, Y9 \
	VMULPD  Y7, Y9, Y9 \
	VSUBPD  Y9, Y8, Y8

// JAC(un, m1, m2) is btJacobians for the direction whose momentum
// component is un, the other two being m1 and m2: f at DI, n at SI, u at
// R8, 1/ρ and qs at R9, the constants at R10.
#define JAC(un, m1, m2) \
	MOVQ    f+0(FP), DI \
	MOVQ    n+8(FP), SI \
	MOVQ    u+16(FP), R8 \
	MOVQ    rq+24(FP), R9 \
	MOVQ    k+32(FP), R10 \
	VMOVUPD 0(R9), Y0 \
	VMULPD  Y0, Y0, Y1 \
	VMULPD  Y1, Y0, Y2 \
	VMOVUPD V(un)(R8), Y3 \
	VMULPD  Y0, Y3, Y4 \
	VMOVUPD 32(R9), Y5 \
	JACF(un) \
	JACOTHER(un, m1) \
	JACOTHER(un, m2) \
	JACVISC(1) \
	JACVISC(2) \
	JACVISC(3) \
	VMOVUPD V(1)(R8), Y7 \
	VMULPD  Y7, Y7, Y7 \
	VMULPD  KNEGVISCMC1, Y2, Y8 \
	VMULPD  Y7, Y8, Y8 \
	JACN40(2) \
	JACN40(3) \
	VMULPD  KC1345, Y1, Y9 \
	VMULPD  V(4)(R8), Y9, Y9 \
	VSUBPD  Y9, Y8, Y8 \
	VMOVUPD Y8, E(4, 0)(SI) \
	VMULPD  KC1345, Y0, Y8 \
	VMOVUPD Y8, E(4, 4)(SI) \
	VZEROUPPER \
	RET

// BLKENTRY(i, j) sets entry (i, j) of a (AX), b (BX) and c (CX) off the
// diagonal from f0 (DX), n0 (SI), n1 (DI), f2 (R8) and n2 (R9), with −dt2
// in Y10, dt1 in Y11, dt2 in Y12 and dt1·2 in Y13.
#define BLKENTRY(i, j) \
	BLKA(i, j) \
	VMOVUPD Y0, E(i, j)(AX) \
	VMULPD  E(i, j)(DI), Y13, Y2 \
	VMOVUPD Y2, E(i, j)(BX) \
	BLKC(i, j) \
	VMOVUPD Y3, E(i, j)(CX)

// BLKDIAG(i) sets entry (i, i) of a, b and c, the constants as in
// BLKENTRY and dt1·d[i], (dt1·2)·d[i] and 1 at R10.
#define BLKDIAG(i) \
	BLKA(i, i) \
	VSUBPD  (i*32)(R10), Y0, Y0 \
	VMOVUPD Y0, E(i, i)(AX) \
	VMULPD  E(i, i)(DI), Y13, Y2 \
	VADDPD  320(R10), Y2, Y2 \
	VADDPD  (160+i*32)(R10), Y2, Y2 \
	VMOVUPD Y2, E(i, i)(BX) \
	BLKC(i, i) \
	VSUBPD  (i*32)(R10), Y3, Y3 \
	VMOVUPD Y3, E(i, i)(CX)

// BLKA(i, j) sets Y0 to −dt2·f0 − dt1·n0 at entry (i, j).
#define BLKA(i, j) \
	VMULPD E(i, j)(DX), Y10, Y0 \
	VMULPD E(i, j)(SI), Y11, Y1 \
	VSUBPD Y1, Y0, Y0

// BLKC(i, j) sets Y3 to dt2·f2 − dt1·n2 at entry (i, j).
#define BLKC(i, j) \
	VMULPD E(i, j)(R8), Y12, Y3 \
	VMULPD E(i, j)(R9), Y11, Y1 \
	VSUBPD Y1, Y3, Y3

// func btJacXLanes(f, n *btLaneBlock, u *btLaneVec, rq *[2][btGroupLines]float64, k *btJacLaneConsts)
TEXT ·btJacXLanes(SB), NOSPLIT, $0-40
	JAC(1, 2, 3)

// func btJacYLanes(f, n *btLaneBlock, u *btLaneVec, rq *[2][btGroupLines]float64, k *btJacLaneConsts)
TEXT ·btJacYLanes(SB), NOSPLIT, $0-40
	JAC(2, 1, 3)

// func btJacZLanes(f, n *btLaneBlock, u *btLaneVec, rq *[2][btGroupLines]float64, k *btJacLaneConsts)
TEXT ·btJacZLanes(SB), NOSPLIT, $0-40
	JAC(3, 1, 2)

// func btBlocksLanes(a, b, c, f0, n0, n1, f2, n2 *btLaneBlock, k *btBlockLaneConsts)
TEXT ·btBlocksLanes(SB), NOSPLIT, $0-72
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	MOVQ f0+24(FP), DX
	MOVQ n0+32(FP), SI
	MOVQ n1+40(FP), DI
	MOVQ f2+48(FP), R8
	MOVQ n2+56(FP), R9
	MOVQ k+64(FP), R10
	VMOVUPD 352(R10), Y10
	VMOVUPD 384(R10), Y11
	VMOVUPD 416(R10), Y12
	VMOVUPD 448(R10), Y13
	BLKDIAG(0)
	BLKENTRY(0, 1)
	BLKENTRY(0, 2)
	BLKENTRY(0, 3)
	BLKENTRY(0, 4)
	BLKENTRY(1, 0)
	BLKDIAG(1)
	BLKENTRY(1, 2)
	BLKENTRY(1, 3)
	BLKENTRY(1, 4)
	BLKENTRY(2, 0)
	BLKENTRY(2, 1)
	BLKDIAG(2)
	BLKENTRY(2, 3)
	BLKENTRY(2, 4)
	BLKENTRY(3, 0)
	BLKENTRY(3, 1)
	BLKENTRY(3, 2)
	BLKDIAG(3)
	BLKENTRY(3, 4)
	BLKENTRY(4, 0)
	BLKENTRY(4, 1)
	BLKENTRY(4, 2)
	BLKENTRY(4, 3)
	BLKDIAG(4)
	VZEROUPPER
	RET

// MVROW(i) sets value i of r (CX) to itself minus row i of a (AX) times
// v, whose values are in Y10-Y14.
#define MVROW(i) \
	VMOVUPD V(i)(CX), Y0 \
	VMULPD  E(i, 0)(AX), Y10, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(i, 1)(AX), Y11, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(i, 2)(AX), Y12, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(i, 3)(AX), Y13, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(i, 4)(AX), Y14, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMOVUPD Y0, V(i)(CX)

// func btMatVecSubLanes(a *btLaneBlock, v, r *btLaneVec)
TEXT ·btMatVecSubLanes(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ r+16(FP), CX
	VMOVUPD V(0)(BX), Y10
	VMOVUPD V(1)(BX), Y11
	VMOVUPD V(2)(BX), Y12
	VMOVUPD V(3)(BX), Y13
	VMOVUPD V(4)(BX), Y14
	MVROW(0)
	MVROW(1)
	MVROW(2)
	MVROW(3)
	MVROW(4)
	VZEROUPPER
	RET

// MMENTRY(i, j) sets entry (i, j) of c (CX) to itself minus row i of a,
// in Y10-Y14, times column j of b (BX).
#define MMENTRY(i, j) \
	VMOVUPD E(i, j)(CX), Y0 \
	VMULPD  E(0, j)(BX), Y10, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(1, j)(BX), Y11, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(2, j)(BX), Y12, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(3, j)(BX), Y13, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  E(4, j)(BX), Y14, Y1 \
	VSUBPD  Y1, Y0, Y0 \
	VMOVUPD Y0, E(i, j)(CX)

// MMROW(i) does row i of c.
#define MMROW(i) \
	VMOVUPD E(i, 0)(AX), Y10 \
	VMOVUPD E(i, 1)(AX), Y11 \
	VMOVUPD E(i, 2)(AX), Y12 \
	VMOVUPD E(i, 3)(AX), Y13 \
	VMOVUPD E(i, 4)(AX), Y14 \
	MMENTRY(i, 0) \
	MMENTRY(i, 1) \
	MMENTRY(i, 2) \
	MMENTRY(i, 3) \
	MMENTRY(i, 4)

// func btMatMulSubLanes(a, b, c *btLaneBlock)
TEXT ·btMatMulSubLanes(SB), NOSPLIT, $0-24
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	MMROW(0)
	MMROW(1)
	MMROW(2)
	MMROW(3)
	MMROW(4)
	VZEROUPPER
	RET

// PIVOT(p) replaces entry (p, p) of b (BX) by its reciprocal, in Y0 too
// (Y15 holds 1).
#define PIVOT(p) \
	VDIVPD  E(p, p)(BX), Y15, Y0 \
	VMOVUPD Y0, E(p, p)(BX)

// SCALE(p, k) multiplies entry (p, k) of b by the reciprocal pivot in Y0,
// leaving it in Y1.
#define SCALE(p, k) \
	VMULPD  E(p, k)(BX), Y0, Y1 \
	VMOVUPD Y1, E(p, k)(BX)

// UPDATE(q, p, k) subtracts entry (q, p) of b times entry (p, k) from
// entry (q, k).
#define UPDATE(q, p, k) \
	VMOVUPD E(q, p)(BX), Y2 \
	VMULPD  E(p, k)(BX), Y2, Y2 \
	VMOVUPD E(q, k)(BX), Y3 \
	VSUBPD  Y2, Y3, Y3 \
	VMOVUPD Y3, E(q, k)(BX)

// ELIM0(q), ELIM1(q) and ELIM2(q) are the updates of row q at steps 0,
// 1 and 2: its entries right of the pivot's column.
#define ELIM0(q) \
	UPDATE(q, 0, 1) \
	UPDATE(q, 0, 2) \
	ELIM1P(q, 0)

#define ELIM1(q) \
	UPDATE(q, 1, 2) \
	ELIM1P(q, 1)

#define ELIM2(q) ELIM1P(q, 2)

// ELIM1P(q, p) updates entries 3 and 4 of row q at step p.
#define ELIM1P(q, p) \
	UPDATE(q, p, 3) \
	UPDATE(q, p, 4)

// COLSTEP(p, xp, x1, q1, x2, q2, x3, q3, x4, q4) is step p of
// btEliminateColumn on the column in Y0-Y4 (xp the register of value p,
// x1..x4 those of the others, q1..q4 their rows), f at BX.
#define COLSTEP(p, xp, x1, q1, x2, q2, x3, q3, x4, q4) \
	VMULPD E(p, p)(BX), xp, xp \
	VMULPD E(q1, p)(BX), xp, Y5 \
	VSUBPD Y5, x1, x1 \
	VMULPD E(q2, p)(BX), xp, Y5 \
	VSUBPD Y5, x2, x2 \
	VMULPD E(q3, p)(BX), xp, Y5 \
	VSUBPD Y5, x3, x3 \
	VMULPD E(q4, p)(BX), xp, Y5 \
	VSUBPD Y5, x4, x4

// COLUMN(m, o, s) applies the elimination to the column of m whose value
// i lies at o + s·i.
#define COLUMN(m, o, s) \
	VMOVUPD (o)(m), Y0 \
	VMOVUPD (o+s)(m), Y1 \
	VMOVUPD (o+2*s)(m), Y2 \
	VMOVUPD (o+3*s)(m), Y3 \
	VMOVUPD (o+4*s)(m), Y4 \
	COLSTEP(0, Y0, Y1, 1, Y2, 2, Y3, 3, Y4, 4) \
	COLSTEP(1, Y1, Y0, 0, Y2, 2, Y3, 3, Y4, 4) \
	COLSTEP(2, Y2, Y0, 0, Y1, 1, Y3, 3, Y4, 4) \
	COLSTEP(3, Y3, Y0, 0, Y1, 1, Y2, 2, Y4, 4) \
	COLSTEP(4, Y4, Y0, 0, Y1, 1, Y2, 2, Y3, 3) \
	VMOVUPD Y0, (o)(m) \
	VMOVUPD Y1, (o+s)(m) \
	VMOVUPD Y2, (o+2*s)(m) \
	VMOVUPD Y3, (o+3*s)(m) \
	VMOVUPD Y4, (o+4*s)(m)

DATA btLaneOne<>+0(SB)/8, $1.0
GLOBL btLaneOne<>(SB), RODATA|NOPTR, $8

// func btBinvCRHSLanes(b, c *btLaneBlock, r *btLaneVec)
TEXT ·btBinvCRHSLanes(SB), NOSPLIT, $0-24
	MOVQ b+0(FP), BX
	MOVQ c+8(FP), CX
	MOVQ r+16(FP), DX
	VBROADCASTSD btLaneOne<>(SB), Y15
	PIVOT(0)
	SCALE(0, 1)
	SCALE(0, 2)
	SCALE(0, 3)
	SCALE(0, 4)
	ELIM0(1)
	ELIM0(2)
	ELIM0(3)
	ELIM0(4)
	PIVOT(1)
	SCALE(1, 2)
	SCALE(1, 3)
	SCALE(1, 4)
	ELIM1(0)
	ELIM1(2)
	ELIM1(3)
	ELIM1(4)
	PIVOT(2)
	SCALE(2, 3)
	SCALE(2, 4)
	ELIM2(0)
	ELIM2(1)
	ELIM2(3)
	ELIM2(4)
	PIVOT(3)
	SCALE(3, 4)
	UPDATE(0, 3, 4)
	UPDATE(1, 3, 4)
	UPDATE(2, 3, 4)
	UPDATE(4, 3, 4)
	PIVOT(4)
	COLUMN(CX, 0, 160)
	COLUMN(CX, 32, 160)
	COLUMN(CX, 64, 160)
	COLUMN(CX, 96, 160)
	COLUMN(CX, 128, 160)
	COLUMN(DX, 0, 32)
	VZEROUPPER
	RET

// func btGatherLanes(dst *btLaneVec, p0, p1, p2, p3 *float64, stride, n int)
TEXT ·btGatherLanes(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ p0+8(FP), R8
	MOVQ p1+16(FP), R9
	MOVQ p2+24(FP), R10
	MOVQ p3+32(FP), R11
	MOVQ stride+40(FP), DX
	MOVQ n+48(FP), CX
	SHLQ $3, DX
	XORQ AX, AX
	TESTQ CX, CX
	JZ   gatherDone

gatherLoop:
	VMOVUPD     (R8)(AX*1), Y0
	VMOVUPD     (R9)(AX*1), Y1
	VMOVUPD     (R10)(AX*1), Y2
	VMOVUPD     (R11)(AX*1), Y3
	TRANSPOSE4
	VMOVSD      32(R8)(AX*1), X4
	VMOVHPD     32(R9)(AX*1), X4, X4
	VMOVSD      32(R10)(AX*1), X5
	VMOVHPD     32(R11)(AX*1), X5, X5
	VINSERTF128 $1, X5, Y4, Y4
	VMOVUPD     Y6, V(0)(DI)
	VMOVUPD     Y7, V(1)(DI)
	VMOVUPD     Y8, V(2)(DI)
	VMOVUPD     Y9, V(3)(DI)
	VMOVUPD     Y4, V(4)(DI)
	ADDQ        DX, AX
	ADDQ        $160, DI
	DECQ        CX
	JNZ         gatherLoop

gatherDone:
	VZEROUPPER
	RET

// func btScatterLanes(p0, p1, p2, p3 *float64, src *btLaneVec, stride, n int)
TEXT ·btScatterLanes(SB), NOSPLIT, $0-56
	MOVQ p0+0(FP), R8
	MOVQ p1+8(FP), R9
	MOVQ p2+16(FP), R10
	MOVQ p3+24(FP), R11
	MOVQ src+32(FP), SI
	MOVQ stride+40(FP), DX
	MOVQ n+48(FP), CX
	SHLQ $3, DX
	XORQ AX, AX
	TESTQ CX, CX
	JZ   scatterDone

scatterLoop:
	VMOVUPD      V(0)(SI), Y0
	VMOVUPD      V(1)(SI), Y1
	VMOVUPD      V(2)(SI), Y2
	VMOVUPD      V(3)(SI), Y3
	VMOVUPD      V(4)(SI), Y4
	TRANSPOSE4
	VMOVUPD      Y6, (R8)(AX*1)
	VMOVUPD      Y7, (R9)(AX*1)
	VMOVUPD      Y8, (R10)(AX*1)
	VMOVUPD      Y9, (R11)(AX*1)
	VMOVSD       X4, 32(R8)(AX*1)
	VMOVHPD      X4, 32(R9)(AX*1)
	VEXTRACTF128 $1, Y4, X5
	VMOVSD       X5, 32(R10)(AX*1)
	VMOVHPD      X5, 32(R11)(AX*1)
	ADDQ         DX, AX
	ADDQ         $160, SI
	DECQ         CX
	JNZ          scatterLoop

scatterDone:
	VZEROUPPER
	RET

// PAIRLANE(b, y, x) loads the values at b + 8·o of the four lines, their
// offsets o in R12, R13, R14 and BX, into the lanes of y, whose low half
// is x (X15 is spoilt).
#define PAIRLANE(b, y, x) \
	VMOVSD      (b)(R12*8), x \
	VMOVHPD     (b)(R13*8), x, x \
	VMOVSD      (b)(R14*8), X15 \
	VMOVHPD     (b)(BX*8), X15, X15 \
	VINSERTF128 $1, X15, y, y

// func btGatherPairLanes(dst *[2][btGroupLines]float64, a, b *float64, o0, o1, o2, o3, stride, n int)
TEXT ·btGatherPairLanes(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), R8
	MOVQ b+16(FP), R9
	MOVQ o0+24(FP), R12
	MOVQ o1+32(FP), R13
	MOVQ o2+40(FP), R14
	MOVQ o3+48(FP), BX
	MOVQ stride+56(FP), DX
	MOVQ n+64(FP), CX
	TESTQ CX, CX
	JZ   pairDone

pairLoop:
	PAIRLANE(R8, Y0, X0)
	PAIRLANE(R9, Y1, X1)
	VMOVUPD Y0, 0(DI)
	VMOVUPD Y1, 32(DI)
	ADDQ    DX, R12
	ADDQ    DX, R13
	ADDQ    DX, R14
	ADDQ    DX, BX
	ADDQ    $64, DI
	DECQ    CX
	JNZ     pairLoop

pairDone:
	VZEROUPPER
	RET
