//go:build amd64 && !race

#include "textflag.h"

// func repMovsb(dst, src *byte, n int)
TEXT ·repMovsb(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	REP; MOVSB
	RET
