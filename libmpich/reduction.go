package main

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// reduction is what a reduction's datatype and operation resolve to: the
// reducer of the element type, the operation and the number of elements
// per item.
type reduction struct {
	r   reducer
	op  mpi.Op
	per int // elements per item: 2 for the pair types
	// gaps is the handle of a derived datatype whose items are not
	// contiguous, reduced by a user operation: its items are packed
	// around the reduction (staged). 0 for the others.
	gaps int32
}

// staged returns the send and receive buffers of a reduction of red:
// those given, or where red.gaps is set, the send buffer's n items
// packed (MPI_IN_PLACE kept) and the receive buffer's m items staged in
// st (none, and recv as given, when m is negative: not significant here).
func (red reduction) staged(st *staging, send, recv unsafe.Pointer, n, m int) (unsafe.Pointer, unsafe.Pointer, error) {
	if red.gaps == 0 {
		return send, recv, nil
	}
	if !isInPlace(send) {
		b, err := st.send(send, int64(n), red.gaps)
		if err != nil {
			return nil, nil, err
		}
		send = bytesPointer(b)
	}
	if m >= 0 {
		b, err := st.recv(recv, int64(m), red.gaps)
		if err != nil {
			return nil, nil, err
		}
		recv = bytesPointer(b)
	}
	return send, recv, nil
}

// bytesPointer returns the address of b's first byte (nil when empty).
func bytesPointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

// scatterStaged is staged for a reduce-scatter over total items of which
// the caller gets mine: in place, the receive buffer holds all of them.
func (red reduction) scatterStaged(st *staging, send, recv unsafe.Pointer, total, mine int) (unsafe.Pointer, unsafe.Pointer, error) {
	if err := checkItems(total); err != nil {
		return nil, nil, err
	}
	if isInPlace(send) {
		mine = total
	}
	return red.staged(st, send, recv, total, mine)
}

// reductionArg resolves datatype dt and operation op of a reduction.
func reductionArg(dt, op int32) (reduction, error) {
	if uo, ok := userOps.get(op); ok {
		return userReduction(uo, dt)
	}
	ti, ok := predefinedTypes[dt]
	if !ok {
		return derivedReduction(dt, op)
	}
	o, ok := predefinedOps[op]
	if !ok {
		return reduction{}, errorf(errOp, "invalid operation %#x", uint32(op))
	}
	if ti.loc {
		return pairReduction(dt, op)
	}
	if ti.elem == elemNone {
		return longDoubleReduction(dt, op, ti.size)
	}
	red := reduction{r: reducerOf[ti.elem], op: o, per: 1}
	if ti.pair {
		red.per = 2
	}
	return red, nil
}

// derivedReduction resolves a reduction by predefined operation op of a
// derived datatype dt: a contiguous one whose values are all of one
// element type.
func derivedReduction(dt, op int32) (reduction, error) {
	o, ok := predefinedOps[op]
	if !ok {
		return reduction{}, errorf(errOp, "invalid operation %#x", uint32(op))
	}
	size, ok := contiguousSize(dt)
	k := elemOf(dt)
	if _, long := longDoubleTypes[itemTypeOf(dt)]; ok && long {
		return longDoubleReduction(itemTypeOf(dt), op, size)
	}
	if !ok || k == elemNone {
		return reduction{}, errorf(errType, "datatype %#x: reductions take the predefined datatypes and the contiguous derived ones of one element type", uint32(dt))
	}
	return reduction{r: reducerOf[k], op: o, per: size / elemSizes[k]}, nil
}

// reduceCall runs a reduction of n items on send and recv through f,
// staging them around it where red.gaps says.
func reduceCall(red reduction, send, recv unsafe.Pointer, n int, hasRecv bool, f func(s, r unsafe.Pointer, elems int) error) error {
	if err := checkItems(n); err != nil {
		return err
	}
	if red.gaps != 0 {
		var st staging
		m := -1
		if hasRecv {
			m = n
		}
		s, r, err := red.staged(&st, send, recv, n, m)
		if err != nil {
			return err
		}
		return st.after(f(s, r, n*red.per))
	}
	return f(send, recv, n*red.per)
}
