//go:build amd64 && !purego

#include "textflag.h"

// Elementwise sums of float32 and float64 vectors in AVX2: dst[i] += src[i]
// over n bytes, n a multiple of 32 (see vecsum_amd64.go). Each element is
// one IEEE addition, the loop's: the results are the loop's bit for bit
// (but for the payload of a NaN). Registers: DI dst, SI src, CX n, AX the
// byte offset, DX the end of the next block of 128 bytes.

#define ADD_BLOCKS(OP) \
	XORQ AX, AX \
	CMPQ CX, $128 \
	JB   one \
four: \
	VMOVUPS (SI)(AX*1), Y0 \
	VMOVUPS 32(SI)(AX*1), Y1 \
	VMOVUPS 64(SI)(AX*1), Y2 \
	VMOVUPS 96(SI)(AX*1), Y3 \
	OP (DI)(AX*1), Y0, Y0 \
	OP 32(DI)(AX*1), Y1, Y1 \
	OP 64(DI)(AX*1), Y2, Y2 \
	OP 96(DI)(AX*1), Y3, Y3 \
	VMOVUPS Y0, (DI)(AX*1) \
	VMOVUPS Y1, 32(DI)(AX*1) \
	VMOVUPS Y2, 64(DI)(AX*1) \
	VMOVUPS Y3, 96(DI)(AX*1) \
	ADDQ $128, AX \
	LEAQ 128(AX), DX \
	CMPQ DX, CX \
	JBE  four \
one: \
	CMPQ AX, CX \
	JAE  done \
	VMOVUPS (SI)(AX*1), Y0 \
	OP (DI)(AX*1), Y0, Y0 \
	VMOVUPS Y0, (DI)(AX*1) \
	ADDQ $32, AX \
	JMP  one \
done: \
	VZEROUPPER \
	RET

// func addFloat32AVX2(dst, src unsafe.Pointer, n int)
TEXT ·addFloat32AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	ADD_BLOCKS(VADDPS)

// func addFloat64AVX2(dst, src unsafe.Pointer, n int)
TEXT ·addFloat64AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	ADD_BLOCKS(VADDPD)
