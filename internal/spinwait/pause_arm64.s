#include "textflag.h"

// func Pause()
TEXT ·Pause(SB), NOSPLIT|NOFRAME, $0-0
	YIELD
	RET

// func Ticks() uint64
TEXT ·Ticks(SB), NOSPLIT|NOFRAME, $0-8
	MRS  CNTVCT_EL0, R0
	MOVD R0, ret+0(FP)
	RET
