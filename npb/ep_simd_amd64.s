//go:build amd64 && !purego

#include "textflag.h"

// EP's generator and Gaussian factors with AVX2 (see ep.go and
// ep_simd_amd64.go), four pairs in one vector. Only separate multiplies
// and adds (no FMA), in the Go version's order, the correctly rounded
// VDIVPD and VSQRTPD, and exact integer and conversion steps, so that the
// results are the Go version's bit for bit.

// The offsets of epGaussVec's constants, at CX.
#define REDUCE 0(CX)
#define MANT 32(CX)
#define HALF2 64(CX)
#define ONE 96(CX)
#define TWO 128(CX)
#define EXPHI 160(CX)
#define EXPOFF 192(CX)
#define L1 224(CX)
#define L2 256(CX)
#define L3 288(CX)
#define L4 320(CX)
#define L5 352(CX)
#define L6 384(CX)
#define L7 416(CX)
#define HF 448(CX)
#define LN2HI 480(CX)
#define LN2LO 512(CX)
#define M2 544(CX)
#define ABS 576(CX)

// LOGFINISH is epLogFinish on f in Y3, s in Y5 and k in Y4: log in Y8,
// through Y6–Y10, in its order of operations: s2 = s·s (Y6), s4 = s2·s2
// (Y7), r = s2·(L1+s4·(L3+s4·(L5+s4·L7))) + s4·(L2+s4·(L4+s4·L6)) (the
// two terms in Y8 and Y9), hfsq = 0.5·f·f (Y9), then log = k·ln2Hi −
// ((hfsq − (s·(hfsq+r) + k·ln2Lo)) − f).
#define LOGFINISH \
	VMULPD Y5, Y5, Y6 \
	VMULPD Y6, Y6, Y7 \
	VMULPD L7, Y7, Y8 \
	VADDPD L5, Y8, Y8 \
	VMULPD Y8, Y7, Y8 \
	VADDPD L3, Y8, Y8 \
	VMULPD Y8, Y7, Y8 \
	VADDPD L1, Y8, Y8 \
	VMULPD Y8, Y6, Y8 \
	VMULPD L6, Y7, Y9 \
	VADDPD L4, Y9, Y9 \
	VMULPD Y9, Y7, Y9 \
	VADDPD L2, Y9, Y9 \
	VMULPD Y9, Y7, Y9 \
	VADDPD Y9, Y8, Y8 \
	VMULPD HF, Y3, Y9 \
	VMULPD Y3, Y9, Y9 \
	VADDPD Y8, Y9, Y8 \
	VMULPD Y8, Y5, Y8 \
	VMULPD LN2LO, Y4, Y10 \
	VADDPD Y10, Y8, Y8 \
	VSUBPD Y8, Y9, Y8 \
	VSUBPD Y3, Y8, Y8 \
	VMULPD LN2HI, Y4, Y10 \
	VSUBPD Y8, Y10, Y8

// The four pairs a, b, c, d of a step lie in two vectors as x1a x2a x1b
// x2b and x1c x2c x1d x2d; VUNPCKLPD and VUNPCKHPD take x1 and x2 out of
// them in the order a c b d, in which the steps compute and keep t, f, s
// and k. As in epGaussGo, a first loop (epReduceAVX2) does log's argument
// reduction and its division for all pairs, a second (epFinishAVX2) the
// rest: so that each loop's chain is short and the divisions of many
// steps overlap.

// func epReduceAVX2(t, p []float64, f, s, k *[epChunk]float64, c *epGaussVec)
TEXT ·epReduceAVX2(SB), NOSPLIT, $0-80
	MOVQ t_base+0(FP), DI
	MOVQ t_len+8(FP), DX
	MOVQ p_base+24(FP), SI
	MOVQ f+48(FP), R9
	MOVQ s+56(FP), R10
	MOVQ k+64(FP), R11
	MOVQ c+72(FP), CX
	SHLQ $3, DX // the end of AX
	JZ   reduceDone
	XORQ AX, AX // the offset of the step's four values of t, f, s, k

reduceLoop:
	// t = x1·x1 + x2·x2.
	VMOVUPD   (SI)(AX*2), Y0
	VMOVUPD   32(SI)(AX*2), Y1
	VMULPD    Y0, Y0, Y0
	VMULPD    Y1, Y1, Y1
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VADDPD    Y3, Y2, Y2
	VMOVUPD   Y2, (DI)(AX*1)

	// epLogReduce: b = bits(t) + REDUCE, k = float64(b>>52 − 0x3FF)
	// (exactly, as (2^52 + b>>52) − (2^52 + 0x3FF)), f = the fraction of
	// b with the exponent of √2/2, minus 1, s = f/(2+f).
	VPADDQ  REDUCE, Y2, Y3
	VPSRLQ  $52, Y3, Y4
	VPOR    EXPHI, Y4, Y4
	VSUBPD  EXPOFF, Y4, Y4
	VMOVUPD Y4, (R11)(AX*1) // k
	VPAND   MANT, Y3, Y3
	VPADDQ  HALF2, Y3, Y3
	VSUBPD  ONE, Y3, Y3
	VMOVUPD Y3, (R9)(AX*1)  // f
	VADDPD  TWO, Y3, Y5
	VDIVPD  Y5, Y3, Y5
	VMOVUPD Y5, (R10)(AX*1) // s

	ADDQ $32, AX
	CMPQ AX, DX
	JNE  reduceLoop

reduceDone:
	VZEROUPPER
	RET

// func epFinishAVX2(g, p []float64, l []int32, f, s, k *[epChunk]float64, c *epGaussVec)
//
// VPERMPD puts g in order for its store; VUNPCKLPD and VUNPCKHPD of g
// with itself give ga ga gb gb and gc gc gd gd, the factors of the two
// vectors of pairs.
TEXT ·epFinishAVX2(SB), NOSPLIT, $0-104
	MOVQ g_base+0(FP), DI
	MOVQ g_len+8(FP), DX
	MOVQ p_base+24(FP), SI
	MOVQ l_base+48(FP), R8
	MOVQ f+72(FP), R9
	MOVQ s+80(FP), R10
	MOVQ k+88(FP), R11
	MOVQ c+96(FP), CX
	SHLQ $3, DX // the end of AX
	JZ   finishDone
	XORQ AX, AX // the offset of the step's four values of g, f, s, k

finishLoop:
	VMOVUPD (R9)(AX*1), Y3  // f
	VMOVUPD (R10)(AX*1), Y5 // s
	VMOVUPD (R11)(AX*1), Y4 // k
	LOGFINISH

	// g = sqrt(−2·log/t), in place of t, in the order a b c d.
	VMULPD  M2, Y8, Y8
	VDIVPD  (DI)(AX*1), Y8, Y8
	VSQRTPD Y8, Y8
	VPERMPD $0xD8, Y8, Y9
	VMOVUPD Y9, (DI)(AX*1)

	// The deviates |x·g| in place of the pairs, and the annuli
	// int(max(|x1·g|, |x2·g|)), back in the order a b c d.
	VUNPCKLPD Y8, Y8, Y9
	VUNPCKHPD Y8, Y8, Y10
	VMULPD    (SI)(AX*2), Y9, Y0
	VMULPD    32(SI)(AX*2), Y10, Y1
	VANDPD    ABS, Y0, Y0
	VANDPD    ABS, Y1, Y1
	VMOVUPD   Y0, (SI)(AX*2)
	VMOVUPD   Y1, 32(SI)(AX*2)
	VUNPCKLPD Y1, Y0, Y2
	VUNPCKHPD Y1, Y0, Y3
	VMAXPD    Y3, Y2, Y2
	VCVTTPD2DQY Y2, X2
	VPSHUFD   $0xD8, X2, X2
	VMOVDQU   X2, (R8)

	ADDQ $16, R8
	ADDQ $32, AX
	CMPQ AX, DX
	JNE  finishLoop

finishDone:
	VZEROUPPER
	RET

// The offsets of epLCGVec's constants, at CX.
#define LA 0(CX)
#define A2LO 32(CX)
#define A2HI 64(CX)
#define A16LO 96(CX)
#define A16HI 128(CX)
#define MASK46 160(CX)
#define MASK52 192(CX)
#define LEXPHI 224(CX)
#define LOFF 256(CX)
#define LSCALE 288(CX)
#define LTWO 320(CX)
#define LTHREE 352(CX)
#define LONE 384(CX)
#define PERM 416(CX)
#define STEP 928(CX)

// MULMOD(u, uh, alo, ahi, mask, r) sets r = u·a mod 2^46 or 2^52 (mask)
// for states u (their high 32 bits in uh) and a constant a < 2^52 given
// by its low and high 32 bits: u·a mod 2^64 = ul·al + (uh·al +
// ul·ah)·2^32, through Y12 and Y13. r may be u: it is written after the
// last use of u.
#define MULMOD(u, uh, alo, ahi, mask, r) \
	VPMULUDQ alo, uh, Y12 \
	VPMULUDQ ahi, u, Y13 \
	VPMULUDQ alo, u, r \
	VPADDQ   Y13, Y12, Y12 \
	VPSLLQ   $32, Y12, Y12 \
	VPADDQ   Y12, r, r \
	VPAND    mask, r, r

// PAIRS(u, uh, x1, x2) does a step of four pairs from the states u and
// moves u on by A^16, to its step in the next round (uh gets the states'
// high 32 bits). The pairs' numbers are v = u·A mod 2^46 (A < 2^32, in
// Y10: ul·A + uh·A·2^32, masked with Y11) and w = u·A² mod 2^46, and the
// pairs x1 = 2·(v·2^-46) − 1, x2 = 2·(w·2^-46) − 1, each step exact, so
// the same as x1 = ((2^52 + v) − (2^52 + 2^45))·2^-45 and
// x2 = (2 + w·2^-45) − 3, also exact: the first puts v under the exponent
// of 2^52, the second 64·w (from u·64·A² mod 2^52) under that of 2. The
// test x1·x1 + x2·x2 ≤ 1 gives a mask of four bits; x1 and x2 of the
// accepted pairs are gathered with VPERMPS into the lanes 0 2 1 3, so
// that VUNPCKLPD and VUNPCKHPD of them interleave them in order for the
// stores at DI+BX, and BX moves on by the bytes they take. Through AX,
// Y2, Y3, Y12 and Y13.
#define PAIRS(u, uh, x1, x2) \
	VPSRLQ   $32, u, uh \
	VPMULUDQ Y10, uh, Y12 \
	VPMULUDQ Y10, u, x1 \
	VPSLLQ   $32, Y12, Y12 \
	VPADDQ   Y12, x1, x1 \
	VPAND    Y11, x1, x1 \
	MULMOD(u, uh, A2LO, A2HI, MASK52, x2) \
	MULMOD(u, uh, A16LO, A16HI, Y11, u) \
	VPOR     LEXPHI, x1, x1 \
	VSUBPD   LOFF, x1, x1 \
	VMULPD   LSCALE, x1, x1 \
	VPOR     LTWO, x2, x2 \
	VSUBPD   LTHREE, x2, x2 \
	VMULPD   x1, x1, Y2 \
	VMULPD   x2, x2, Y3 \
	VADDPD   Y3, Y2, Y2 \
	VCMPPD   $2, LONE, Y2, Y2 \
	VMOVMSKPD Y2, AX \
	SHLQ     $3, AX \
	VMOVDQU  PERM(AX*4), Y3 \
	VPERMPS  x1, Y3, x1 \
	VPERMPS  x2, Y3, x2 \
	VUNPCKLPD x2, x1, Y2 \
	VUNPCKHPD x2, x1, Y3 \
	VMOVUPD  Y2, (DI)(BX*1) \
	VMOVUPD  Y3, 32(DI)(BX*1) \
	ADDQ     STEP(AX*1), BX

// func epAcceptedAVX2(x []float64, u *[8]uint64, k *epLCGVec) int
//
// A round of the loop does eight pairs in two steps of four, from two
// sets of states (Y15 for pairs 0–3, Y9 for pairs 4–7), so that the two
// chains of multiplications overlap.
TEXT ·epAcceptedAVX2(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), DI
	MOVQ x_len+8(FP), DX
	MOVQ u+24(FP), AX
	MOVQ k+32(FP), CX
	VMOVDQU (AX), Y15
	VMOVDQU 32(AX), Y9
	VMOVDQU LA, Y10
	VMOVDQU MASK46, Y11
	XORQ    BX, BX // the bytes stored
	SHRQ    $4, DX
	JZ      lcgDone

lcgLoop:
	PAIRS(Y15, Y14, Y0, Y1)
	PAIRS(Y9, Y8, Y4, Y5)
	DECQ DX
	JNZ  lcgLoop

lcgDone:
	SHRQ $3, BX
	MOVQ BX, ret+40(FP)
	VZEROUPPER
	RET
