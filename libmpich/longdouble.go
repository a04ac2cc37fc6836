package main

// Arithmetic on long doubles (MPI_LONG_DOUBLE) and on their complex
// (MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX), which no type
// of Go holds: x86-64's long double is the x87's 80-bit extended
// precision number, stored in 16 bytes. The reductions and the
// accumulates combine their items as bytes (mpi.NewItemOp), by a C
// function on long double, so that the sums and products are C's, exactly.
// Only the 10 bytes of each number are written; the padding after it is
// left as it was.

/*
#include <string.h>

enum { ldSum, ldProd, ldMax, ldMin, ldReplace, ldNoOp };

// ld_put writes the 10 bytes of the x87 number x at p.
static void ld_put(unsigned char *p, long double x) { memcpy(p, &x, 10); }

// ld_get reads the x87 number at p.
static long double ld_get(const unsigned char *p) {
	long double x = 0;
	memcpy(&x, p, 10);
	return x;
}

// ld_combine sets each of the n items of inout to the item of in op it:
// long doubles 16 bytes apart, or with cplx complex ones (the real part,
// then the imaginary, 16 bytes each) 32 bytes apart.
static void ld_combine(int op, int cplx, const unsigned char *in, unsigned char *inout, long n) {
	long step = cplx ? 32 : 16;
	for (long i = 0; i < n; i++, in += step, inout += step) {
		long double a = ld_get(in), b = ld_get(inout);
		if (cplx) {
			long double c = ld_get(in + 16), d = ld_get(inout + 16);
			if (op == ldSum) {
				ld_put(inout, a + b);
				ld_put(inout + 16, c + d);
			} else if (op == ldProd) {
				long double _Complex z = (a + c * 1.0iL) * (b + d * 1.0iL);
				ld_put(inout, __real__ z);
				ld_put(inout + 16, __imag__ z);
			} else if (op == ldReplace) {
				memcpy(inout, in, 10);
				memcpy(inout + 16, in + 16, 10);
			}
			continue;
		}
		switch (op) {
		case ldSum: ld_put(inout, a + b); break;
		case ldProd: ld_put(inout, a * b); break;
		case ldMax: if (a > b) ld_put(inout, a); break;
		case ldMin: if (a < b) ld_put(inout, a); break;
		case ldReplace: memcpy(inout, in, 10); break;
		}
	}
}
*/
import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// longDoubleTypes are the predefined datatypes of long doubles, each
// with whether it is complex.
var longDoubleTypes = map[int32]bool{typeLongDouble: false, typeCLongDoubleCmplx: true, typeCxxLongDoubleCmpl: true}

// longDoubleOps are the operations on long doubles, by datatype and
// operation: MPI_SUM, MPI_PROD, MPI_MAX and MPI_MIN (the complex ones
// MPI_SUM and MPI_PROD), and for the accumulates MPI_REPLACE and
// MPI_NO_OP.
var longDoubleOps = func() map[[2]int32]mpi.Op {
	codes := map[int32]C.int{opSum: C.ldSum, opProd: C.ldProd, opMax: C.ldMax, opMin: C.ldMin, opReplace: C.ldReplace, opNoOp: C.ldNoOp}
	m := make(map[[2]int32]mpi.Op)
	for dt, cplx := range longDoubleTypes {
		for op, code := range codes {
			if cplx && (op == opMax || op == opMin) {
				continue
			}
			m[[2]int32{dt, op}] = mpi.NewItemOp("long double", predefinedTypes[dt].size, longDoubleCombine(code, cplx), true)
		}
	}
	return m
}()

// longDoubleCombine returns what combines items of long doubles (complex
// ones with cplx) by C's operation code.
func longDoubleCombine(code C.int, cplx bool) func(in, inout []byte) {
	size, c := 16, C.int(0)
	if cplx {
		size, c = 32, 1
	}
	return func(in, inout []byte) {
		if n := len(inout) / size; n > 0 && code != C.ldNoOp {
			C.ld_combine(code, c, (*C.uchar)(unsafe.Pointer(&in[0])), (*C.uchar)(unsafe.Pointer(&inout[0])), C.long(n))
		}
	}
}

// longDoubleReduction resolves a reduction by operation op of items of
// per bytes whose values are all of the long double type dt: reduced as
// bytes by C's arithmetic. Another datatype that no element type holds
// (MPI_REAL16, a quadruple) has no reduction.
func longDoubleReduction(dt, op int32, per int) (reduction, error) {
	if _, ok := longDoubleTypes[dt]; !ok {
		return reduction{}, errorf(errType, "datatype %#x has no reduction here", uint32(dt))
	}
	mop, ok := longDoubleOps[[2]int32{dt, op}]
	if !ok || op == opReplace || op == opNoOp {
		return reduction{}, errorf(errOp, "operation %#x is not defined on datatype %#x", uint32(op), uint32(dt))
	}
	return reduction{r: reducerOf[elemUint8], op: mop, per: per}, nil
}

// longDoubleAccumulate runs an accumulate, as accumulateCall does, whose
// target datatype ttype is of items of the long double type p: origin
// and result of p's items too, combined under the target's accumulate
// lock by C's arithmetic, atomic per item as the other accumulates are.
func longDoubleAccumulate(o *winObj, p int32, origin accBuf, result *accBuf, target int32, tdisp int64, tcount, ttype, op int32, req *int32) (func(), error) {
	mop, ok := longDoubleOps[[2]int32{p, op}]
	if !ok {
		return nil, errorf(errOp, "operation %#x is not defined on datatype %#x", uint32(op), uint32(p))
	}
	if tcount < 0 {
		return nil, errorf(errCount, "negative count %d", tcount)
	}
	err := itemArgs(p, origin, result, op)
	var src, res rmaPlan
	if err == nil {
		src, res, err = accPlans(o, origin, result, target, tdisp, tcount, ttype, op)
	}
	if err == nil {
		err = accRuns(o, typed[uint8]{}, 1, &src, &res, result != nil, mapRank(target), mop, req)
	}
	return res.unpack, err
}
