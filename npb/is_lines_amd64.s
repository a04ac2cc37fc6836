//go:build amd64 && !purego

#include "textflag.h"

// func isStoreFence()
TEXT ·isStoreFence(SB), NOSPLIT, $0-0
	SFENCE
	RET

// func isScatterLines(buf *int32, keys []int32, shift uint, counts, start *[1024]int32, lines *isLines)
// isPartitionLines's loop over the keys (is_lines.go), its values in
// registers: DI buf, SI keys, R8 their number, R12 the key's index, CX
// shift, R9 counts, R10 start, R11 lines; AX the key, BX its bucket, DX
// its place, R14 its bucket's line.
TEXT ·isScatterLines(SB), NOSPLIT, $0-64
	MOVQ buf+0(FP), DI
	MOVQ keys_base+8(FP), SI
	MOVQ keys_len+16(FP), R8
	MOVQ shift+32(FP), CX
	MOVQ counts+40(FP), R9
	MOVQ start+48(FP), R10
	MOVQ lines+56(FP), R11
	XORQ R12, R12
	TESTQ R8, R8
	JEQ  done

loop:
	MOVL (SI)(R12*4), AX
	MOVL AX, BX
	SHRL CX, BX
	ANDL $1023, BX
	MOVL (R9)(BX*4), DX
	LEAL 1(DX), R13
	MOVL R13, (R9)(BX*4)
	MOVQ BX, R14
	SHLQ $6, R14
	ADDQ R11, R14
	MOVL DX, R13
	ANDL $15, R13
	MOVL AX, (R14)(R13*4)
	CMPL R13, $15
	JEQ  full

next:
	INCQ R12
	CMPQ R12, R8
	JLT  loop

done:
	RET

full:
	// The line is full: to buf[p-15:p+1] by non-temporal stores, or,
	// for a bucket's first line, its own keys by ordinary ones.
	LEAL    -15(DX), R13
	MOVL    (R10)(BX*4), AX
	CMPL    R13, AX
	JLT     partial
	MOVLQSX R13, R13
	LEAQ    (DI)(R13*4), R13
	MOVOU   0(R14), X0
	MOVOU   16(R14), X1
	MOVOU   32(R14), X2
	MOVOU   48(R14), X3
	MOVNTO  X0, 0(R13)
	MOVNTO  X1, 16(R13)
	MOVNTO  X2, 32(R13)
	MOVNTO  X3, 48(R13)
	JMP     next

partial:
	// AX the bucket's start s: its keys lie at the line's places s&15 to
	// 15, and go to buf[s:p+1].
	MOVL    AX, R13
	ANDL    $15, R13
	MOVLQSX AX, AX

ploop:
	MOVL (R14)(R13*4), BX
	MOVL BX, (DI)(AX*4)
	INCQ AX
	INCQ R13
	CMPQ R13, $16
	JLT  ploop
	JMP  next
