//go:build amd64 && !purego

#include "textflag.h"

// func isStoreLine(dst, line *[16]int32)
// Four unaligned loads of line, four non-temporal stores (MOVNTDQ) into
// dst, which begins a cache line.
TEXT ·isStoreLine(SB), NOSPLIT, $0-16
	MOVQ   dst+0(FP), DI
	MOVQ   line+8(FP), SI
	MOVOU  0(SI), X0
	MOVOU  16(SI), X1
	MOVOU  32(SI), X2
	MOVOU  48(SI), X3
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	RET

// func isStoreFence()
TEXT ·isStoreFence(SB), NOSPLIT, $0-0
	SFENCE
	RET
