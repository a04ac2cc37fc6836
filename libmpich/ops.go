package main

import (
	"sync"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// opObj is an operation that MPI_Op_create made.
type opObj struct {
	fn      uintptr // the C MPI_User_function
	commute bool
	mu      sync.Mutex
	byType  map[int32]mpi.Op // the package mpi operation for each datatype
}

// elemOfSize is the element kind whose size is an item of n bytes, so that
// package mpi never splits an item.
func elemOfSize(n int) (elemKind, bool) {
	switch n {
	case 1:
		return elemUint8, true
	case 2:
		return elemUint16, true
	case 4:
		return elemUint32, true
	case 8:
		return elemUint64, true
	case 16:
		return elemComplex128, true
	}
	return elemNone, false
}

// userReduction resolves a reduction by user operation o on datatype dt.
func userReduction(o *opObj, dt int32) (reduction, error) {
	size, ok := contiguousSize(dt)
	if !ok {
		return reduction{}, errorf(errType, "datatype %#x: user operations take the predefined and contiguous datatypes only", uint32(dt))
	}
	k, ok := elemOfSize(size)
	if !ok {
		return reduction{}, errorf(errType, "datatype %#x: user operations on %d-byte items are not supported", uint32(dt), size)
	}
	r := reducerOf[k]
	o.mu.Lock()
	defer o.mu.Unlock()
	op, ok := o.byType[dt]
	if !ok {
		fn := o.fn
		op = r.userOp("MPI_Op_create", func(in, inout unsafe.Pointer, n int) {
			callUserOp(fn, in, inout, int32(n), dt)
		}, o.commute)
		o.byType[dt] = op
	}
	return reduction{r: r, op: op, per: 1}, nil
}
