package mpi

import (
	"fmt"
	"iter"
)

// check reports whether count items of dt fit a buffer of n elements. A
// block before the start of the buffer is an error: a Go slice has
// nothing there.
func (dt *Datatype) check(op string, count, n int) error {
	if err := dt.fits(count, n); err != nil {
		return fmt.Errorf("mpi: %s: %w", op, err)
	}
	return nil
}

// fits is check without the name of the call. Where it accepts count
// items, every element they hold lies in the buffer and count·dt.Size()
// fits an int, so that walking them needs no further checks.
func (dt *Datatype) fits(count, n int) error {
	if dt == nil {
		return fmt.Errorf("%w: nil", ErrDatatype)
	}
	if count < 0 {
		return fmt.Errorf("%w: %d items", ErrCount, count)
	}
	if count == 0 || dt.size == 0 {
		return nil
	}
	if dt.trueLB < 0 {
		return fmt.Errorf("%w: a block at displacement %d precedes the buffer", ErrDatatype, dt.trueLB)
	}
	var a arith
	end := a.add(a.add(dt.trueLB, dt.trueExtent), a.mul(count-1, dt.extent))
	if a.over {
		return fmt.Errorf("%w: %d items of the datatype (true lower bound %d, true extent %d, extent %d) reach past any buffer",
			ErrBuffer, count, dt.trueLB, dt.trueExtent, dt.extent)
	}
	if end > n {
		return fmt.Errorf("%w: %d items of the datatype reach element %d of a buffer of %d", ErrBuffer, count, end, n)
	}
	if _, ok := mulInt(count, dt.size); !ok {
		return fmt.Errorf("%w: %d items of %d elements are more elements than an int counts", ErrBuffer, count, dt.size)
	}
	return nil
}

// walk hands b each run of consecutive elements that count items of dt
// hold, the first item's origin at element off, in the order Pack visits
// them; it stops when b does, and reports whether it went to the end. Runs that a datatype's layout makes one (contiguous
// items, a vector of abutting blocks) are emitted as one, so that such a
// datatype costs one call whatever its count. The caller has checked the
// items with fits: every run lies in the buffer, and offsets computed on
// the way, which may wrap, end there.
func (dt *Datatype) walk(off, count int, b *runBatch) bool {
	if dt.runOf(count) {
		if dt.size == 0 || count == 0 {
			return true
		}
		return b.add(off+dt.trueLB, count*dt.size)
	}
	for i := range count {
		if !dt.walkItem(off+i*dt.extent, b) {
			return false
		}
	}
	return true
}

// walkItem is walk of one item whose layout is not one run.
func (dt *Datatype) walkItem(off int, b *runBatch) bool {
	switch dt.kind {
	case kindVector:
		c, start := dt.child, off+dt.disp
		if c.runOf(dt.blocklen) { // each block is one run
			n := dt.blocklen * c.size
			if n == 0 {
				return true
			}
			for j := range dt.count {
				if !b.add(start+j*dt.stride+c.trueLB, n) {
					return false
				}
			}
			return true
		}
		for j := range dt.count {
			if !c.walk(start+j*dt.stride, dt.blocklen, b) {
				return false
			}
		}
	case kindIndexed:
		for i, d := range dt.displs {
			if !dt.blockType(i).walk(off+d, dt.blockLen(i), b) {
				return false
			}
		}
	default:
		return b.add(off, 1)
	}
	return true
}

// run is n consecutive elements from element off on.
type run struct{ off, n int }

// runBatch collects the runs a walk produces, joining those that continue
// one another, and hands them to sink a batch at a time, so that the
// walk's cost per run is a direct call and a store.
type runBatch struct {
	runs [64]run
	k    int
	sink func([]run) bool // false: stop the walk
}

// add takes the next run; it reports false when sink has.
func (b *runBatch) add(off, n int) bool {
	if b.k > 0 {
		if last := &b.runs[b.k-1]; last.off+last.n == off {
			last.n += n
			return true
		}
	}
	if b.k == len(b.runs) {
		b.k = 0
		if !b.sink(b.runs[:]) {
			return false
		}
	}
	b.runs[b.k] = run{off, n}
	b.k++
	return true
}

// runs hands sink the runs of count items of dt, which fits has
// accepted, at the start of the buffer, in batches, adjacent runs joined.
// Runs returns the runs of consecutive elements that count items of dt
// cover, in the order their elements pack: each run's offset from the
// buffer's start and its length, in elements (runs that continue one
// another are joined). A one-sided operation of a non-contiguous target
// datatype moves them one by one.
func (dt *Datatype) Runs(count int) iter.Seq2[int, int] {
	return func(yield func(off, n int) bool) {
		dt.runs(count, func(runs []run) bool {
			for _, r := range runs {
				if !yield(r.off, r.n) {
					return false
				}
			}
			return true
		})
	}
}

func (dt *Datatype) runs(count int, sink func([]run) bool) {
	b := runBatch{sink: sink}
	if dt.walk(0, count, &b) && b.k > 0 {
		sink(b.runs[:b.k])
	}
}
