//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// spEliminateStepAVX2 is spEliminateStepGo (sp_lanes.go) with the four
// lanes of a block in one vector: the same operations in the same order,
// so the same results bit for bit.
//
// Registers: DI row 0 of the block in rows (row 1 at +R8, row 2 at
// +2·R8), SI its right-hand sides in x (+R9, +2·R9), DX its
// super-diagonals in u; a value v of a row is at 32·v. Y15 holds 1.0.

// SUBMUL(b, a, m) sets m = m − b·a (Go: m -= b * a), through Y7 and Y8.
#define SUBMUL(b, a, m) \
	VMULPD  a, b, Y7 \
	VMOVUPD m, Y8 \
	VSUBPD  Y7, Y8, Y8 \
	VMOVUPD Y8, m

// INVARGS loads the arguments that spTxinvrAVX2 and spTzetarAVX2 share
// (below): the derived fields' rows into R9-R14, n into DX, the table
// into CX.
#define INVARGS \
	MOVQ us+16(FP), R9 \
	MOVQ vs+24(FP), R10 \
	MOVQ ws+32(FP), R11 \
	MOVQ qs+40(FP), R12 \
	MOVQ speed+48(FP), R13 \
	MOVQ ainv+56(FP), R14 \
	MOVQ n+64(FP), DX \
	MOVQ k+72(FP), CX

// func spEliminateStepAVX2(rows, x, u *float64, sl, sx, nb int, two bool)
TEXT ·spEliminateStepAVX2(SB), NOSPLIT, $0-49
	MOVQ rows+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ u+16(FP), DX
	MOVQ sl+24(FP), R8
	SHLQ $3, R8
	MOVQ sx+32(FP), R9
	SHLQ $3, R9
	MOVQ nb+40(FP), CX
	MOVBQZX two+48(FP), BX
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X15
	VBROADCASTSD X15, Y15

block:
	// The first factor, shared by components 0, 1 and 2.
	VMOVUPD 64(DI), Y0
	VDIVPD  Y0, Y15, Y0         // fac
	VMULPD  96(DI), Y0, Y1      // a3
	VMULPD  128(DI), Y0, Y2     // a4
	VMOVUPD Y1, 0(DX)
	VMOVUPD Y2, 32(DX)
	VMULPD  0(SI), Y0, Y3       // x0
	VMULPD  32(SI), Y0, Y4      // x1
	VMULPD  64(SI), Y0, Y5      // x2
	VMOVUPD Y3, 0(SI)
	VMOVUPD Y4, 32(SI)
	VMOVUPD Y5, 64(SI)
	VMOVUPD 32(DI)(R8*1), Y6    // b = l1[1]
	SUBMUL(Y6, Y1, 64(DI)(R8*1))
	SUBMUL(Y6, Y2, 96(DI)(R8*1))
	SUBMUL(Y6, Y3, 0(SI)(R9*1))
	SUBMUL(Y6, Y4, 32(SI)(R9*1))
	SUBMUL(Y6, Y5, 64(SI)(R9*1))
	TESTQ   BX, BX
	JZ      second
	VMOVUPD 0(DI)(R8*2), Y6     // b = l2[0]
	SUBMUL(Y6, Y1, 32(DI)(R8*2))
	SUBMUL(Y6, Y2, 64(DI)(R8*2))
	SUBMUL(Y6, Y3, 0(SI)(R9*2))
	SUBMUL(Y6, Y4, 32(SI)(R9*2))
	SUBMUL(Y6, Y5, 64(SI)(R9*2))

second:
	// The second factor (coefficients 5-9), of component 3.
	VMOVUPD 224(DI), Y0
	VDIVPD  Y0, Y15, Y0         // fac
	VMULPD  256(DI), Y0, Y1     // a3
	VMULPD  288(DI), Y0, Y2     // a4
	VMOVUPD Y1, 64(DX)
	VMOVUPD Y2, 96(DX)
	VMULPD  96(SI), Y0, Y3      // x
	VMOVUPD Y3, 96(SI)
	VMOVUPD 192(DI)(R8*1), Y6   // b = l1[6]
	SUBMUL(Y6, Y1, 224(DI)(R8*1))
	SUBMUL(Y6, Y2, 256(DI)(R8*1))
	SUBMUL(Y6, Y3, 96(SI)(R9*1))
	TESTQ   BX, BX
	JZ      third
	VMOVUPD 160(DI)(R8*2), Y6   // b = l2[5]
	SUBMUL(Y6, Y1, 192(DI)(R8*2))
	SUBMUL(Y6, Y2, 224(DI)(R8*2))
	SUBMUL(Y6, Y3, 96(SI)(R9*2))

third:
	// The third factor (coefficients 10-14), of component 4.
	VMOVUPD 384(DI), Y0
	VDIVPD  Y0, Y15, Y0         // fac
	VMULPD  416(DI), Y0, Y1     // a3
	VMULPD  448(DI), Y0, Y2     // a4
	VMOVUPD Y1, 128(DX)
	VMOVUPD Y2, 160(DX)
	VMULPD  128(SI), Y0, Y3     // x
	VMOVUPD Y3, 128(SI)
	VMOVUPD 352(DI)(R8*1), Y6   // b = l1[11]
	SUBMUL(Y6, Y1, 384(DI)(R8*1))
	SUBMUL(Y6, Y2, 416(DI)(R8*1))
	SUBMUL(Y6, Y3, 128(SI)(R9*1))
	TESTQ   BX, BX
	JZ      next
	VMOVUPD 320(DI)(R8*2), Y6   // b = l2[10]
	SUBMUL(Y6, Y1, 352(DI)(R8*2))
	SUBMUL(Y6, Y2, 384(DI)(R8*2))
	SUBMUL(Y6, Y3, 128(SI)(R9*2))

next:
	ADDQ $480, DI
	ADDQ $160, SI
	ADDQ $192, DX
	DECQ CX
	JNZ  block
	VZEROUPPER
	RET

// BACKROW(ua, ub, o) updates component value o (bytes from the block's
// start) of the x row at R11: x = x − ua·x1 − ub·x2, where x1 and x2 are
// the same value of the two rows below (R9 and 2·R9 further): Go's
// xb[i] - ub[2f]*x1b[i] - ub[2f+1]*x2b[i], in its order.
#define BACKROW(ua, ub, o) \
	VMULPD  o(R11)(R9*1), ua, Y1 \
	VMOVUPD o(R11), Y0 \
	VSUBPD  Y1, Y0, Y0 \
	VMULPD  o(R11)(R9*2), ub, Y2 \
	VSUBPD  Y2, Y0, Y0 \
	VMOVUPD Y0, o(R11)

// func spBackRowsAVX2(x, u *float64, sx, su, nb, rows int)
//
// spBackRowsGo (sp_lanes.go) with the four lanes of a block in one
// vector. Registers: SI row q of x, DX row q of u (from row rows−1 down
// to 0), R9 and R10 their strides in bytes, R11 and R12 the block's
// values in them; a block is 5 vectors of x (160 bytes) and 6 of u (192).
TEXT ·spBackRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ u+8(FP), DX
	MOVQ sx+16(FP), R9
	SHLQ $3, R9
	MOVQ su+24(FP), R10
	SHLQ $3, R10
	MOVQ nb+32(FP), CX
	MOVQ rows+40(FP), BX
	// Start at row rows−1.
	MOVQ BX, AX
	DECQ AX
	MOVQ AX, R13
	IMULQ R9, R13
	ADDQ R13, SI
	IMULQ R10, AX
	ADDQ AX, DX

row:
	MOVQ SI, R11
	MOVQ DX, R12
	MOVQ CX, R13

backblock:
	VMOVUPD 0(R12), Y8    // the first factor's coefficients
	VMOVUPD 32(R12), Y9
	BACKROW(Y8, Y9, 0)
	BACKROW(Y8, Y9, 32)
	BACKROW(Y8, Y9, 64)
	VMOVUPD 64(R12), Y8   // the second factor's
	VMOVUPD 96(R12), Y9
	BACKROW(Y8, Y9, 96)
	VMOVUPD 128(R12), Y8  // the third factor's
	VMOVUPD 160(R12), Y9
	BACKROW(Y8, Y9, 128)
	ADDQ $160, R11
	ADDQ $192, R12
	DECQ R13
	JNZ  backblock

	SUBQ R9, SI
	SUBQ R10, DX
	DECQ BX
	JNZ  row
	VZEROUPPER
	RET

// func spFillLanesAVX2(rows, cvm, cvp, rm, r0, rp, spm, spp *float64, k *spFillConsts, nb int)
//
// The rows of nb whole blocks of a pencil's row q (spSolver.fill), four
// lanes in one vector: cvm, cvp, rm, r0, rp hold the lanes' normal
// velocity and viscous bound at rows q−1 and q+1 and q−1, q, q+1, spm and
// spp the speed of sound at rows q−1 and q+1; k the row's constants. The
// operations are fill's, in its order.
TEXT ·spFillLanesAVX2(SB), NOSPLIT, $0-80
	MOVQ rows+0(FP), DI
	MOVQ cvm+8(FP), SI
	MOVQ cvp+16(FP), R8
	MOVQ rm+24(FP), R9
	MOVQ r0+32(FP), R10
	MOVQ rp+40(FP), R11
	MOVQ spm+48(FP), R12
	MOVQ spp+56(FP), R13
	MOVQ k+64(FP), AX
	MOVQ nb+72(FP), CX
	VBROADCASTSD 0(AX), Y10  // w0
	VBROADCASTSD 8(AX), Y6   // w1
	VBROADCASTSD 16(AX), Y7  // w2
	VBROADCASTSD 24(AX), Y8  // w3
	VBROADCASTSD 32(AX), Y11 // w4
	VBROADCASTSD 40(AX), Y12 // −dtt2
	VBROADCASTSD 48(AX), Y13 // dtt1
	VBROADCASTSD 56(AX), Y14 // c2dtt1
	VBROADCASTSD 64(AX), Y15 // dtt2
	VBROADCASTSD 72(AX), Y9  // 1

fillblock:
	VMULPD  (SI), Y12, Y0    // −dtt2·cvm
	VMULPD  (R9), Y13, Y1    // dtt1·rm
	VSUBPD  Y1, Y0, Y0
	VADDPD  Y6, Y0, Y0       // r1
	VMULPD  (R10), Y14, Y1   // c2dtt1·r0
	VADDPD  Y1, Y9, Y1
	VADDPD  Y7, Y1, Y1       // r2
	VMULPD  (R8), Y15, Y2    // dtt2·cvp
	VMULPD  (R11), Y13, Y3   // dtt1·rp
	VSUBPD  Y3, Y2, Y2
	VADDPD  Y8, Y2, Y2       // r3
	VMULPD  (R12), Y15, Y3   // sm
	VMULPD  (R13), Y15, Y4   // sp
	VMOVUPD Y10, 0(DI)
	VMOVUPD Y0, 32(DI)
	VMOVUPD Y1, 64(DI)
	VMOVUPD Y2, 96(DI)
	VMOVUPD Y11, 128(DI)
	VMOVUPD Y10, 160(DI)
	VSUBPD  Y3, Y0, Y5       // r1 − sm
	VMOVUPD Y5, 192(DI)
	VMOVUPD Y1, 224(DI)
	VADDPD  Y4, Y2, Y5       // r3 + sp
	VMOVUPD Y5, 256(DI)
	VMOVUPD Y11, 288(DI)
	VMOVUPD Y10, 320(DI)
	VADDPD  Y3, Y0, Y5       // r1 + sm
	VMOVUPD Y5, 352(DI)
	VMOVUPD Y1, 384(DI)
	VSUBPD  Y4, Y2, Y5       // r3 − sp
	VMOVUPD Y5, 416(DI)
	VMOVUPD Y11, 448(DI)
	ADDQ $480, DI
	ADDQ $32, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	ADDQ $32, R13
	DECQ CX
	JNZ  fillblock
	VZEROUPPER
	RET

// func spGatherRowAVX2(x, rhs *float64, srA, nb int)
// spGather's copy of one row's nb ≥ 1 whole blocks: the five values of
// each of the four lines' points (rhs, a line srA values after the one
// before) into the block's five vectors (x, 20 values a block).
TEXT ·spGatherRowAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ rhs+8(FP), SI
	MOVQ srA+16(FP), DX
	MOVQ nb+24(FP), CX
	SHLQ $3, DX
	LEAQ (DX)(DX*2), R8 // 3 lines

gatherLoop:
	VMOVUPD     (SI), Y0
	VMOVUPD     (SI)(DX*1), Y1
	VMOVUPD     (SI)(DX*2), Y2
	VMOVUPD     (SI)(R8*1), Y3
	TRANSPOSE4
	VMOVSD      32(SI), X4
	VMOVHPD     32(SI)(DX*1), X4, X4
	VMOVSD      32(SI)(DX*2), X5
	VMOVHPD     32(SI)(R8*1), X5, X5
	VINSERTF128 $1, X5, Y4, Y4
	VMOVUPD     Y6, 0(DI)
	VMOVUPD     Y7, 32(DI)
	VMOVUPD     Y8, 64(DI)
	VMOVUPD     Y9, 96(DI)
	VMOVUPD     Y4, 128(DI)
	LEAQ        (SI)(DX*4), SI
	ADDQ        $160, DI
	DECQ        CX
	JNZ         gatherLoop
	VZEROUPPER
	RET

// func spScatterRowAVX2(rhs, x *float64, srA, nb int)
// spScatter's copy of one row's nb ≥ 1 whole blocks, spGatherRowAVX2's
// the other way.
TEXT ·spScatterRowAVX2(SB), NOSPLIT, $0-32
	MOVQ rhs+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ srA+16(FP), DX
	MOVQ nb+24(FP), CX
	SHLQ $3, DX
	LEAQ (DX)(DX*2), R8

scatterLoop:
	VMOVUPD      0(SI), Y0
	VMOVUPD      32(SI), Y1
	VMOVUPD      64(SI), Y2
	VMOVUPD      96(SI), Y3
	VMOVUPD      128(SI), Y4
	TRANSPOSE4
	VMOVUPD      Y6, (DI)
	VMOVUPD      Y7, (DI)(DX*1)
	VMOVUPD      Y8, (DI)(DX*2)
	VMOVUPD      Y9, (DI)(R8*1)
	VMOVSD       X4, 32(DI)
	VMOVHPD      X4, 32(DI)(DX*1)
	VEXTRACTF128 $1, Y4, X5
	VMOVSD       X5, 32(DI)(DX*2)
	VMOVHPD      X5, 32(DI)(R8*1)
	LEAQ         (DI)(DX*4), DI
	ADDQ         $160, SI
	DECQ         CX
	JNZ          scatterLoop
	VZEROUPPER
	RET

// SP's changes of variables (sp_invr.go spTxinvrRow, spTzetarRow) four
// points of a row at a time, a point in each lane, in the Go loops'
// order of operations (no fused multiply-adds; a negation an exclusive or
// with −0), so the same values bit for bit. The points' five values go
// in and out of the lanes by TRANSPOSE4 (the first four) and a vector of
// the fifth. The table (CX, spInvrConst) holds, in four lanes each, the
// first constant (c2 or bt), the second (bt or c2iv) and −0.
#define INVK1 0(CX)
#define INVK2 32(CX)
#define INVSIGN 64(CX)

// RLOAD loads the four points from DI: values 1..4 into Y6-Y9, value 5
// into Y4.
#define RLOAD \
	VMOVUPD     0(DI), Y0 \
	VMOVUPD     40(DI), Y1 \
	VMOVUPD     80(DI), Y2 \
	VMOVUPD     120(DI), Y3 \
	TRANSPOSE4 \
	VMOVSD      32(DI), X4 \
	VMOVHPD     72(DI), X4, X4 \
	VMOVSD      112(DI), X5 \
	VMOVHPD     152(DI), X5, X5 \
	VINSERTF128 $1, X5, Y4, Y4

// FIFTH(y, x) stores y's lanes as the four points' fifth values at DI,
// through X13.
#define FIFTH(y, x) STOREP(DI, y, x, 32, 40, X13)

// RSTORE stores Y0-Y3 as the four points' values 1..4 at DI (through
// TRANSPOSE4: the points' rows end in Y6-Y9).
#define RSTORE \
	TRANSPOSE4 \
	VMOVUPD Y6, 0(DI) \
	VMOVUPD Y7, 40(DI) \
	VMOVUPD Y8, 80(DI) \
	VMOVUPD Y9, 120(DI)

// func spTxinvrAVX2(rhs, rho, us, vs, ws, qs, speed, ainv *float64, n int, k *spInvrConst)
// txinvr at the first n points of a row (n a multiple of 4): k holds c2
// and bt.
TEXT ·spTxinvrAVX2(SB), NOSPLIT, $0-80
	MOVQ rhs+0(FP), DI
	MOVQ rho+8(FP), R8
	INVARGS
	XORQ AX, AX

txinvrLoop:
	CMPQ    AX, DX
	JGE     txinvrDone
	RLOAD
	VMOVUPD (R8)(AX*8), Y0     // ru1
	VMOVUPD (R9)(AX*8), Y1     // uu
	VMOVUPD (R10)(AX*8), Y2    // vv
	VMOVUPD (R11)(AX*8), Y3    // ww
	VMULPD  (R12)(AX*8), Y6, Y10 // t1 = c2·ac2inv·(qs·r1 − uu·r2 − vv·r3 − ww·r4 + r5)
	VMULPD  Y7, Y1, Y11
	VSUBPD  Y11, Y10, Y10
	VMULPD  Y8, Y2, Y11
	VSUBPD  Y11, Y10, Y10
	VMULPD  Y9, Y3, Y11
	VSUBPD  Y11, Y10, Y10
	VADDPD  Y4, Y10, Y10
	VMOVUPD (R14)(AX*8), Y11
	VMULPD  Y11, Y11, Y11
	VMULPD  INVK1, Y11, Y11
	VMULPD  Y10, Y11, Y10
	VMULPD  INVK2, Y0, Y11     // bt·ru1
	VMULPD  Y6, Y1, Y12        // t2 = bt·ru1·(uu·r1 − r2)
	VSUBPD  Y7, Y12, Y12
	VMULPD  Y12, Y11, Y12
	VMULPD  (R13)(AX*8), Y11, Y13 // t3 = (bt·ru1·ac)·t1
	VMULPD  Y10, Y13, Y13
	VSUBPD  Y10, Y6, Y5        // r1 − t1
	VMULPD  Y6, Y3, Y14        // −ru1·(ww·r1 − r4)
	VSUBPD  Y9, Y14, Y14
	VXORPD  INVSIGN, Y0, Y15
	VMULPD  Y14, Y15, Y14
	VMULPD  Y6, Y2, Y15        // ru1·(vv·r1 − r3)
	VSUBPD  Y8, Y15, Y15
	VMULPD  Y15, Y0, Y15
	VSUBPD  Y12, Y13, Y4       // −t2 + t3
	VADDPD  Y13, Y12, Y12      // t2 + t3
	FIFTH(Y12, X12)
	VMOVAPD Y5, Y0
	VMOVAPD Y14, Y1
	VMOVAPD Y15, Y2
	VMOVAPD Y4, Y3
	RSTORE
	ADDQ    $160, DI
	ADDQ    $4, AX
	JMP     txinvrLoop

txinvrDone:
	VZEROUPPER
	RET

// func spTzetarAVX2(rhs, u, us, vs, ws, qs, speed, ainv *float64, n int, k *spInvrConst, add bool)
// tzetar at the first n points of a row (n a multiple of 4), then, with
// add, u += rhs: k holds bt and c2iv.
TEXT ·spTzetarAVX2(SB), NOSPLIT, $0-81
	MOVQ rhs+0(FP), DI
	MOVQ u+8(FP), SI
	INVARGS
	MOVB add+80(FP), BX
	XORQ AX, AX

tzetarLoop:
	CMPQ        AX, DX
	JGE         tzetarDone
	RLOAD
	VMOVSD      0(SI), X0          // uzik1 = u's first value
	VMOVHPD     40(SI), X0, X0
	VMOVSD      80(SI), X5
	VMOVHPD     120(SI), X5, X5
	VINSERTF128 $1, X5, Y0, Y0
	VMOVUPD     (R9)(AX*8), Y1     // xvel
	VMOVUPD     (R10)(AX*8), Y2    // yvel
	VMOVUPD     (R11)(AX*8), Y3    // zvel
	VMULPD      INVK1, Y0, Y10     // btuz = bt·uzik1
	VMULPD      (R14)(AX*8), Y10, Y11 // t1 = btuz·acinv·(r4 + r5)
	VADDPD      Y4, Y9, Y12
	VMULPD      Y12, Y11, Y11
	VADDPD      Y11, Y8, Y12       // t2 = r3 + t1
	VSUBPD      Y4, Y9, Y13        // t3 = btuz·(r4 − r5)
	VMULPD      Y13, Y10, Y13
	VXORPD      INVSIGN, Y0, Y14   // −uzik1·r2 + xvel·t2
	VMULPD      Y7, Y14, Y14
	VMULPD      Y12, Y1, Y15
	VADDPD      Y15, Y14, Y14
	VMULPD      Y6, Y0, Y15        // uzik1·r1 + yvel·t2
	VMULPD      Y12, Y2, Y5
	VADDPD      Y5, Y15, Y15
	VMULPD      Y12, Y3, Y5        // zvel·t2 + t3
	VADDPD      Y13, Y5, Y5
	VXORPD      INVSIGN, Y1, Y9    // uzik1·(−xvel·r2 + yvel·r1) + qs·t2 + c2iv·ac²·t1 + zvel·t3
	VMULPD      Y7, Y9, Y9
	VMULPD      Y6, Y2, Y8
	VADDPD      Y8, Y9, Y9
	VMULPD      Y9, Y0, Y9
	VMULPD      (R12)(AX*8), Y12, Y8
	VADDPD      Y8, Y9, Y9
	VMOVUPD     (R13)(AX*8), Y8
	VMULPD      Y8, Y8, Y8
	VMULPD      INVK2, Y8, Y8
	VMULPD      Y11, Y8, Y8
	VADDPD      Y8, Y9, Y9
	VMULPD      Y13, Y3, Y8
	VADDPD      Y8, Y9, Y9
	FIFTH(Y9, X9)
	TESTB       BX, BX
	JEQ         tzetarRows
	VMOVSD      32(SI), X8         // u's fifth values += r5′
	VADDSD      X9, X8, X8
	VMOVSD      X8, 32(SI)
	VUNPCKHPD   X9, X9, X10
	VMOVSD      72(SI), X8
	VADDSD      X10, X8, X8
	VMOVSD      X8, 72(SI)
	VEXTRACTF128 $1, Y9, X9
	VMOVSD      112(SI), X8
	VADDSD      X9, X8, X8
	VMOVSD      X8, 112(SI)
	VUNPCKHPD   X9, X9, X10
	VMOVSD      152(SI), X8
	VADDSD      X10, X8, X8
	VMOVSD      X8, 152(SI)

tzetarRows:
	VMOVAPD Y12, Y0
	VMOVAPD Y14, Y1
	VMOVAPD Y15, Y2
	VMOVAPD Y5, Y3
	RSTORE
	TESTB   BX, BX
	JEQ     tzetarNext
	VADDPD  0(SI), Y6, Y6      // u's values 1..4 += r1′..r4′
	VMOVUPD Y6, 0(SI)
	VADDPD  40(SI), Y7, Y7
	VMOVUPD Y7, 40(SI)
	VADDPD  80(SI), Y8, Y8
	VMOVUPD Y8, 80(SI)
	VADDPD  120(SI), Y9, Y9
	VMOVUPD Y9, 120(SI)

tzetarNext:
	ADDQ $160, DI
	ADDQ $160, SI
	ADDQ $4, AX
	JMP  tzetarLoop

tzetarDone:
	VZEROUPPER
	RET
