package main

// Counts: MPI-4.0's large-count (_c) functions take MPI_Count counts and
// arrays of MPI_Count counts and MPI_Aint displacements where the others
// take C ints. Both forms share one body that takes int64 counts and
// cArray views of the C arrays; a count no buffer can hold (negative, or
// more bytes than an address space spans) is MPI_ERR_COUNT.

import (
	"math"
	"unsafe"
)

// maxSpan is the most bytes one buffer may span: 2^47, the user address
// space of x86-64 (arm64's is 2^48). A count of more is MPI_ERR_COUNT.
const maxSpan = 1 << 47

// maxPlainItems is the most items of a predefined datatype (of at most
// 255 bytes) that plainBytes takes without checking their span.
const maxPlainItems = maxSpan / 256

// checkCount returns nil if count items, each stride bytes further,
// fit one buffer; else an MPI_ERR_COUNT error: a negative count, or one
// spanning more than maxSpan bytes.
func checkCount(count int64, stride int) error {
	if count < 0 {
		return errorf(errCount, "invalid count %d", count)
	}
	if stride > 0 && count > maxSpan/int64(stride) {
		return errorf(errCount, "count %d of %d-byte items: more than the %d bytes a buffer can span", count, stride, int64(maxSpan))
	}
	return nil
}

// checkItems is checkCount for n items of a reduction (of at least a
// byte each).
func checkItems(n int) error { return checkCount(int64(n), 1) }

// blockItems returns count items per block times n blocks, saturated at
// math.MaxInt64 so that cbufOf refuses it rather than a wrapped product.
func blockItems(count int64, n int) int64 {
	if n > 0 && count > math.MaxInt64/int64(n) {
		return math.MaxInt64
	}
	return count * int64(n)
}

// cArray is a C array of counts or displacements: of C ints (the MPI-3
// functions) or, wide, of 64-bit MPI_Count or MPI_Aint values (their _c
// forms, and the MPI_Aint displacements of any form). Reading it copies
// nothing.
type cArray struct {
	p    unsafe.Pointer
	wide bool
}

// cInts is the C int array at p.
func cInts(p unsafe.Pointer) cArray { return cArray{p: p} }

// cWide is the MPI_Count or MPI_Aint array at p.
func cWide(p unsafe.Pointer) cArray { return cArray{p: p, wide: true} }

// cCounts is the count array at p of a _c function (large) or of the
// other form.
func cCounts(p unsafe.Pointer, large bool) cArray { return cArray{p: p, wide: large} }

// at returns element i.
func (a cArray) at(i int) int {
	if a.wide {
		return int(*(*int64)(unsafe.Add(a.p, 8*i)))
	}
	return int(*(*int32)(unsafe.Add(a.p, 4*i)))
}

// scaled returns the first n elements multiplied by size (counts and
// displacements in items become bytes): zeros for a nil array.
func (a cArray) scaled(n, size int) []int {
	out := make([]int, max(n, 0))
	if a.p == nil {
		return out
	}
	for i := range out {
		out[i] = a.at(i) * size
	}
	return out
}

// countsOK returns an MPI_ERR_COUNT error if one of the first n counts
// is negative.
func (a cArray) countsOK(n int) error {
	if a.p == nil {
		return nil
	}
	for i := range n {
		if c := a.at(i); c < 0 {
			return errorf(errCount, "invalid count %d of process %d", c, i)
		}
	}
	return nil
}
