package main

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// reduction is what a reduction's datatype and operation resolve to: the
// reducer of the element type, the operation and the number of elements
// per item.
type reduction struct {
	r     reducer
	op    mpi.Op
	per   int // elements per item: 2 for the pair types
	ti    typeInfo
	isLoc bool // a struct value/index type, converted to pairs
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
	if ti.elem == elemNone {
		return reduction{}, errorf(errType, "datatype %#x has no reduction here", uint32(dt))
	}
	red := reduction{r: reducerOf[ti.elem], op: o, per: 1, ti: ti}
	switch {
	case ti.pair:
		red.per = 2
	case ti.loc:
		red.per, red.isLoc = 2, true
		red.r = reducerOf[locElem(ti)]
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
	if !ok || k == elemNone {
		return reduction{}, errorf(errType, "datatype %#x: reductions take the predefined datatypes and the contiguous derived ones of one element type", uint32(dt))
	}
	return reduction{r: reducerOf[k], op: o, per: size / elemSizes[k]}, nil
}

// locElem is the element type that the struct value/index types convert
// to: int64 pairs for MPI_LONG_INT, float64 pairs for the others (exact
// for float, double, short and int).
func locElem(ti typeInfo) elemKind {
	if ti.elem == elemInt64 {
		return elemInt64
	}
	return elemFloat64
}

// toPairs copies n struct value/index items at p into a new buffer of
// pairs of the reduction's element type.
func (red reduction) toPairs(p unsafe.Pointer, n int) unsafe.Pointer {
	out := make([]float64, 2*n) // int64 pairs reuse the same 8-byte words
	for i := 0; i < n; i++ {
		item := unsafe.Add(p, i*red.ti.size)
		idx := *(*int32)(unsafe.Add(item, red.ti.locOffset))
		if red.ti.elem == elemInt64 {
			ints := (*[2]int64)(unsafe.Pointer(&out[2*i]))
			ints[0], ints[1] = *(*int64)(item), int64(idx)
			continue
		}
		out[2*i], out[2*i+1] = locValue(item, red.ti.elem), float64(idx)
	}
	return unsafe.Pointer(unsafe.SliceData(out))
}

// locValue reads the value of a struct value/index item as a float64.
func locValue(item unsafe.Pointer, k elemKind) float64 {
	switch k {
	case elemFloat32:
		return float64(*(*float32)(item))
	case elemInt16:
		return float64(*(*int16)(item))
	}
	return *(*float64)(item)
}

// fromPairs copies n pairs at q back into the struct items at p.
func (red reduction) fromPairs(q, p unsafe.Pointer, n int) {
	for i := 0; i < n; i++ {
		item := unsafe.Add(p, i*red.ti.size)
		pair := unsafe.Add(q, 16*i)
		if red.ti.elem == elemInt64 {
			ints := (*[2]int64)(pair)
			*(*int64)(item) = ints[0]
			*(*int32)(unsafe.Add(item, red.ti.locOffset)) = int32(ints[1])
			continue
		}
		fs := (*[2]float64)(pair)
		switch red.ti.elem {
		case elemFloat32:
			*(*float32)(item) = float32(fs[0])
		case elemInt16:
			*(*int16)(item) = int16(fs[0])
		default:
			*(*float64)(item) = fs[0]
		}
		*(*int32)(unsafe.Add(item, red.ti.locOffset)) = int32(fs[1])
	}
}

// locBuffers converts the send and receive buffers of a reduction of
// struct value/index items to pairs; done copies the result back.
func (red reduction) locBuffers(send, recv unsafe.Pointer, n int, hasRecv bool) (s, r unsafe.Pointer, done func()) {
	s = send
	if !isInPlace(send) {
		s = red.toPairs(send, n)
	}
	if !hasRecv {
		return s, nil, func() {}
	}
	r = red.toPairs(recv, n)
	return s, r, func() { red.fromPairs(r, recv, n) }
}

// reduceCall runs a reduction of n items on send and recv through f,
// converting struct value/index items to pairs and back around it.
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
	if !red.isLoc {
		return f(send, recv, n*red.per)
	}
	s, r, done := red.locBuffers(send, recv, n, hasRecv)
	if err := f(s, r, n*red.per); err != nil {
		return err
	}
	done()
	return nil
}
