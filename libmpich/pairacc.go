package main

// Accumulates of the struct value/index types (MPI_FLOAT_INT,
// MPI_DOUBLE_INT, MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT) and
// of the derived datatypes built of one of them, with MPI_MAXLOC,
// MPI_MINLOC, MPI_REPLACE or MPI_NO_OP (MPI_2INT and the other pairs of
// one type are accumulates of their element type). The target's items
// are combined where they lie, as C lays them out (the value, then the
// int at its offset), by an operation of package mpi on items of bytes
// (mpi.NewItemOp): such an operation runs under the target's accumulate
// lock, as every accumulate that is not one of the network's atomics, so
// each item is combined atomically with respect to the other
// accumulates. Items that follow each other in the window (an array of
// structs) go in one operation, their padding written back as it was
// read.

import (
	"cmp"
	"encoding/binary"
	"math"

	"github.com/rhinet-go/martini/mpi"
)

// itemTypeOf returns the predefined datatype whose items the values of
// datatype h all are, where that type's items are combined whole (a
// struct value/index type, long double or its complex), or 0.
func itemTypeOf(h int32) int32 {
	if o, ok := userTypes.get(h); ok {
		return o.itemType
	}
	if ti, ok := predefinedTypes[h]; ok && ti.loc {
		return h
	}
	if _, ok := longDoubleTypes[h]; ok {
		return h
	}
	return 0
}

// setItemType notes that the values of derived datatype h are all items of
// the predefined datatype p, as itemTypeOf says (0: they are not).
func setItemType(h, p int32) {
	if o, ok := userTypes.get(h); ok {
		o.itemType = p
	}
}

// pairLayout is how a struct value/index type lies in memory and packed.
type pairLayout struct {
	ti     typeInfo
	value  int // bytes of the value, at offset 0
	span   int // bytes from the value's start to the index's end
	packed int // bytes of an item's data: the value, then the index
	cmp    func(a, b []byte) int
}

// layoutOf returns the layout of struct value/index type p.
func layoutOf(p int32) pairLayout {
	ti := predefinedTypes[p]
	v := ti.locValueSize()
	return pairLayout{ti: ti, value: v, span: ti.locOffset + 4, packed: v + 4, cmp: valueCmp(ti.elem)}
}

// valueCmp returns the comparison of the values of element type k (x87
// long doubles for elemNone).
func valueCmp(k elemKind) func(a, b []byte) int {
	le := binary.LittleEndian
	switch k {
	case elemFloat32:
		return func(a, b []byte) int {
			return cmp.Compare(math.Float32frombits(le.Uint32(a)), math.Float32frombits(le.Uint32(b)))
		}
	case elemFloat64:
		return func(a, b []byte) int {
			return cmp.Compare(math.Float64frombits(le.Uint64(a)), math.Float64frombits(le.Uint64(b)))
		}
	case elemInt64:
		return func(a, b []byte) int { return cmp.Compare(int64(le.Uint64(a)), int64(le.Uint64(b))) }
	case elemInt16:
		return func(a, b []byte) int { return cmp.Compare(int16(le.Uint16(a)), int16(le.Uint16(b))) }
	}
	return cmpX87
}

// cmpX87 compares two x87 extended-precision numbers (a 64-bit
// significand, then the sign and a 15-bit exponent); zeros of either
// sign are equal.
func cmpX87(a, b []byte) int {
	le := binary.LittleEndian
	am, bm := le.Uint64(a), le.Uint64(b)
	ae, be := le.Uint16(a[8:]), le.Uint16(b[8:])
	if am == 0 && bm == 0 && ae&0x7fff == 0 && be&0x7fff == 0 {
		return 0
	}
	aneg, bneg := ae&0x8000 != 0, be&0x8000 != 0
	if aneg != bneg {
		if aneg {
			return -1
		}
		return 1
	}
	c := cmp.Compare(ae&0x7fff, be&0x7fff)
	if c == 0 {
		c = cmp.Compare(am, bm)
	}
	if aneg {
		c = -c
	}
	return c
}

// combine returns what op (MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE or
// MPI_NO_OP) does to the items of inout, laid out in memory from its
// start, with those of in.
func (l pairLayout) combine(op int32) func(in, inout []byte) {
	return func(in, inout []byte) {
		for at := 0; at+l.span <= len(inout); at += l.ti.size {
			l.item(op, in[at:at+l.span], inout[at:at+l.span])
		}
	}
}

// item sets cur to in op cur, in being the origin's item: MPI_MAXLOC
// takes the larger value and its index, the smaller index of equal
// values; MPI_MINLOC the smaller value.
func (l pairLayout) item(op int32, in, cur []byte) {
	idx := l.ti.locOffset
	take := op == opReplace
	if op == opMaxLoc || op == opMinLoc {
		c := l.cmp(in[:l.value], cur[:l.value])
		if op == opMinLoc {
			c = -c
		}
		if c == 0 {
			le := binary.LittleEndian
			if int32(le.Uint32(in[idx:])) < int32(le.Uint32(cur[idx:])) {
				copy(cur[idx:idx+4], in[idx:idx+4])
			}
			return
		}
		take = c > 0
	}
	if take {
		copy(cur[:l.value], in[:l.value])
		copy(cur[idx:idx+4], in[idx:idx+4])
	}
}

// pairForm is how a buffer of struct value/index items holds them: an
// item each stride bytes, its value at 0 and its index at ix. A
// predefined type's buffer holds them as C lays them out, padding and
// all; a derived datatype's packed bytes hold each item's value and
// index, and no padding.
type pairForm struct{ stride, ix int }

// formOf returns the form of the bytes of datatype h.
func (l pairLayout) formOf(h int32) pairForm {
	if _, ok := predefinedTypes[h]; ok {
		return pairForm{l.ti.size, l.ti.locOffset}
	}
	return pairForm{l.packed, l.value}
}

// starts returns where in the window each of the n items lies whose
// bytes, of form f, runs place, checking that each lies as C lays it
// out.
func (l pairLayout) starts(runs []rmaRun, n int, f pairForm) ([]int, error) {
	ri, pos := 0, 0 // the run of byte pos, at its start
	locate := func(off int) (at, left int) {
		for ri < len(runs) && pos+runs[ri].n <= off {
			pos += runs[ri].n
			ri++
		}
		if ri == len(runs) {
			return -1, 0
		}
		return runs[ri].at + off - pos, pos + runs[ri].n - off
	}
	starts := make([]int, n)
	for i := range starts {
		v, left := locate(i * f.stride)
		x, _ := locate(i*f.stride + f.ix)
		if v < 0 || left < l.value || x != v+l.ti.locOffset {
			return nil, errorf(errType, "the target datatype's value/index item %d does not lie as C lays it out", i)
		}
		starts[i] = v
	}
	return starts, nil
}

// spread lays out items, of form f in data, as they lie in the window at
// starts: a plan of a run for each sequence of items that follow each
// other there, and where each item is in the plan's data.
func (l pairLayout) spread(data []byte, f pairForm, starts []int) (rmaPlan, []int) {
	var plan rmaPlan
	at := make([]int, len(starts))
	for i := 0; i < len(starts); {
		j := i + 1
		for j < len(starts) && starts[j] == starts[j-1]+l.ti.size {
			j++
		}
		n := (j-i-1)*l.ti.size + l.span
		base := len(plan.data)
		plan.data = append(plan.data, make([]byte, n)...)
		for k := i; k < j; k++ {
			at[k] = base + (k-i)*l.ti.size
			l.move(plan.data[at[k]:], l.ti.locOffset, data[k*f.stride:], f.ix)
		}
		plan.runs = append(plan.runs, rmaRun{starts[i], n})
		i = j
	}
	return plan, at
}

// gather puts the items at offsets at of spread bytes into data, of
// form f.
func (l pairLayout) gather(data []byte, f pairForm, spread []byte, at []int) {
	for k, a := range at {
		l.move(data[k*f.stride:], f.ix, spread[a:], l.ti.locOffset)
	}
}

// move copies the value and the index of the item at src, its index at
// six, to the item at dst, its index at dix.
func (l pairLayout) move(dst []byte, dix int, src []byte, six int) {
	copy(dst[:l.value], src[:l.value])
	copy(dst[dix:dix+4], src[six:six+4])
}

// unit returns the size of the item operation's unit: a divisor of
// every run's length, (k-1) extents and a span, and more than a byte, so
// that package mpi takes the operation for one on items, under the lock.
func (l pairLayout) unit() int {
	a, b := l.span, l.ti.size
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// pairArgs checks an accumulate of items of the struct value/index type
// p at the target: its operation, and its buffers (itemArgs).
func pairArgs(p int32, origin accBuf, result *accBuf, op int32) error {
	switch op {
	case opMaxLoc, opMinLoc, opReplace, opNoOp:
	default:
		return errorf(errOp, "operation %#x: accumulates of value/index pairs take MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE and MPI_NO_OP", uint32(op))
	}
	return itemArgs(p, origin, result, op)
}

// itemArgs checks that the origin (unless op is MPI_NO_OP) and the
// result (if any) of an accumulate into items of type p (as itemTypeOf
// says) are of p too, or empty.
func itemArgs(p int32, origin accBuf, result *accBuf, op int32) error {
	side := func(name string, b accBuf) error {
		if b.count != 0 && itemTypeOf(b.dt) != p {
			return errorf(errType, "%s datatype %#x: not of the target's items, of type %#x", name, uint32(b.dt), uint32(p))
		}
		return nil
	}
	var err error
	if op != opNoOp {
		err = side("origin", origin)
	}
	if err == nil && result != nil {
		err = side("result", *result)
	}
	return err
}

// pairTarget returns where the tcount items of ttype, of the struct
// value/index type of l, at displacement tdisp of target's window lie.
func (l pairLayout) pairTarget(o *winObj, target int32, tdisp int64, tcount, ttype int32) ([]int, error) {
	size, _ := dataSize(ttype)
	total := int(tcount) * size
	runs, err := targetRuns(o, target, tdisp, tcount, ttype, total)
	if err != nil {
		return nil, err
	}
	f := l.formOf(ttype)
	return l.starts(runs, total/f.stride, f)
}

// side returns the plan of an origin's or result's buffer b (get for a
// result), which must hold n items, and the form of its bytes.
func (l pairLayout) side(b accBuf, get bool, n int) (rmaPlan, pairForm, error) {
	f := l.formOf(b.dt)
	plan, err := originPlan(b.p, b.count, b.dt, get)
	if err == nil && len(plan.data) != n*f.stride {
		err = errorf(errArg, "%d bytes of value/index items where the target has %d items", len(plan.data), n)
	}
	return plan, f, err
}

// pairAccumulate runs an accumulate (with a result if result is not
// nil; with req, as a request) whose target datatype ttype is of items
// of the struct value/index type p, and returns what unpacks the result
// once the accumulate has completed (nil: nothing).
func pairAccumulate(o *winObj, p int32, origin accBuf, result *accBuf, target int32, tdisp int64, tcount, ttype, op int32, req *int32) (func(), error) {
	if err := pairArgs(p, origin, result, op); err != nil {
		return nil, err
	}
	l := layoutOf(p)
	starts, err := l.pairTarget(o, target, tdisp, tcount, ttype)
	if err != nil {
		return nil, err
	}
	src, sf := rmaPlan{data: make([]byte, len(starts)*l.packed)}, pairForm{l.packed, l.value}
	if op != opNoOp {
		if src, sf, err = l.side(origin, false, len(starts)); err != nil {
			return nil, err
		}
	}
	in, at := l.spread(src.data, sf, starts)
	var out rmaPlan
	if result != nil {
		res, rf, err := l.side(*result, true, len(starts))
		if err != nil {
			return nil, err
		}
		out.data = make([]byte, len(in.data))
		out.unpack = func() {
			l.gather(res.data, rf, out.data, at)
			if res.unpack != nil {
				res.unpack()
			}
		}
	}
	mop := mpi.NewItemOp("value/index accumulate", l.unit(), l.combine(op), true)
	err = accRuns(o, typed[uint8]{}, 1, &in, &out, result != nil, mapRank(target), mop, req)
	return out.unpack, err
}

// pairOps are the reductions of the struct value/index types, by type
// and operation: MPI_MAXLOC and MPI_MINLOC combine whole items, as C
// lays them out, as the accumulates do (combine).
var pairOps = func() map[[2]int32]mpi.Op {
	m := make(map[[2]int32]mpi.Op)
	for _, p := range []int32{typeFloatInt, typeDoubleInt, typeLongInt, typeShortInt, typeLongDoubleInt} {
		l := layoutOf(p)
		m[[2]int32{p, opMaxLoc}] = mpi.NewItemOp("MPI_MAXLOC", l.ti.size, l.combine(opMaxLoc), true)
		m[[2]int32{p, opMinLoc}] = mpi.NewItemOp("MPI_MINLOC", l.ti.size, l.combine(opMinLoc), true)
	}
	return m
}()

// pairReduction resolves a reduction of the struct value/index type p by
// operation op: its items, padding and all (the extent of each), reduced
// as bytes by an operation on whole items, so that every collective
// takes them as it takes a user operation's.
func pairReduction(p, op int32) (reduction, error) {
	mop, ok := pairOps[[2]int32{p, op}]
	if !ok {
		return reduction{}, errorf(errOp, "operation %#x: value/index datatypes reduce by MPI_MAXLOC and MPI_MINLOC only", uint32(op))
	}
	return reduction{r: reducerOf[elemUint8], op: mop, per: predefinedTypes[p].size}, nil
}
