//go:build amd64 && !purego

#include "textflag.h"

// LU's residual along a line (lu_rhs_dir.go), four values at a time in
// AVX2 vectors: the operations of luFluxDiff, luDissipFlat and
// luViscousUpdate in their order, without fused multiply-adds, so the
// same results bit for bit. Each does the first n values (a multiple of
// 4, of 20 for the viscous update); the caller does the rest.

// func luFluxDiffAVX2(out, fp, fm *float64, n int, t2 float64)
// out[x] = out[x] − t2·(fp[x] − fm[x])
TEXT ·luFluxDiffAVX2(SB), NOSPLIT, $0-40
	MOVQ         out+0(FP), DI
	MOVQ         fp+8(FP), SI
	MOVQ         fm+16(FP), BX
	MOVQ         n+24(FP), CX
	VBROADCASTSD t2+32(FP), Y0
	XORQ         AX, AX

fluxLoop:
	CMPQ    AX, CX
	JGE     fluxDone
	VMOVUPD (SI)(AX*8), Y1
	VSUBPD  (BX)(AX*8), Y1, Y1
	VMULPD  Y0, Y1, Y1
	VMOVUPD (DI)(AX*8), Y2
	VSUBPD  Y1, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     fluxLoop

fluxDone:
	VZEROUPPER
	RET

DATA  luFourSix<>+0(SB)/8, $4.0
DATA  luFourSix<>+8(SB)/8, $6.0
GLOBL luFourSix<>(SB), RODATA|NOPTR, $16

// func luDissipFlatAVX2(out, w2m, w1m, w0, w1p, w2p *float64, n int, dssp float64)
// out[x] = out[x] − dssp·(w2m[x] − 4·w1m[x] + 6·w0[x] − 4·w1p[x] + w2p[x])
TEXT ·luDissipFlatAVX2(SB), NOSPLIT, $0-64
	MOVQ         out+0(FP), DI
	MOVQ         w2m+8(FP), R8
	MOVQ         w1m+16(FP), R9
	MOVQ         w0+24(FP), R10
	MOVQ         w1p+32(FP), R11
	MOVQ         w2p+40(FP), R12
	MOVQ         n+48(FP), CX
	VBROADCASTSD dssp+56(FP), Y0
	VBROADCASTSD luFourSix<>+0(SB), Y1
	VBROADCASTSD luFourSix<>+8(SB), Y2
	XORQ         AX, AX

dissipLoop:
	CMPQ    AX, CX
	JGE     dissipDone
	VMULPD  (R9)(AX*8), Y1, Y3
	VMOVUPD (R8)(AX*8), Y4
	VSUBPD  Y3, Y4, Y4
	VMULPD  (R10)(AX*8), Y2, Y3
	VADDPD  Y3, Y4, Y4
	VMULPD  (R11)(AX*8), Y1, Y3
	VSUBPD  Y3, Y4, Y4
	VADDPD  (R12)(AX*8), Y4, Y4
	VMULPD  Y0, Y4, Y4
	VMOVUPD (DI)(AX*8), Y5
	VSUBPD  Y4, Y5, Y5
	VMOVUPD Y5, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     dissipLoop

dissipDone:
	VZEROUPPER
	RET

// VISC(off, k) updates the four values at byte off of the group, whose
// components follow the pattern of vector k of luViscLanes (d1 at
// 64 + 32k, keep at 224 + 32k of the constants, DX):
// r + visc·(fp − f) where keep is set, r where not, then + d1·(wm − 2·w + wp).
#define VISC(off, k) \
	VMOVUPD   off(SI), Y3 \
	VSUBPD    off(BX), Y3, Y3 \
	VMULPD    Y0, Y3, Y3 \
	VMOVUPD   off(DI), Y4 \
	VADDPD    Y3, Y4, Y3 \
	VMOVUPD   224+32*k(DX), Y5 \
	VBLENDVPD Y5, Y3, Y4, Y4 \
	VMULPD    off(R9), Y1, Y3 \
	VMOVUPD   off(R8), Y5 \
	VSUBPD    Y3, Y5, Y5 \
	VADDPD    off(R10), Y5, Y5 \
	VMULPD    64+32*k(DX), Y5, Y5 \
	VADDPD    Y5, Y4, Y4 \
	VMOVUPD   Y4, off(DI)

// func luViscousAVX2(r, fp, f, wm, w, wp *float64, n int, c *luViscLanes)
// luViscousUpdate at the n/5 points of a line (n a multiple of 20).
TEXT ·luViscousAVX2(SB), NOSPLIT, $0-64
	MOVQ         r+0(FP), DI
	MOVQ         fp+8(FP), SI
	MOVQ         f+16(FP), BX
	MOVQ         wm+24(FP), R8
	MOVQ         w+32(FP), R9
	MOVQ         wp+40(FP), R10
	MOVQ         n+48(FP), CX
	MOVQ         c+56(FP), DX
	VMOVUPD      0(DX), Y0
	VMOVUPD      32(DX), Y1
	SHLQ         $3, CX
	ADDQ         DI, CX

viscLoop:
	CMPQ DI, CX
	JGE  viscDone
	VISC(0, 0)
	VISC(32, 1)
	VISC(64, 2)
	VISC(96, 3)
	VISC(128, 4)
	ADDQ $160, DI
	ADDQ $160, SI
	ADDQ $160, BX
	ADDQ $160, R8
	ADDQ $160, R9
	ADDQ $160, R10
	JMP  viscLoop

viscDone:
	VZEROUPPER
	RET
