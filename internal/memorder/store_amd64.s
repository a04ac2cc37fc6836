//go:build amd64 && !race

#include "textflag.h"

// func StoreRelease64(p *uint64, v uint64)
TEXT ·StoreRelease64(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, (AX)
	RET
