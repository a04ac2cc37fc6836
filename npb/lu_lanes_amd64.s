//go:build amd64 && !purego

#include "textflag.h"
#include "lanes_amd64.h"

// LU's blocks of four consecutive points of a line (lu_lanes.go), point p
// in lane p of every vector: the operations of luJacD, luJacX, luJacY and
// luJacZ (lu_jac.go) in their order, so the same results bit for bit (no
// fused multiply-adds; a negation is an exclusive or with −0, as the Go
// code's unary minus). u (SI) holds the points' values five apart, r (BX)
// their 1/ρ, the table (CX) the constants in four lanes each, at the
// offsets below (the order of luLaneConst's indices). The blocks go to
// out (DI), point p's at p times the block's size.
//
// Registers through a block: Y0 t1, Y1 t2, Y2 t3, Y3-Y6 the point's
// values 2 to 5 (w2..w5), Y7 w2²+w3²+w4² (the neighbour blocks); Y8-Y14
// work; Y15 the loads' and stores' high half.

#define CV 0
#define NC2 32
#define C2H 64
#define HALF2 96
#define TMC2 128
#define VS 160
#define NR43C34 192
#define R43C34 224
#define NC34 256
#define C34 288
#define C1 320
#define C2 352
#define NRCM 384
#define CM 416
#define NCM 448
#define C1345 480
#define VSD1 512
#define VSD2 544
#define VSD3 576
#define VSD4 608
#define VSRCM 640
#define VSCM 672
#define VSC1345 704
#define VSC34Z 736
#define CVTMC2 768
#define THREE 800
#define SIGN 832
#define DT2 864
#define TX1 896
#define TY1 928
#define TZ1 960
#define TX1R43C34 992
#define TY1C34 1024
#define TZ1C34 1056
#define ONE 1088
#define DD1 1120
#define DD2 1152
#define DD3 1184
#define DD4 1216
#define TX1C34 1248
#define TY1R43C34 1280
#define TZ1R43C34 1312
#define TX1RCM 1344
#define TY1CM 1376
#define TZ1CM 1408
#define TX1CM 1440
#define TY1RCM 1472
#define TZ1RCM 1504
#define TX1C1345 1536
#define TY1C1345 1568
#define TZ1C1345 1600

// LOADW(off, y, x) is LOADP of the points of u.
#define LOADW(off, y, x) LOADP(SI, off, y, x)

// STORE4(y, x, off, st) stores lane p of y at off + p·st of out.
#define STORE4(y, x, off, st) STOREP(DI, y, x, off, st, X15)

// STOREN(e) stores Y8 as entry e of the four neighbour blocks (200 bytes
// each).
#define STOREN(e) STORE4(Y8, X8, e*8, 200)

// PRELUDE sets t1, t2, t3 and w2..w5.
#define PRELUDE \
	VMOVUPD (BX), Y0 \
	VMULPD  Y0, Y0, Y1 \
	VMULPD  Y1, Y0, Y2 \
	LOADW(8, Y3, X3) \
	LOADW(16, Y4, X4) \
	LOADW(24, Y5, X5) \
	LOADW(32, Y6, X6)

// NPRELUDE is PRELUDE, then the sum w2·w2 + w3·w3 + w4·w4 in Y7 and
// A2..A5 = w2·t1..w5·t1 in Y9-Y12.
#define NPRELUDE \
	PRELUDE \
	VMULPD Y3, Y3, Y7 \
	VMULPD Y4, Y4, Y8 \
	VADDPD Y8, Y7, Y7 \
	VMULPD Y5, Y5, Y8 \
	VADDPD Y8, Y7, Y7 \
	VMULPD Y0, Y3, Y9 \
	VMULPD Y0, Y4, Y10 \
	VMULPD Y0, Y5, Y11 \
	VMULPD Y0, Y6, Y12

// CVA(a): Y8 = cv·a.
#define CVA(a) \
	VMULPD CV(CX), a, Y8

// CVK(k, a): Y8 = cv·(k·a).
#define CVK(k, a) \
	VMULPD k(CX), a, Y8 \
	VMULPD CV(CX), Y8, Y8

// DIAGN(a, k, vsd): Y8 = cv·a − vs·(k·t1) − vsd.
#define DIAGN(a, k, vsd) \
	VMULPD CV(CX), a, Y8 \
	VMULPD k(CX), Y0, Y13 \
	VMULPD VS(CX), Y13, Y13 \
	VSUBPD Y13, Y8, Y8 \
	VSUBPD vsd(CX), Y8, Y8

// NEGCROSS(wa, wb, wc): Y8 = cv·(−(wa·wb)·t2) − vs·(nc34·t2·wc).
#define NEGCROSS(wa, wb, wc) \
	VMULPD wb, wa, Y8 \
	VMULPD Y1, Y8, Y8 \
	VMULPD CV(CX), Y8, Y8 \
	VXORPD SIGN(CX), Y8, Y8 \
	VMULPD NC34(CX), Y1, Y13 \
	VMULPD wc, Y13, Y13 \
	VMULPD VS(CX), Y13, Y13 \
	VSUBPD Y13, Y8, Y8

// CROSS(wa, wb, wc): Y8 = cv·(−c2·(wa·wb)·t2) − vscm·t2·wc.
#define CROSS(wa, wb, wc) \
	VMULPD wb, wa, Y8 \
	VMULPD NC2(CX), Y8, Y8 \
	VMULPD Y1, Y8, Y8 \
	VMULPD CV(CX), Y8, Y8 \
	VMULPD VSCM(CX), Y1, Y13 \
	VMULPD wc, Y13, Y13 \
	VSUBPD Y13, Y8, Y8

// NORMAL(a, w): Y8 = cv·(−a·a + half2·(sum·t2)) − vs·(nr43c34·t2·w), the
// block's entry of the normal momentum along y or z.
#define NORMAL(a, w) \
	VMULPD Y1, Y7, Y8 \
	VMULPD HALF2(CX), Y8, Y8 \
	VMULPD a, a, Y13 \
	VSUBPD Y13, Y8, Y8 \
	VMULPD CV(CX), Y8, Y8 \
	VMULPD NR43C34(CX), Y1, Y13 \
	VMULPD w, Y13, Y13 \
	VMULPD VS(CX), Y13, Y13 \
	VSUBPD Y13, Y8, Y8

// SQ(w, dst): dst = w·w.
#define SQ(w, dst) \
	VMULPD w, w, dst

// MOM(w): Y8 = cv·(c1·A5 − half2·(Y13·t2)) − vsrcm·t2·w, Y13 holding the
// sum with the normal component's square tripled.
#define MOM(w) \
	VMULPD Y1, Y13, Y13 \
	VMULPD HALF2(CX), Y13, Y13 \
	VMULPD C1(CX), Y12, Y8 \
	VSUBPD Y13, Y8, Y8 \
	VMULPD CV(CX), Y8, Y8 \
	VMULPD VSRCM(CX), Y1, Y13 \
	VMULPD w, Y13, Y13 \
	VSUBPD Y13, Y8, Y8

// TRIPLE(w): Y14 = 3.0·w·w.
#define TRIPLE(w) \
	VMULPD THREE(CX), w, Y14 \
	VMULPD w, Y14, Y14

// ENERGY(a, k2, op3, k3, op4, k4): Y8 = cv·((c2·sum·t2 − c1·A5)·a) −
// vs·(k2·t3·w2² op3 k3·t3·w3² op4 k4·t3·w4² − c1345·t2·w5), the block's
// entry 20 (op3 and op4 VADDPD or VSUBPD).
#define ENERGY(a, k2, op3, k3, op4, k4) \
	VMULPD C2(CX), Y7, Y8 \
	VMULPD Y1, Y8, Y8 \
	VMULPD C1(CX), Y12, Y13 \
	VSUBPD Y13, Y8, Y8 \
	VMULPD a, Y8, Y8 \
	VMULPD CV(CX), Y8, Y8 \
	T3SQ(k2, Y3, Y13) \
	T3SQ(k3, Y4, Y14) \
	op3    Y14, Y13, Y13 \
	T3SQ(k4, Y5, Y14) \
	op4    Y14, Y13, Y13 \
	VMULPD C1345(CX), Y1, Y14 \
	VMULPD Y6, Y14, Y14 \
	VSUBPD Y14, Y13, Y13 \
	VMULPD VS(CX), Y13, Y13 \
	VSUBPD Y13, Y8, Y8

// T3SQ(k, w, dst): dst = k·t3·(w·w), Y15 spoilt.
#define T3SQ(k, w, dst) \
	VMULPD k(CX), Y2, dst \
	VMULPD w, w, Y15 \
	VMULPD Y15, dst, dst

// LAST(a): Y8 = cv·(c1·a) − vsc1345·t1 − vsd4.
#define LAST(a) \
	VMULPD C1(CX), a, Y8 \
	VMULPD CV(CX), Y8, Y8 \
	VMULPD VSC1345(CX), Y0, Y13 \
	VSUBPD Y13, Y8, Y8 \
	VSUBPD VSD4(CX), Y8, Y8

// STORED(y, x, off) stores y at off of the four diagonal blocks
// (luDiag, 104 bytes each).
#define STORED(y, x, off) STORE4(y, x, off, 104)

// DSUM(a, b, c): Y12 = dt2·(tx1·a + ty1·b + tz1·c).
#define DSUM(a, b, c) \
	VMULPD TX1(CX), a, Y12 \
	VMULPD TY1(CX), b, Y13 \
	VADDPD Y13, Y12, Y12 \
	VMULPD TZ1(CX), c, Y13 \
	VADDPD Y13, Y12, Y12 \
	VMULPD DT2(CX), Y12, Y12

// DDIAG(ka, kb, kc, dd): Y12 = 1 + dt2·(ka·t1 + kb·t1 + kc·t1) + dd.
#define DDIAG(ka, kb, kc, dd) \
	VMULPD ka(CX), Y0, Y12 \
	VMULPD kb(CX), Y0, Y13 \
	VADDPD Y13, Y12, Y12 \
	VMULPD kc(CX), Y0, Y13 \
	VADDPD Y13, Y12, Y12 \
	VMULPD DT2(CX), Y12, Y12 \
	VADDPD ONE(CX), Y12, Y12 \
	VADDPD dd(CX), Y12, Y12

// DROW(ka, kb, kc, w): Y12 = dt2·(ka·t2·w + kb·t2·w + kc·t2·w).
#define DROW(ka, kb, kc, w) \
	VMULPD ka(CX), Y1, Y12 \
	VMULPD w, Y12, Y12 \
	VMULPD kb(CX), Y1, Y13 \
	VMULPD w, Y13, Y13 \
	VADDPD Y13, Y12, Y12 \
	VMULPD kc(CX), Y1, Y13 \
	VMULPD w, Y13, Y13 \
	VADDPD Y13, Y12, Y12 \
	VMULPD DT2(CX), Y12, Y12

// ARGS loads a neighbour block former's arguments.
#define ARGS \
	MOVQ a+0(FP), DI \
	MOVQ u+8(FP), SI \
	MOVQ r+16(FP), BX \
	MOVQ t+24(FP), CX

// func luJacDAVX2(d *[4]luDiag, u, r *float64, t *luLaneConst)
TEXT ·luJacDAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ u+8(FP), SI
	MOVQ r+16(FP), BX
	MOVQ t+24(FP), CX
	PRELUDE
	// q2..q4 = nc34·t2·w2..w4 in Y8-Y10, nr43c34·t2 in Y11.
	VMULPD NC34(CX), Y1, Y7
	VMULPD Y3, Y7, Y8
	VMULPD Y4, Y7, Y9
	VMULPD Y5, Y7, Y10
	VMULPD NR43C34(CX), Y1, Y11
	VMULPD Y3, Y11, Y14
	DSUM(Y14, Y8, Y8)
	STORED(Y12, X12, 8)   // d21
	VMULPD Y4, Y11, Y14
	DSUM(Y9, Y14, Y9)
	STORED(Y12, X12, 24)  // d31
	VMULPD Y5, Y11, Y14
	DSUM(Y10, Y10, Y14)
	STORED(Y12, X12, 40)  // d41
	DDIAG(TX1R43C34, TY1C34, TZ1C34, DD1)
	STORED(Y12, X12, 16)  // d22
	DDIAG(TX1C34, TY1R43C34, TZ1C34, DD2)
	STORED(Y12, X12, 32)  // d33
	DDIAG(TX1C34, TY1C34, TZ1R43C34, DD3)
	STORED(Y12, X12, 48)  // d44
	DDIAG(TX1C1345, TY1C1345, TZ1C1345, DD4)
	STORED(Y12, X12, 88)  // d55
	DROW(TX1RCM, TY1CM, TZ1CM, Y3)
	STORED(Y12, X12, 64)  // d52
	DROW(TX1CM, TY1RCM, TZ1CM, Y4)
	STORED(Y12, X12, 72)  // d53
	DROW(TX1CM, TY1CM, TZ1RCM, Y5)
	STORED(Y12, X12, 80)  // d54
	// d51: r2..r4 = −(r43·c34 − c1345)·t3·w², p2..p4 = (c34 − c1345)·t3·w²
	// in Y7-Y12, e = c1345·t2·w5 in Y13.
	T3SQ(NRCM, Y3, Y7)
	T3SQ(NRCM, Y4, Y8)
	T3SQ(NRCM, Y5, Y9)
	T3SQ(CM, Y3, Y10)
	T3SQ(CM, Y4, Y11)
	T3SQ(CM, Y5, Y12)
	VMULPD C1345(CX), Y1, Y13
	VMULPD Y6, Y13, Y13
	VSUBPD Y11, Y7, Y14  // tx1·(r2 − p3 − p4 − e)
	VSUBPD Y12, Y14, Y14
	VSUBPD Y13, Y14, Y14
	VMULPD TX1(CX), Y14, Y14
	VSUBPD Y10, Y8, Y15  // + ty1·(−p2 + r3 − p4 − e)
	VSUBPD Y12, Y15, Y15
	VSUBPD Y13, Y15, Y15
	VMULPD TY1(CX), Y15, Y15
	VADDPD Y15, Y14, Y14
	VXORPD SIGN(CX), Y10, Y15  // + tz1·(−p2 − p3 + r4 − e)
	VSUBPD Y11, Y15, Y15
	VADDPD Y9, Y15, Y15
	VSUBPD Y13, Y15, Y15
	VMULPD TZ1(CX), Y15, Y15
	VADDPD Y15, Y14, Y14
	VMULPD DT2(CX), Y14, Y14
	STORED(Y14, X14, 56)  // d51
	VZEROUPPER
	RET

// func luJacXAVX2(a *[4][25]float64, u, r *float64, t *luLaneConst)
TEXT ·luJacXAVX2(SB), NOSPLIT, $0-32
	ARGS
	NPRELUDE
	// a5 = cv·(−A2·A2 + c2·0.50·sum·t2) − vs·(nr43c34·t2·w2)
	VMULPD C2H(CX), Y7, Y8
	VMULPD Y1, Y8, Y8
	VMULPD Y9, Y9, Y13
	VSUBPD Y13, Y8, Y8
	VMULPD CV(CX), Y8, Y8
	VMULPD NR43C34(CX), Y1, Y13
	VMULPD Y3, Y13, Y13
	VMULPD VS(CX), Y13, Y13
	VSUBPD Y13, Y8, Y8
	STOREN(5)
	VMULPD TMC2(CX), Y9, Y14
	DIAGN(Y14, R43C34, VSD1)
	STOREN(6)
	CVK(NC2, Y10)
	STOREN(7)
	CVK(NC2, Y11)
	STOREN(8)
	NEGCROSS(Y3, Y4, Y4)
	STOREN(10)
	CVA(Y10)
	STOREN(11)
	DIAGN(Y9, C34, VSD2)
	STOREN(12)
	NEGCROSS(Y3, Y5, Y5)
	STOREN(15)
	CVA(Y11)
	STOREN(16)
	DIAGN(Y9, C34, VSD3)
	STOREN(18)
	ENERGY(Y9, NRCM, VSUBPD, CM, VSUBPD, CM)
	STOREN(20)
	TRIPLE(Y3)
	SQ(Y4, Y13)
	VADDPD Y13, Y14, Y13
	SQ(Y5, Y14)
	VADDPD Y14, Y13, Y13
	MOM(Y3)
	STOREN(21)
	CROSS(Y4, Y3, Y4)
	STOREN(22)
	CROSS(Y5, Y3, Y5)
	STOREN(23)
	LAST(Y9)
	STOREN(24)
	VZEROUPPER
	RET

// func luJacYAVX2(a *[4][25]float64, u, r *float64, t *luLaneConst)
TEXT ·luJacYAVX2(SB), NOSPLIT, $0-32
	ARGS
	NPRELUDE
	NEGCROSS(Y3, Y4, Y3)
	STOREN(5)
	DIAGN(Y10, C34, VSD1)
	STOREN(6)
	CVA(Y9)
	STOREN(7)
	NORMAL(Y10, Y4)
	STOREN(10)
	CVK(NC2, Y9)
	STOREN(11)
	VMULPD TMC2(CX), Y10, Y14
	DIAGN(Y14, R43C34, VSD2)
	STOREN(12)
	CVK(NC2, Y11)
	STOREN(13)
	NEGCROSS(Y4, Y5, Y5)
	STOREN(15)
	CVA(Y11)
	STOREN(17)
	DIAGN(Y10, C34, VSD3)
	STOREN(18)
	ENERGY(Y10, NCM, VADDPD, NRCM, VSUBPD, CM)
	STOREN(20)
	CROSS(Y3, Y4, Y3)
	STOREN(21)
	SQ(Y3, Y13)
	TRIPLE(Y4)
	VADDPD Y14, Y13, Y13
	SQ(Y5, Y14)
	VADDPD Y14, Y13, Y13
	MOM(Y4)
	STOREN(22)
	CROSS(Y4, Y5, Y5)
	STOREN(23)
	LAST(Y10)
	STOREN(24)
	VZEROUPPER
	RET

// func luJacZAVX2(a *[4][25]float64, u, r *float64, t *luLaneConst)
TEXT ·luJacZAVX2(SB), NOSPLIT, $0-32
	ARGS
	NPRELUDE
	NEGCROSS(Y3, Y5, Y3)
	STOREN(5)
	// a6 = cv·A4 − vsc34z·t1 − vsd1
	VMULPD CV(CX), Y11, Y8
	VMULPD VSC34Z(CX), Y0, Y13
	VSUBPD Y13, Y8, Y8
	VSUBPD VSD1(CX), Y8, Y8
	STOREN(6)
	CVA(Y9)
	STOREN(8)
	NEGCROSS(Y4, Y5, Y4)
	STOREN(10)
	DIAGN(Y11, C34, VSD2)
	STOREN(12)
	CVA(Y10)
	STOREN(13)
	NORMAL(Y11, Y5)
	STOREN(15)
	CVK(NC2, Y9)
	STOREN(16)
	CVK(NC2, Y10)
	STOREN(17)
	// a18 = cv·(2 − c2)·A4 − vs·(r43c34·t1) − vsd3
	VMULPD CVTMC2(CX), Y11, Y8
	VMULPD R43C34(CX), Y0, Y13
	VMULPD VS(CX), Y13, Y13
	VSUBPD Y13, Y8, Y8
	VSUBPD VSD3(CX), Y8, Y8
	STOREN(18)
	ENERGY(Y11, NCM, VSUBPD, CM, VADDPD, NRCM)
	STOREN(20)
	CROSS(Y3, Y5, Y3)
	STOREN(21)
	CROSS(Y4, Y5, Y4)
	STOREN(22)
	SQ(Y3, Y13)
	SQ(Y4, Y14)
	VADDPD Y14, Y13, Y13
	TRIPLE(Y5)
	VADDPD Y14, Y13, Y13
	MOM(Y5)
	STOREN(23)
	LAST(Y11)
	STOREN(24)
	VZEROUPPER
	RET

// The fluxes of LU's residual (lu_rhs.go luConvective, luViscous) of
// four consecutive points at a time, one in each lane, in their
// operations' order. The table (CX, luFluxConst) holds, in four lanes
// each, the direction's masks of the normal momentum's component (SEL1-3)
// and its factors.
#define SEL1 0
#define SEL2 32
#define SEL3 64
#define M2 96
#define M3 128
#define M4 160
#define K5 192
#define K6 224
#define K7 256
#define HALF 288
#define FC1 320
#define FC2 352

// PICK(sel, f) adds Y10 to f in the lanes of sel (all or none).
#define PICK(sel, f) \
	VADDPD    Y10, f, Y11 \
	VMOVUPD   sel(CX), Y12 \
	VBLENDVPD Y12, Y11, f, f

// STOREF(y, x, off) stores y at off of the four points' fluxes from DI.
#define STOREF(y, x, off) STORE4(y, x, off, 40)

// func luConvectiveAVX2(f, p *float64, npts, n int, t *luFluxConst)
// luConvective at npts points (a multiple of 4) along the direction of
// momentum component n.
TEXT ·luConvectiveAVX2(SB), NOSPLIT, $0-40
	MOVQ f+0(FP), DI
	MOVQ p+8(FP), SI
	MOVQ npts+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ t+32(FP), CX
	LEAQ (SI)(R8*8), R8

convLoop:
	CMPQ DX, $0
	JLE  convDone
	LOADW(0, Y0, X0)
	LOADW(8, Y1, X1)
	LOADW(16, Y2, X2)
	LOADW(24, Y3, X3)
	LOADW(32, Y4, X4)
	LOADP(R8, 0, Y5, X5)
	VDIVPD Y0, Y5, Y6       // un = p[n] / p[0]
	VMULPD Y1, Y1, Y7       // q = 0.50·(p1² + p2² + p3²) / p[0]
	VMULPD Y2, Y2, Y8
	VADDPD Y8, Y7, Y7
	VMULPD Y3, Y3, Y8
	VADDPD Y8, Y7, Y7
	VMULPD HALF(CX), Y7, Y7
	VDIVPD Y0, Y7, Y7
	VMULPD Y6, Y1, Y1       // f1..f3 = p1..p3 · un
	VMULPD Y6, Y2, Y2
	VMULPD Y6, Y3, Y3
	VSUBPD Y7, Y4, Y10      // f[n] += c2·(p4 − q)
	VMULPD FC2(CX), Y10, Y10
	PICK(SEL1, Y1)
	PICK(SEL2, Y2)
	PICK(SEL3, Y3)
	VMULPD FC1(CX), Y4, Y4  // f4 = (c1·p4 − c2·q)·un
	VMULPD FC2(CX), Y7, Y7
	VSUBPD Y7, Y4, Y4
	VMULPD Y6, Y4, Y4
	STOREF(Y5, X5, 0)
	STOREF(Y1, X1, 8)
	STOREF(Y2, X2, 16)
	STOREF(Y3, X3, 24)
	STOREF(Y4, X4, 32)
	ADDQ $160, SI
	ADDQ $160, R8
	ADDQ $160, DI
	SUBQ $4, DX
	JMP  convLoop

convDone:
	VZEROUPPER
	RET

// func luViscousFluxAVX2(f, pm, p, rm, r *float64, npts, n int, t *luFluxConst)
// luViscous at npts points (a multiple of 4): f[1:5] of each from the
// point p and the one before it, pm, whose 1/ρ are r and rm.
TEXT ·luViscousFluxAVX2(SB), NOSPLIT, $0-64
	MOVQ f+0(FP), DI
	MOVQ pm+8(FP), R9
	MOVQ p+16(FP), SI
	MOVQ rm+24(FP), R10
	MOVQ r+32(FP), BX
	MOVQ npts+40(FP), DX
	MOVQ n+48(FP), R8
	MOVQ t+56(FP), CX
	LEAQ (R9)(R8*8), R11
	LEAQ (SI)(R8*8), R8

viscFluxLoop:
	CMPQ    DX, $0
	JLE     viscFluxDone
	VMOVUPD (BX), Y0
	VMOVUPD (R10), Y9
	LOADW(8, Y1, X1)        // u2..u5 = r·p1..p4
	LOADW(16, Y2, X2)
	LOADW(24, Y3, X3)
	LOADW(32, Y4, X4)
	VMULPD  Y1, Y0, Y1
	VMULPD  Y2, Y0, Y2
	VMULPD  Y3, Y0, Y3
	VMULPD  Y4, Y0, Y4
	LOADP(R9, 8, Y5, X5)    // v2..v5 = rm·pm1..pm4
	LOADP(R9, 16, Y6, X6)
	LOADP(R9, 24, Y7, X7)
	LOADP(R9, 32, Y8, X8)
	VMULPD  Y5, Y9, Y5
	VMULPD  Y6, Y9, Y6
	VMULPD  Y7, Y9, Y7
	VMULPD  Y8, Y9, Y8
	VSUBPD  Y5, Y1, Y10     // f1..f3 = m·(u − v)
	VMULPD  M2(CX), Y10, Y10
	STOREF(Y10, X10, 8)
	VSUBPD  Y6, Y2, Y10
	VMULPD  M3(CX), Y10, Y10
	STOREF(Y10, X10, 16)
	VSUBPD  Y7, Y3, Y10
	VMULPD  M4(CX), Y10, Y10
	STOREF(Y10, X10, 24)
	VMULPD  Y1, Y1, Y10     // k5·((u2² + u3² + u4²) − (v2² + v3² + v4²))
	VMULPD  Y2, Y2, Y11
	VADDPD  Y11, Y10, Y10
	VMULPD  Y3, Y3, Y11
	VADDPD  Y11, Y10, Y10
	VMULPD  Y5, Y5, Y11
	VMULPD  Y6, Y6, Y12
	VADDPD  Y12, Y11, Y11
	VMULPD  Y7, Y7, Y12
	VADDPD  Y12, Y11, Y11
	VSUBPD  Y11, Y10, Y10
	VMULPD  K5(CX), Y10, Y10
	LOADP(R8, 0, Y11, X11)  // + k6·(un² − vn²)
	VMULPD  Y11, Y0, Y11
	LOADP(R11, 0, Y12, X12)
	VMULPD  Y12, Y9, Y12
	VMULPD  Y11, Y11, Y11
	VMULPD  Y12, Y12, Y12
	VSUBPD  Y12, Y11, Y11
	VMULPD  K6(CX), Y11, Y11
	VADDPD  Y11, Y10, Y10
	VSUBPD  Y8, Y4, Y11     // + k7·(u5 − v5)
	VMULPD  K7(CX), Y11, Y11
	VADDPD  Y11, Y10, Y10
	STOREF(Y10, X10, 32)
	ADDQ    $160, SI
	ADDQ    $160, R8
	ADDQ    $160, R9
	ADDQ    $160, R11
	ADDQ    $32, R10
	ADDQ    $32, BX
	ADDQ    $160, DI
	SUBQ    $4, DX
	JMP     viscFluxLoop

viscFluxDone:
	VZEROUPPER
	RET
