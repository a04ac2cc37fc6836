package main

import (
	"sync"
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// opObj is an operation that MPI_Op_create made.
type opObj struct {
	fn      uintptr // the C MPI_User_function
	large   bool    // fn is an MPI_User_function_c (MPI_Op_create_c)
	commute bool
	mu      sync.Mutex
	byType  map[int32]typedOp // the package mpi operation for each datatype
}

// typedOp is a user operation made for a datatype: dt is the derived
// datatype it was made for (nil for a predefined one), since a freed
// datatype's handle may name another one later.
type typedOp struct {
	op mpi.Op
	dt *mpi.Datatype
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
// Contiguous items of 1, 2, 4, 8 or 16 bytes reduce as elements of that
// size. Any other items reduce as items of their size in bytes
// (mpi.NewItemOp), and items that are not contiguous are also packed
// around the reduction (reduction.gaps) and laid out by their datatype
// again for each call of the program's function, which reads them so.
func userReduction(o *opObj, dt int32) (reduction, error) {
	size, ok := dataSize(dt)
	if !ok || size == 0 {
		return reduction{}, errorf(errType, "datatype %#x: no items for a user operation to combine", uint32(dt))
	}
	var d *mpi.Datatype
	if t, ok := userTypes.get(dt); ok {
		d = t.dt
		if d.TrueLowerBound() < 0 || t.neg != nil {
			return reduction{}, errorf(errType, "a user operation on a datatype whose data precede its items' origin (negative lower bound or extent): not supported")
		}
	}
	csize, contiguous := contiguousSize(dt)
	k, small := elemOfSize(csize)
	o.mu.Lock()
	defer o.mu.Unlock()
	cached, ok := o.byType[dt]
	if !ok || cached.dt != d {
		fn, large := o.fn, o.large
		if contiguous && small {
			cached.op = reducerOf[k].userOp("MPI_Op_create", func(in, inout unsafe.Pointer, n int) {
				callUserOp(fn, large, in, inout, n, dt)
			}, o.commute)
		} else {
			cached.op = mpi.NewItemOp("MPI_Op_create", size, itemOpFunc(fn, large, dt, d, size, contiguous), o.commute)
		}
		cached.dt = d
		o.byType[dt] = cached
	}
	if contiguous && small {
		return reduction{r: reducerOf[k], op: cached.op, per: 1}, nil
	}
	red := reduction{r: reducerOf[elemUint8], op: cached.op, per: size}
	if !contiguous {
		red.gaps = dt
	}
	return red, nil
}

// itemOpFunc returns what calls the program's function fn (of
// MPI_Op_create_c if large) on whole items of datatype dt (d, if
// derived), size bytes each: on the packed items as they are when they
// are contiguous, else on copies laid out by d.
func itemOpFunc(fn uintptr, large bool, dt int32, d *mpi.Datatype, size int, contiguous bool) func(in, inout []byte) {
	return func(in, inout []byte) {
		n := len(inout) / size
		switch {
		case n == 0:
		case contiguous:
			callUserOp(fn, large, unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), n, dt)
		default:
			span := (n-1)*d.Extent() + d.TrueLowerBound() + d.TrueExtent()
			a, b := make([]byte, span), make([]byte, span)
			// The same items packed and unpacked: none of these can fail.
			_, _ = mpi.Unpack(in, a, n, d)
			_, _ = mpi.Unpack(inout, b, n, d)
			callUserOp(fn, large, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), n, dt)
			_, _ = mpi.Pack(b, n, d, inout)
		}
	}
}
