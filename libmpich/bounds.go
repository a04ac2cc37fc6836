package main

// Lower bounds and extents as MPI defines them, negative ones included: a
// datatype's extent is its upper bound less its lower bound, and
// MPI_Type_create_resized or markers (MPI_LB above MPI_UB, a struct of an
// MPI_LB alone) may make it negative. Package mpi's datatypes have
// non-negative extents, so a datatype of a negative extent keeps MPI's
// bounds beside its layout (typeObj.neg), and the datatypes built from it
// lay out their items here, byte by byte: item j of n of extent e lies
// j·e bytes from the first, before it when e is negative.

import (
	"unsafe"

	"github.com/rhinet-go/martini/mpi"
)

// typeBounds is a datatype's lower bound and extent, in bytes.
type typeBounds struct{ lb, extent int }

// boundsOf returns MPI's lower bound and extent of datatype h.
func boundsOf(h int32) (typeBounds, error) {
	if o, ok := userTypes.get(h); ok && o.neg != nil {
		return *o.neg, nil
	}
	dt, _, err := typeBase(h)
	if err != nil {
		return typeBounds{}, err
	}
	return typeBounds{dt.LowerBound(), dt.Extent()}, nil
}

// negBoundsOf returns the bounds of datatype h if its extent is negative,
// else nil.
func negBoundsOf(h int32) *typeBounds {
	if o, ok := userTypes.get(h); ok {
		return o.neg
	}
	return nil
}

// setNeg records neg as the bounds of datatype h, just made (nil: its
// layout's own).
func setNeg(h int32, neg *typeBounds) {
	if o, ok := userTypes.get(h); ok && neg != nil {
		b := *neg
		o.neg = &b
	}
}

// boundsAcc gathers the bounds of a typemap from its blocks: the lowest
// lower bound and the highest upper bound of their items (MPI's rule for
// markers, which resized datatypes' bounds are).
type boundsAcc struct {
	lo, hi int
	any    bool
}

// add accounts for n items of bounds b, the first at byte d and each
// next b.extent bytes after the one before.
func (a *boundsAcc) add(d, n int, b typeBounds) {
	if n <= 0 {
		return
	}
	spread := (n - 1) * b.extent
	lo, hi := d+b.lb+min(0, spread), d+b.lb+b.extent+max(0, spread)
	if !a.any {
		a.lo, a.hi, a.any = lo, hi, true
		return
	}
	a.lo, a.hi = min(a.lo, lo), max(a.hi, hi)
}

// bounds returns the gathered bounds (0, 0 for none).
func (a *boundsAcc) bounds() typeBounds {
	return typeBounds{a.lo, a.hi - a.lo}
}

// withBounds returns the layout data with MPI's bounds b: data resized to
// them, or, for a negative extent, to b's lower bound and extent 0, with
// the bounds to keep beside it.
func withBounds(data *mpi.Datatype, b typeBounds) (*mpi.Datatype, *typeBounds, error) {
	if b.extent >= 0 {
		dt, err := data.Resized(b.lb, b.extent)
		return dt, nil, err
	}
	dt, err := data.Resized(b.lb, 0)
	return dt, &b, err
}

// itemsOf returns the layout of n items of data, each step bytes after
// the one before (step may be negative); its own bounds mean nothing.
func itemsOf(data *mpi.Datatype, n, step int) (*mpi.Datatype, error) {
	one, err := data.Resized(0, 1)
	if err != nil {
		return nil, err
	}
	return one.Vector(n, 1, step)
}

// layout is a constructor's typemap over one datatype, in bytes: count
// groups, each stride bytes after the one before, of the blocks of
// lens[i] items at displs[i].
type layout struct {
	count, stride int
	lens, displs  []int
}

// single returns the layout of one block of n items at byte 0.
func single(n int) layout { return layout{count: 1, lens: []int{n}, displs: []int{0}} }

// blocks returns the layout of one group of the blocks of lens[i] items at
// displs[i] items of extent ext (bytes when ext is 1).
func blocks(lens []int, displs []int, ext int) layout {
	l := layout{count: 1, lens: lens, displs: make([]int, len(displs))}
	for i, d := range displs {
		l.displs[i] = d * ext
	}
	return l
}

// repeated returns n copies of v.
func repeated(v, n int) []int {
	out := make([]int, max(n, 0))
	for i := range out {
		out[i] = v
	}
	return out
}

// negBuild returns the datatype of layout l over old, of bounds ob (a
// negative extent), and its bounds where they are negative too.
func negBuild(old *mpi.Datatype, ob typeBounds, l layout) (*mpi.Datatype, *typeBounds, error) {
	var acc boundsAcc
	var parts []*mpi.Datatype
	var displs []int
	for i, n := range l.lens {
		if n == 0 || l.count == 0 {
			continue
		}
		run, err := itemsOf(old, n, ob.extent)
		if err != nil {
			return nil, nil, err
		}
		parts, displs = append(parts, run), append(displs, l.displs[i])
		acc.add(l.displs[i], n, ob)
		if l.count > 1 {
			acc.add(l.displs[i]+(l.count-1)*l.stride, n, ob)
		}
	}
	group, err := joinParts(parts, displs)
	if err == nil && l.count != 1 {
		group, err = itemsOf(group, l.count, l.stride)
	}
	if err != nil {
		return nil, nil, err
	}
	return withBounds(group, acc.bounds())
}

// joinParts returns the layout of one item of each of parts at byte
// displs[i].
func joinParts(parts []*mpi.Datatype, displs []int) (*mpi.Datatype, error) {
	return mpi.Struct(repeated(1, len(parts)), displs, parts)
}

// negativeBuf returns the buffer of count items of o at p whose data
// start before p: a negative true lower bound, or items of a negative
// extent, each before the one before it, taken as one item of them all.
func negativeBuf(p unsafe.Pointer, count int, o *typeObj) (cbuf, error) {
	dt := o.dt
	if o.neg != nil && count > 1 {
		all, err := itemsOf(dt, count, o.neg.extent)
		if err != nil {
			return cbuf{}, errorf(errType, "%d items of extent %d: %v", count, o.neg.extent, err)
		}
		dt, count = all, 1
	}
	return shiftedBuf(p, count, dt)
}
