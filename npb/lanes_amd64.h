// Moves of four points' values between memory and the lanes of an AVX2
// vector, for the NPB kernels that hold a point in each lane (included by
// their assembly files).

// LOADP(b, off, y, x) sets y to the values at off of the four points from
// b on, a point 40 bytes (five values) after the one before (x is y's low
// half; X15 is spoilt).
#define LOADP(b, off, y, x) \
	VMOVSD      off(b), x \
	VMOVHPD     off+40(b), x, x \
	VMOVSD      off+80(b), X15 \
	VMOVHPD     off+120(b), X15, X15 \
	VINSERTF128 $1, X15, y, y

// STOREP(b, y, x, off, st, t) stores lane p of y at off + p·st from b
// (x is y's low half; t, an X register, is spoilt).
#define STOREP(b, y, x, off, st, t) \
	VMOVSD       x, off(b) \
	VMOVHPD      x, off+st(b) \
	VEXTRACTF128 $1, y, t \
	VMOVSD       t, off+st+st(b) \
	VMOVHPD      t, off+st+st+st(b)

// TRANSPOSE4 transposes the 4×4 block of doubles in Y0-Y3 (row r in Yr)
// into Y6-Y9 (column c in Y(6+c)), through Y10-Y13.
#define TRANSPOSE4 \
	VUNPCKLPD  Y1, Y0, Y10 \
	VUNPCKHPD  Y1, Y0, Y11 \
	VUNPCKLPD  Y3, Y2, Y12 \
	VUNPCKHPD  Y3, Y2, Y13 \
	VPERM2F128 $0x20, Y12, Y10, Y6 \
	VPERM2F128 $0x20, Y13, Y11, Y7 \
	VPERM2F128 $0x31, Y12, Y10, Y8 \
	VPERM2F128 $0x31, Y13, Y11, Y9
