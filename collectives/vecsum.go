package collectives

import (
	"reflect"

	"gonum.org/v1/gonum/blas/gonum"
)

// Sums of floating-point vectors, the reduction of most large MPI
// vectors, through AVX2 kernels of their own on amd64 (vecsum_amd64.s)
// and gonum's vector kernels elsewhere: on amd64 and arm64 gonum's are
// written in assembly (SSE on amd64) and add several elements per
// instruction, where the compiler's loop adds one. Up to shortTail
// elements (a short vector, or a kernel's tail) the loop costs less than
// the call. Every element's sum is the same IEEE
// addition as the loop's, so results do not change (the kernels
// compute y += 1·x, and 1·x is x exactly).

// blas is gonum's native BLAS implementation (no state).
var blas gonum.Implementation

// sumFloat64 sets inout[i] = in[i] + inout[i] on float64 elements: in
// AVX2 where the CPU has it (addVectors), the rest through gonum; up to
// shortTail elements, a vector or the kernel's tail, by a loop.
func sumFloat64(in, inout []byte) {
	if len(inout) <= shortTail*8 {
		addShort(view[float64](in), view[float64](inout))
		return
	}
	done := addVectors(in, inout, true)
	a, b := view[float64](in[done:]), view[float64](inout[done:])
	if len(b) <= shortTail {
		addShort(a, b)
		return
	}
	blas.Daxpy(len(b), 1, a[:len(b)], 1, b, 1)
}

// shortTail is the most elements addShort adds: below, gonum's call and
// checks cost more than the loop (docs/decisions.md, shortTail).
const shortTail = 8

// addShort sets b[i] = a[i] + b[i], the compiler's loop.
func addShort[E float32 | float64](a, b []E) {
	a = a[:len(b)]
	for i := range b {
		b[i] = a[i] + b[i]
	}
}

// sumFloat32 sets inout[i] = in[i] + inout[i] on float32 elements, as
// sumFloat64 does.
func sumFloat32(in, inout []byte) {
	if len(inout) <= shortTail*4 {
		addShort(view[float32](in), view[float32](inout))
		return
	}
	done := addVectors(in, inout, false)
	a, b := view[float32](in[done:]), view[float32](inout[done:])
	if len(b) <= shortTail {
		addShort(a, b)
		return
	}
	blas.Saxpy(len(b), 1, a[:len(b)], 1, b, 1)
}

// useVectorSums puts the vector kernels in the table of Apply functions:
// complex sums are sums of their parts.
func useVectorSums(t *[opMaxLoc + 1][reflect.Complex128 + 1]func(in, inout []byte)) {
	t[opSum][reflect.Float64] = sumFloat64
	t[opSum][reflect.Complex128] = sumFloat64
	t[opSum][reflect.Float32] = sumFloat32
	t[opSum][reflect.Complex64] = sumFloat32
}
