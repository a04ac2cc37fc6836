package main

// The accumulates of one-sided communication (MPI_Accumulate,
// MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap and the
// request forms): the windows are of bytes, which package mpi lets take
// accumulates of any element type, so each call runs at the element type
// of its datatype.

import "C"

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// accumulator is what an element type does for the accumulates.
type accumulator interface {
	// accumulate is MPI_Accumulate (result nil) or MPI_Get_accumulate,
	// of n elements at byte displacement disp of target's window.
	accumulate(w *mpi.Win, origin, result unsafe.Pointer, n, target, disp int, op mpi.Op) error
	// raccumulate is accumulate's request form.
	raccumulate(w *mpi.Win, origin, result unsafe.Pointer, n, target, disp int, op mpi.Op) (*mpi.Request, error)
	// compareAndSwap is MPI_Compare_and_swap of one element.
	compareAndSwap(w *mpi.Win, origin, compare, result unsafe.Pointer, target, disp int) error
}

var _ accumulator = typed[int8]{}

func (typed[T]) accumulate(w *mpi.Win, origin, result unsafe.Pointer, n, target, disp int, op mpi.Op) error {
	if result == nil {
		return mpi.Accumulate(w, typedSlice[T](origin, n), target, disp, op)
	}
	return mpi.GetAccumulate(w, typedSlice[T](origin, n), typedSlice[T](result, n), target, disp, op)
}

func (typed[T]) raccumulate(w *mpi.Win, origin, result unsafe.Pointer, n, target, disp int, op mpi.Op) (*mpi.Request, error) {
	if result == nil {
		return mpi.Raccumulate(w, typedSlice[T](origin, n), target, disp, op)
	}
	return mpi.RgetAccumulate(w, typedSlice[T](origin, n), typedSlice[T](result, n), target, disp, op)
}

func (typed[T]) compareAndSwap(w *mpi.Win, origin, compare, result unsafe.Pointer, target, disp int) error {
	old, err := mpi.CompareAndSwap(w, *(*T)(compare), *(*T)(origin), target, disp)
	if err == nil {
		*(*T)(result) = old
	}
	return err
}

// rmaOp returns the operation of handle op for an accumulate: a
// predefined one, MPI_REPLACE or MPI_NO_OP (MPI allows no user-defined
// operation there).
func rmaOp(op int32) (mpi.Op, error) {
	switch op {
	case opReplace:
		return mpi.Replace, nil
	case opNoOp:
		return mpi.NoOp, nil
	}
	if o, ok := predefinedOps[op]; ok {
		return o, nil
	}
	return mpi.Op{}, errorf(errOp, "operation %#x: accumulates take the predefined operations, MPI_REPLACE and MPI_NO_OP", uint32(op))
}

// accElems returns the element type of datatype dt and the number of its
// elements in count items: dt is a predefined datatype of one element
// type, a pair type (MPI_2INT, ...) or a derived datatype of one element
// type, as MPI requires of an accumulate's datatypes.
func accElems(dt, count int32) (elemKind, int, error) {
	if count < 0 {
		return elemNone, 0, errorf(errCount, "negative count %d", count)
	}
	if ti, ok := predefinedTypes[dt]; ok && ti.loc {
		return elemNone, 0, errorf(errType, "datatype %#x: value/index items accumulate only into a target datatype of the same items", uint32(dt))
	} else if ok && ti.elem == elemNone {
		return elemNone, 0, errorf(errType, "datatype %#x: no arithmetic on its values here", uint32(dt))
	}
	size, ok := dataSize(dt)
	k := elemOf(dt)
	if !ok || k == elemNone {
		return elemNone, 0, errorf(errType, "datatype %#x: accumulates take the predefined datatypes and the derived ones of one element type", uint32(dt))
	}
	return k, int(count) * size / elemSizes[k], nil
}

// accBuf is an origin's buffer of an accumulate: count items of
// datatype dt at p. A call without a result buffer passes none (nil):
// no datatype handle can mark it, since those of derived datatypes are
// negative as int32 (their top bit is set).
type accBuf struct {
	p         unsafe.Pointer
	count, dt int32
}

// accArgs resolves an accumulate's arguments: the element type and the
// number of elements, which origin (unless op is MPI_NO_OP), target and
// result (when there is one) must agree on, and the operation.
func accArgs(origin accBuf, result *accBuf, tcount, ttype, op int32) (k elemKind, mop mpi.Op, err error) {
	if mop, err = rmaOp(op); err != nil {
		return elemNone, mop, err
	}
	k, n, err := accElems(ttype, tcount)
	if err != nil {
		return elemNone, mop, err
	}
	side := func(name string, b accBuf) error {
		bk, bn, err := accElems(b.dt, b.count)
		if err == nil && (bn != n || bk != k && n != 0) {
			err = errorf(errArg, "%s of %d elements of kind %d, target of %d of kind %d", name, bn, bk, n, k)
		}
		return err
	}
	if op != opNoOp {
		err = side("origin", origin)
	}
	if err == nil && result != nil {
		err = side("result", *result)
	}
	if err != nil {
		return elemNone, mop, err
	}
	return k, mop, nil
}

// accPlans resolves an accumulate's origin and result (if not nil):
// plans whose runs are the target's (the origin's of an MPI_NO_OP, which
// moves none of its data, as bytes of the target's size).
func accPlans(o *winObj, origin accBuf, result *accBuf, target int32, tdisp int64, tcount, ttype, op int32) (src, res rmaPlan, err error) {
	if op == opNoOp {
		size, _ := dataSize(ttype)
		src.data = make([]byte, int(tcount)*size)
		src.runs, err = targetRuns(o, target, tdisp, tcount, ttype, len(src.data))
	} else {
		src, err = planRMA(o, origin.p, origin.count, origin.dt, false, target, tdisp, tcount, ttype)
	}
	if err == nil && result != nil {
		res, err = planRMA(o, result.p, result.count, result.dt, true, target, tdisp, tcount, ttype)
	}
	return src, res, err
}

// accumulateCall runs MPI_Accumulate, MPI_Get_accumulate and their
// request forms (req non-nil); result is nil for those without a result.
// A target datatype of struct value/index items (MPI_DOUBLE_INT ...)
// takes pairAccumulate's way, one of long doubles longDoubleAccumulate's,
// any other elemAccumulate's.
func accumulateCall(fn string, origin accBuf, result *accBuf, target int32, tdisp int64, tcount, ttype, op, win int32, req *int32) int32 {
	o, rc := winArg(fn, win)
	if rc != errSuccess {
		return rc
	}
	var unpack func()
	var err error
	p := itemTypeOf(ttype)
	_, long := longDoubleTypes[p]
	switch {
	case long:
		unpack, err = longDoubleAccumulate(o, p, origin, result, target, tdisp, tcount, ttype, op, req)
	case p != 0:
		unpack, err = pairAccumulate(o, p, origin, result, target, tdisp, tcount, ttype, op, req)
	default:
		unpack, err = elemAccumulate(o, origin, result, target, tdisp, tcount, ttype, op, req)
	}
	if err == nil && req == nil && unpack != nil {
		o.pending.add(target, unpack)
	}
	return winCheck(fn, o, err)
}

// elemAccumulate runs an accumulate of a target datatype of one element
// type, as accumulateCall does, and returns what unpacks the result once
// the accumulate has completed (nil: nothing).
func elemAccumulate(o *winObj, origin accBuf, result *accBuf, target int32, tdisp int64, tcount, ttype, op int32, req *int32) (func(), error) {
	k, mop, err := accArgs(origin, result, tcount, ttype, op)
	var src, res rmaPlan
	if err == nil {
		src, res, err = accPlans(o, origin, result, target, tdisp, tcount, ttype, op)
	}
	if err == nil {
		err = accRuns(o, reducerOf[k].(accumulator), elemSizes[k], &src, &res, result != nil, mapRank(target), mop, req)
	}
	return res.unpack, err
}

// accRuns runs an accumulate of plans src and res (with a result if get)
// run by run, of elements of size bytes; with req, as a request stored
// there.
func accRuns(o *winObj, acc accumulator, size int, src, res *rmaPlan, get bool, target int, op mpi.Op, req *int32) error {
	resultAt := func(pos int) unsafe.Pointer {
		if !get {
			return nil
		}
		return unsafe.Pointer(unsafe.SliceData(res.data[pos:]))
	}
	if req == nil {
		pos := 0
		return src.each(func(b []byte, at int) error {
			err := acc.accumulate(o.w, unsafe.Pointer(unsafe.SliceData(b)), resultAt(pos), len(b)/size, target, at, op)
			pos += len(b)
			return err
		})
	}
	var rs []*mpi.Request
	pos := 0
	err := src.each(func(b []byte, at int) error {
		r, err := acc.raccumulate(o.w, unsafe.Pointer(unsafe.SliceData(b)), resultAt(pos), len(b)/size, target, at, op)
		rs = append(rs, r)
		pos += len(b)
		return err
	})
	var r *mpi.Request
	switch {
	case err != nil:
	case len(rs) == 1 && res.unpack == nil:
		r = rs[0] // package mpi's own request
	default:
		// One request for them all, complete once each run's is (the
		// origin is then free to reuse) and the result is unpacked.
		r, err = joined(o, rs, res.unpack)
	}
	if err == nil {
		err = addRequest(o.comm, commWorld, r, false, req)
	}
	return err
}

// PMPI_Accumulate implements MPI_Accumulate.
//
//export PMPI_Accumulate
func PMPI_Accumulate(origin unsafe.Pointer, ocount, otype, target int32, tdisp int64, tcount, ttype, op, win int32) (rc int32) {
	defer guard("MPI_Accumulate", &rc)
	return accumulateCall("MPI_Accumulate", accBuf{origin, ocount, otype}, nil, target, tdisp, tcount, ttype, op, win, nil)
}

// PMPI_Raccumulate implements MPI_Raccumulate.
//
//export PMPI_Raccumulate
func PMPI_Raccumulate(origin unsafe.Pointer, ocount, otype, target int32, tdisp int64, tcount, ttype, op, win int32, req *int32) (rc int32) {
	defer guard("MPI_Raccumulate", &rc)
	return accumulateCall("MPI_Raccumulate", accBuf{origin, ocount, otype}, nil, target, tdisp, tcount, ttype, op, win, req)
}

// PMPI_Get_accumulate implements MPI_Get_accumulate.
//
//export PMPI_Get_accumulate
func PMPI_Get_accumulate(origin unsafe.Pointer, ocount, otype int32, result unsafe.Pointer, rcount, rtype, target int32, tdisp int64, tcount, ttype, op, win int32) (rc int32) {
	defer guard("MPI_Get_accumulate", &rc)
	return accumulateCall("MPI_Get_accumulate", accBuf{origin, ocount, otype}, &accBuf{result, rcount, rtype}, target, tdisp, tcount, ttype, op, win, nil)
}

// PMPI_Rget_accumulate implements MPI_Rget_accumulate.
//
//export PMPI_Rget_accumulate
func PMPI_Rget_accumulate(origin unsafe.Pointer, ocount, otype int32, result unsafe.Pointer, rcount, rtype, target int32, tdisp int64, tcount, ttype, op, win int32, req *int32) (rc int32) {
	defer guard("MPI_Rget_accumulate", &rc)
	return accumulateCall("MPI_Rget_accumulate", accBuf{origin, ocount, otype}, &accBuf{result, rcount, rtype}, target, tdisp, tcount, ttype, op, win, req)
}

// PMPI_Fetch_and_op implements MPI_Fetch_and_op: MPI_Get_accumulate of
// one element.
//
//export PMPI_Fetch_and_op
func PMPI_Fetch_and_op(origin, result unsafe.Pointer, dt, target int32, tdisp int64, op, win int32) (rc int32) {
	defer guard("MPI_Fetch_and_op", &rc)
	if _, ok := predefinedTypes[dt]; !ok {
		return fail("MPI_Fetch_and_op", nil, commWorld, errorf(errType, "datatype %#x: MPI_Fetch_and_op takes a predefined datatype", uint32(dt)))
	}
	return accumulateCall("MPI_Fetch_and_op", accBuf{origin, 1, dt}, &accBuf{result, 1, dt}, target, tdisp, 1, dt, op, win, nil)
}

// PMPI_Compare_and_swap implements MPI_Compare_and_swap.
//
//export PMPI_Compare_and_swap
func PMPI_Compare_and_swap(origin, compare, result unsafe.Pointer, dt, target int32, tdisp int64, win int32) (rc int32) {
	defer guard("MPI_Compare_and_swap", &rc)
	o, rc := winArg("MPI_Compare_and_swap", win)
	if rc != errSuccess {
		return rc
	}
	k, n, err := accElems(dt, 1)
	if err == nil && n != 1 {
		err = errorf(errType, "datatype %#x: MPI_Compare_and_swap takes a datatype of one element", uint32(dt))
	}
	if err == nil {
		err = reducerOf[k].(accumulator).compareAndSwap(o.w, origin, compare, result, mapRank(target), o.disp(target, tdisp))
	}
	return winCheck("MPI_Compare_and_swap", o, err)
}
