#include "textflag.h"

// func Pause()
TEXT ·Pause(SB), NOSPLIT|NOFRAME, $0-0
	PAUSE
	RET

// func Ticks() uint64
TEXT ·Ticks(SB), NOSPLIT|NOFRAME, $0-8
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET
