package main

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// elemKind is the Go element type that a predefined datatype's values are,
// for the operations that look at values (reductions); the others move
// bytes.
type elemKind uint8

// The element kinds.
const (
	elemNone elemKind = iota // bytes only: no reduction applies
	elemInt8
	elemUint8
	elemInt16
	elemUint16
	elemInt32
	elemUint32
	elemInt64
	elemUint64
	elemFloat32
	elemFloat64
	elemComplex64
	elemComplex128
)

// typeInfo describes a predefined datatype.
type typeInfo struct {
	size int      // bytes of one item
	elem elemKind // the type of its values
	// pair is set for the value/index types of MPI_MINLOC and MPI_MAXLOC
	// whose two halves are of one type (MPI_2INT, ...): an item is two
	// elements.
	pair bool
	// loc is set for the struct value/index types (MPI_DOUBLE_INT, ...):
	// the value of kind elem at offset 0, an int at offset locOffset.
	loc       bool
	locOffset int
}

// locValueSize returns the size of the value of a struct value/index
// type: its element type's, or long double's 16 bytes.
func (ti typeInfo) locValueSize() int {
	if ti.elem != elemNone {
		return elemSizes[ti.elem]
	}
	return ti.locOffset
}

// predefinedTypes are the predefined datatypes by handle.
var predefinedTypes = map[int32]typeInfo{
	typeChar: {1, elemInt8, false, false, 0}, typeSignedChar: {1, elemInt8, false, false, 0},
	typeInt8: {1, elemInt8, false, false, 0}, typeInteger1: {1, elemInt8, false, false, 0},
	typeUnsignedChar: {1, elemUint8, false, false, 0}, typeByte: {1, elemUint8, false, false, 0},
	typeUint8: {1, elemUint8, false, false, 0}, typePacked: {1, elemUint8, false, false, 0},
	typeCharacter: {1, elemUint8, false, false, 0}, typeCBool: {1, elemUint8, false, false, 0},
	typeCxxBool: {1, elemUint8, false, false, 0},
	typeShort:   {2, elemInt16, false, false, 0}, typeInt16: {2, elemInt16, false, false, 0},
	typeInteger2:      {2, elemInt16, false, false, 0},
	typeUnsignedShort: {2, elemUint16, false, false, 0}, typeUint16: {2, elemUint16, false, false, 0},
	typeFloat16: {2, elemNone, false, false, 0},
	typeInt:     {4, elemInt32, false, false, 0}, typeInt32: {4, elemInt32, false, false, 0},
	typeInteger: {4, elemInt32, false, false, 0}, typeInteger4: {4, elemInt32, false, false, 0},
	typeLogical: {4, elemInt32, false, false, 0}, typeWchar: {4, elemInt32, false, false, 0},
	typeUnsigned: {4, elemUint32, false, false, 0}, typeUint32: {4, elemUint32, false, false, 0},
	typeFloat: {4, elemFloat32, false, false, 0}, typeReal: {4, elemFloat32, false, false, 0},
	typeReal4: {4, elemFloat32, false, false, 0},
	typeLong:  {8, elemInt64, false, false, 0}, typeLongLong: {8, elemInt64, false, false, 0},
	typeInt64: {8, elemInt64, false, false, 0}, typeInteger8: {8, elemInt64, false, false, 0},
	typeAint: {8, elemInt64, false, false, 0}, typeOffset: {8, elemInt64, false, false, 0},
	typeCount:        {8, elemInt64, false, false, 0},
	typeUnsignedLong: {8, elemUint64, false, false, 0}, typeUnsignedLongLong: {8, elemUint64, false, false, 0},
	typeUint64: {8, elemUint64, false, false, 0},
	typeDouble: {8, elemFloat64, false, false, 0}, typeDoublePrecision: {8, elemFloat64, false, false, 0},
	typeReal8:   {8, elemFloat64, false, false, 0},
	typeComplex: {8, elemComplex64, false, false, 0}, typeCFloatComplex: {8, elemComplex64, false, false, 0},
	typeComplex8: {8, elemComplex64, false, false, 0}, typeCxxFloatComplex: {8, elemComplex64, false, false, 0},
	typeDoubleComplex: {16, elemComplex128, false, false, 0}, typeComplex16: {16, elemComplex128, false, false, 0},
	typeCDoubleComplex: {16, elemComplex128, false, false, 0}, typeCxxDoubleComplex: {16, elemComplex128, false, false, 0},
	typeLongDouble: {16, elemNone, false, false, 0}, typeReal16: {16, elemNone, false, false, 0},
	typeComplex32: {32, elemNone, false, false, 0}, typeCLongDoubleCmplx: {32, elemNone, false, false, 0},
	typeCxxLongDoubleCmpl: {32, elemNone, false, false, 0},
	type2Int:              {8, elemInt32, true, false, 0}, type2Integer: {8, elemInt32, true, false, 0},
	type2Real: {8, elemFloat32, true, false, 0}, type2DoublePrecision: {16, elemFloat64, true, false, 0},
	typeFloatInt: {8, elemFloat32, false, true, 4}, typeDoubleInt: {16, elemFloat64, false, true, 8},
	typeLongInt: {16, elemInt64, false, true, 8}, typeShortInt: {8, elemInt16, false, true, 4},
	typeLongDoubleInt: {32, elemNone, false, true, 16},
}

// predefinedOps are package mpi's operations by the handles of MPI's
// predefined ones (MPI_REPLACE and MPI_NO_OP apply to one-sided
// operations only).
var predefinedOps = map[int32]mpi.Op{
	opMax: mpi.Max, opMin: mpi.Min, opSum: mpi.Sum, opProd: mpi.Prod,
	opLAnd: mpi.LAnd, opBAnd: mpi.BAnd, opLOr: mpi.LOr, opBOr: mpi.BOr,
	opLXor: mpi.LXor, opBXor: mpi.BXor, opMinLoc: mpi.MinLoc, opMaxLoc: mpi.MaxLoc,
}

// byteSlice returns the n bytes at p as a slice; a non-nil empty one for
// n == 0, since package mpi's collectives read a nil send buffer as
// MPI_IN_PLACE.
func byteSlice(p unsafe.Pointer, n int) []byte {
	if n <= 0 || p == nil {
		return unsafe.Slice((*byte)(unsafe.Pointer(&emptyElems)), 0)
	}
	return unsafe.Slice((*byte)(p), n)
}

// emptyElems backs the empty non-nil slices of byteSlice and typedSlice: large
// and aligned enough for any element type.
var emptyElems [2]complex128

// isInPlace reports whether p is MPI_IN_PLACE.
func isInPlace(p unsafe.Pointer) bool { return uintptr(p) == inPlaceAddr }

// typedSlice returns the n elements of type T at p (non-nil when empty).
func typedSlice[T mpi.Type](p unsafe.Pointer, n int) []T {
	if n <= 0 || p == nil {
		return unsafe.Slice((*T)(unsafe.Pointer(&emptyElems)), 0)
	}
	return unsafe.Slice((*T)(p), n)
}

// reducer applies the reductions of package mpi to buffers of one element
// type.
type reducer interface {
	reduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, root int) error
	allreduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op) error
	scan(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, exclusive bool) error
	reduceScatterBlock(c *mpi.Comm, send, recv unsafe.Pointer, n, total int, op mpi.Op) error
	reduceScatter(c *mpi.Comm, send, recv unsafe.Pointer, counts []int, total int, op mpi.Op) error
	reduceLocal(in, inout unsafe.Pointer, n int, op mpi.Op) error
	iallreduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op) (*mpi.Request, error)
	ireduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, root int) (*mpi.Request, error)
	iscan(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, exclusive bool) (*mpi.Request, error)
	ireduceScatterBlock(c *mpi.Comm, send, recv unsafe.Pointer, n, total int, op mpi.Op) (*mpi.Request, error)
	ireduceScatter(c *mpi.Comm, send, recv unsafe.Pointer, counts []int, total int, op mpi.Op) (*mpi.Request, error)
	userOp(name string, f func(in, inout unsafe.Pointer, n int), commute bool) mpi.Op
}

// reducerOf is the reducer of each element kind.
var reducerOf = [...]reducer{
	elemInt8: typed[int8]{}, elemUint8: typed[uint8]{}, elemInt16: typed[int16]{},
	elemUint16: typed[uint16]{}, elemInt32: typed[int32]{}, elemUint32: typed[uint32]{},
	elemInt64: typed[int64]{}, elemUint64: typed[uint64]{}, elemFloat32: typed[float32]{},
	elemFloat64: typed[float64]{}, elemComplex64: typed[complex64]{}, elemComplex128: typed[complex128]{},
}

// typed is the reducer of element type T.
type typed[T mpi.Type] struct{}

// sendOrInPlace returns the send buffer, nil for MPI_IN_PLACE.
func sendOrInPlace[T mpi.Type](p unsafe.Pointer, n int) []T {
	if isInPlace(p) {
		return nil
	}
	return typedSlice[T](p, n)
}

func (typed[T]) reduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, root int) error {
	return mpi.Reduce(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op, root)
}

func (typed[T]) allreduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op) error {
	return mpi.Allreduce(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op)
}

func (typed[T]) iallreduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op) (*mpi.Request, error) {
	return mpi.Iallreduce(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op)
}

func (typed[T]) ireduce(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, root int) (*mpi.Request, error) {
	return mpi.Ireduce(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op, root)
}

func (typed[T]) iscan(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, exclusive bool) (*mpi.Request, error) {
	if exclusive {
		return mpi.Iexscan(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op)
	}
	return mpi.Iscan(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op)
}

func (typed[T]) ireduceScatterBlock(c *mpi.Comm, send, recv unsafe.Pointer, n, total int, op mpi.Op) (*mpi.Request, error) {
	if isInPlace(send) {
		return mpi.IreduceScatterBlock(c, nil, typedSlice[T](recv, total), op)
	}
	return mpi.IreduceScatterBlock(c, typedSlice[T](send, total), typedSlice[T](recv, n), op)
}

// userOp returns an operation on elements of type T that calls f with the
// addresses of the operands and their number of elements.
func (typed[T]) userOp(name string, f func(in, inout unsafe.Pointer, n int), commute bool) mpi.Op {
	return mpi.NewOp(name, func(in, inout []T) {
		if len(inout) > 0 {
			f(unsafe.Pointer(unsafe.SliceData(in)), unsafe.Pointer(unsafe.SliceData(inout)), len(inout))
		}
	}, commute)
}

func (typed[T]) scan(c *mpi.Comm, send, recv unsafe.Pointer, n int, op mpi.Op, exclusive bool) error {
	if exclusive {
		return mpi.Exscan(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op)
	}
	return mpi.Scan(c, sendOrInPlace[T](send, n), typedSlice[T](recv, n), op)
}

func (typed[T]) reduceScatterBlock(c *mpi.Comm, send, recv unsafe.Pointer, n, total int, op mpi.Op) error {
	if isInPlace(send) {
		return mpi.ReduceScatterBlock(c, nil, typedSlice[T](recv, total), op)
	}
	return mpi.ReduceScatterBlock(c, typedSlice[T](send, total), typedSlice[T](recv, n), op)
}

func (typed[T]) reduceScatter(c *mpi.Comm, send, recv unsafe.Pointer, counts []int, total int, op mpi.Op) error {
	if isInPlace(send) {
		return mpi.ReduceScatter(c, nil, typedSlice[T](recv, total), counts, op)
	}
	return mpi.ReduceScatter(c, typedSlice[T](send, total), typedSlice[T](recv, counts[c.Rank()]), counts, op)
}

func (typed[T]) reduceLocal(in, inout unsafe.Pointer, n int, op mpi.Op) error {
	return mpi.ReduceLocal(typedSlice[T](in, n), typedSlice[T](inout, n), op)
}
