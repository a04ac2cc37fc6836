//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 line kernels of MG (see mg_simd.go and mg_simd_amd64.go). Each
// step of the loop does the four points j..j+3 of the line. The edge and
// corner sums U1, U2 are formed once, at j+1..j+4, and the step keeps
// them for the next one, which takes its j−1, j from their upper half
// (VPERM2F128) and the values at j..j+3 from both (VSHUFPD). Only
// separate multiplies and adds, in the Go version's order, so that the
// results are the Go version's bit for bit.

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
