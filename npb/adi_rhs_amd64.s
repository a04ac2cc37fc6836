//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 kernel of the right-hand side's terms along one axis (see
// adi_rhs_amd64.go and adiRowX/Y/Z in adi_rhs_axes.go). Each step of the
// loop does one point: components 0–3 in one vector (the flux terms of
// the density and the momenta written in one form, lanes that lack a term
// adding a zero), component 4 in scalars. Only separate multiplies, adds
// and subtracts, in the Go version's order, so that the results are the
// Go version's bit for bit (but for the sign of an exact zero).
//
// Registers: DI r, SI um2, R8 um, R9 uc, R10 up, R11 up2 (rows of u, five
// values a point, CX the byte offset of the point); R12 fm, R13 fc, R14 fp
// (rows of the derived fields, six a point, DX the byte offset); BX the
// point's dissipation weights; AX the constants (adiAxisVec).
// Y15 dt1, Y14 the flux coefficients, Y13 t2, Y12 dssp, Y11 dt, Y10 1.0,
// Y9 the VPERMPS indices that broadcast lane n.

// func adiRowAVX2(r, um2, um, uc, up, up2, fm, fc, fp []float64, w *[5]float64, wstride int, k *adiAxisVec, end int)
TEXT ·adiRowAVX2(SB), NOSPLIT, $0-248
	MOVQ r_base+0(FP), DI
	MOVQ um2_base+24(FP), SI
	MOVQ um_base+48(FP), R8
	MOVQ uc_base+72(FP), R9
	MOVQ up_base+96(FP), R10
	MOVQ up2_base+120(FP), R11
	MOVQ fm_base+144(FP), R12
	MOVQ fc_base+168(FP), R13
	MOVQ fp_base+192(FP), R14
	MOVQ w+216(FP), BX
	MOVQ k+232(FP), AX
	VMOVUPD 0(AX), Y15
	VMOVUPD 32(AX), Y14
	VBROADCASTSD 176(AX), Y13
	VBROADCASTSD 184(AX), Y12
	VBROADCASTSD 192(AX), Y11
	VBROADCASTSD 200(AX), Y10
	VMOVDQU 96(AX), Y9
	XORQ CX, CX
	XORQ DX, DX

loop:
	// r + dt1·(up − 2uc + um)
	VMOVUPD (R10)(CX*1), Y0
	VMOVUPD (R9)(CX*1), Y1
	VMOVUPD (R8)(CX*1), Y2
	VADDPD  Y1, Y1, Y3
	VSUBPD  Y3, Y0, Y3
	VADDPD  Y2, Y3, Y3
	VMULPD  Y15, Y3, Y3
	VMOVUPD (DI)(CX*1), Y4
	VADDPD  Y3, Y4, Y4

	// + coefficient·(fp − 2fc + fm) of the fields 0–3 (zero for lane 0)
	VMOVUPD (R13)(DX*1), Y5
	VADDPD  Y5, Y5, Y5
	VMOVUPD (R14)(DX*1), Y6
	VSUBPD  Y5, Y6, Y5
	VADDPD  (R12)(DX*1), Y5, Y5
	VMULPD  Y14, Y5, Y5
	VADDPD  Y5, Y4, Y4

	// − t2·(up'·vp' − um'·vm' + e): lane 0 takes up[n], um[n] and 1.0,
	// lane n adds e = (up4 − sqp − um4 + sqm)·c2.
	VPERMPS (R14)(DX*1), Y9, Y7 // vp in every lane
	VPERMPS (R12)(DX*1), Y9, Y8 // vm in every lane
	VBLENDPD $1, Y10, Y7, Y5
	VPERMPS Y0, Y9, Y6
	VBLENDPD $1, Y6, Y0, Y6
	VMULPD  Y5, Y6, Y6
	VBLENDPD $1, Y10, Y8, Y5
	VPERMPS Y2, Y9, Y3
	VBLENDPD $1, Y3, Y2, Y3
	VMULPD  Y5, Y3, Y3
	VSUBPD  Y3, Y6, Y6
	VMOVSD  32(R10)(CX*1), X3
	VSUBSD  40(R14)(DX*1), X3, X3
	VSUBSD  32(R8)(CX*1), X3, X3
	VADDSD  40(R12)(DX*1), X3, X3
	VMULSD  168(AX), X3, X3
	VBROADCASTSD X3, Y3
	VANDPD  64(AX), Y3, Y3
	VADDPD  Y3, Y6, Y6
	VMULPD  Y13, Y6, Y6
	VSUBPD  Y6, Y4, Y4

	// − dssp·(w0·um2 + w1·um + w2·uc + w3·up + w4·up2), then ·dt
	VBROADCASTSD 0(BX), Y3
	VMULPD  (SI)(CX*1), Y3, Y3
	VBROADCASTSD 8(BX), Y5
	VMULPD  Y2, Y5, Y5
	VADDPD  Y5, Y3, Y3
	VBROADCASTSD 16(BX), Y5
	VMULPD  Y1, Y5, Y5
	VADDPD  Y5, Y3, Y3
	VBROADCASTSD 24(BX), Y5
	VMULPD  Y0, Y5, Y5
	VADDPD  Y5, Y3, Y3
	VBROADCASTSD 32(BX), Y5
	VMULPD  (R11)(CX*1), Y5, Y5
	VADDPD  Y5, Y3, Y3
	VMULPD  Y12, Y3, Y3
	VSUBPD  Y3, Y4, Y4
	VMULPD  Y11, Y4, Y4
	VMOVUPD Y4, (DI)(CX*1)

	// Component 4 (energy). X7, X8 hold vp, vm.
	VMOVSD  32(R10)(CX*1), X0 // up4
	VMOVSD  32(R9)(CX*1), X1  // uc4
	VMOVSD  32(R8)(CX*1), X2  // um4
	VADDSD  X1, X1, X3
	VSUBSD  X3, X0, X3
	VADDSD  X2, X3, X3
	VMULSD  128(AX), X3, X3
	VMOVSD  32(DI)(CX*1), X4
	VADDSD  X3, X4, X4

	// + con3·(fp_qs − 2fc_qs + fm_qs)
	VMOVSD  32(R13)(DX*1), X5
	VADDSD  X5, X5, X5
	VMOVSD  32(R14)(DX*1), X6
	VSUBSD  X5, X6, X5
	VADDSD  32(R12)(DX*1), X5, X5
	VMULSD  136(AX), X5, X5
	VADDSD  X5, X4, X4

	// + con4·(vp·vp − 2vc·vc + vm·vm)
	VPERMPS (R13)(DX*1), Y9, Y5 // vc
	VADDSD  X5, X5, X6
	VMULSD  X5, X6, X6
	VMULSD  X7, X7, X3
	VSUBSD  X6, X3, X3
	VMULSD  X8, X8, X6
	VADDSD  X6, X3, X3
	VMULSD  144(AX), X3, X3
	VADDSD  X3, X4, X4

	// + con5·(up4·fp_ρ − 2uc4·fc_ρ + um4·fm_ρ)
	VMULSD  0(R14)(DX*1), X0, X3
	VADDSD  X1, X1, X6
	VMULSD  0(R13)(DX*1), X6, X6
	VSUBSD  X6, X3, X3
	VMULSD  0(R12)(DX*1), X2, X6
	VADDSD  X6, X3, X3
	VMULSD  152(AX), X3, X3
	VADDSD  X3, X4, X4

	// − t2·((c1·up4 − c2·sqp)·vp − (c1·um4 − c2·sqm)·vm)
	VMULSD  160(AX), X0, X3
	VMOVSD  40(R14)(DX*1), X6
	VMULSD  168(AX), X6, X6
	VSUBSD  X6, X3, X3
	VMULSD  X7, X3, X3
	VMULSD  160(AX), X2, X5
	VMOVSD  40(R12)(DX*1), X6
	VMULSD  168(AX), X6, X6
	VSUBSD  X6, X5, X5
	VMULSD  X8, X5, X5
	VSUBSD  X5, X3, X3
	VMULSD  176(AX), X3, X3
	VSUBSD  X3, X4, X4

	// − dssp·(w0·um2 + w1·um + w2·uc + w3·up + w4·up2), then ·dt
	VMOVSD  32(SI)(CX*1), X3
	VMULSD  0(BX), X3, X3
	VMULSD  8(BX), X2, X5
	VADDSD  X5, X3, X3
	VMULSD  16(BX), X1, X5
	VADDSD  X5, X3, X3
	VMULSD  24(BX), X0, X5
	VADDSD  X5, X3, X3
	VMOVSD  32(R11)(CX*1), X5
	VMULSD  32(BX), X5, X5
	VADDSD  X5, X3, X3
	VMULSD  184(AX), X3, X3
	VSUBSD  X3, X4, X4
	VMULSD  192(AX), X4, X4
	VMOVSD  X4, 32(DI)(CX*1)

	ADDQ wstride+224(FP), BX
	ADDQ $40, CX
	ADDQ $48, DX
	CMPQ CX, end+240(FP)
	JLT  loop
	VZEROUPPER
	RET
