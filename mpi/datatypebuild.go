package mpi

import "math"

// arith is int arithmetic that notes an overflow instead of wrapping:
// the constructors compute a datatype's numbers with it and refuse the
// datatype when over is set.
type arith struct{ over bool }

// add returns x+y.
func (a *arith) add(x, y int) int {
	s := x + y
	if (s > x) != (y > 0) {
		a.over = true
	}
	return s
}

// sub returns x-y.
func (a *arith) sub(x, y int) int {
	s := x - y
	if (s < x) != (y > 0) {
		a.over = true
	}
	return s
}

// mul returns x·y.
func (a *arith) mul(x, y int) int {
	if x == 0 || y == 0 {
		return 0
	}
	p := x * y
	if p/y != x || (x == -1 && y == math.MinInt) || (y == -1 && x == math.MinInt) {
		a.over = true
	}
	return p
}

// mulInt returns x·y and whether it fits an int.
func mulInt(x, y int) (int, bool) {
	var a arith
	p := a.mul(x, y)
	return p, !a.over
}

// span is the smallest range holding a set of ranges, each given as a
// start and a length: its start and its length. A range's end may lie
// past the largest int as long as the length from the lowest start fits,
// so that an element at displacement math.MaxInt has a datatype.
type span struct {
	lo, n int
	any   bool
}

// add widens s to hold the n elements from start on.
func (s *span) add(a *arith, start, n int) {
	if !s.any {
		s.lo, s.n, s.any = start, n, true
		return
	}
	lo := min(s.lo, start)
	s.n = max(a.add(s.n, a.sub(s.lo, lo)), a.add(a.sub(start, lo), n))
	s.lo = lo
}

// typeBounds gathers the bounds of a datatype from its blocks: bounds
// the lower and upper bounds of the items (MPI's typemap rules), data the
// elements themselves.
type typeBounds struct{ bounds, data span }

// add accounts for a block of n items of c at displacement disp. A block
// of no items counts for neither; a block of items without elements only
// for the bounds.
func (tb *typeBounds) add(a *arith, disp, n int, c *Datatype) {
	if n == 0 {
		return
	}
	tb.bounds.add(a, a.add(disp, c.lb), a.mul(n, c.extent))
	if c.size > 0 {
		tb.data.add(a, a.add(disp, c.trueLB), a.add(a.mul(n-1, c.extent), c.trueExtent))
	}
}

// setOn stores the bounds in dt: 0, 0 where there were none.
func (tb *typeBounds) setOn(dt *Datatype) {
	dt.lb, dt.extent = tb.bounds.lo, tb.bounds.n
	dt.trueLB, dt.trueExtent = tb.data.lo, tb.data.n
}

// hvector returns the datatype of count blocks of blocklen items of old,
// the first at element disp and the others step elements apart
// (MPI_Type_create_hvector, with a displacement). Its numbers are
// computed with a.
func hvector(a *arith, old *Datatype, count, blocklen, step, disp int) *Datatype {
	dt := &Datatype{kind: kindVector, child: old, count: count, blocklen: blocklen, disp: disp, stride: step}
	if count > 0 && blocklen > 0 {
		var tb typeBounds // the other blocks lie between the first and the last
		tb.add(a, disp, blocklen, old)
		tb.add(a, a.add(disp, a.mul(count-1, step)), blocklen, old)
		tb.setOn(dt)
		dt.size = a.mul(a.mul(count, blocklen), old.size)
	}
	dt.dense = dt.size == 0 || old.runOf(blocklen) && (count == 1 || step == blocklen*old.size)
	return dt
}

// blockLen returns the number of items in block i of an indexed dt.
func (dt *Datatype) blockLen(i int) int {
	if dt.lens == nil {
		return dt.blocklen
	}
	return dt.lens[i]
}

// blockType returns the datatype of block i of an indexed dt.
func (dt *Datatype) blockType(i int) *Datatype {
	if dt.children == nil {
		return dt.child
	}
	return dt.children[i]
}

// indexedDense reports whether the blocks of an indexed dt, whose size
// and bounds are set, are one run of elements in order. The ends of runs
// are compared with wrapping arithmetic: they are equal only where they
// truly meet, as every run lies within the datatype's true extent, which
// fits.
func (dt *Datatype) indexedDense() bool {
	if dt.size == 0 {
		return true
	}
	next, started := 0, false
	for i, d := range dt.displs {
		c, n := dt.blockType(i), dt.blockLen(i)
		if n == 0 || c.size == 0 {
			continue
		}
		if !c.runOf(n) {
			return false
		}
		start := d + c.trueLB
		if started && start != next {
			return false
		}
		next, started = start+n*c.size, true
	}
	return true
}

// runOf reports whether n consecutive items of dt are one run of
// n·dt.Size() elements from dt.trueLB on, in order (or no elements).
func (dt *Datatype) runOf(n int) bool {
	return dt.size == 0 || n == 0 || dt.dense && (n == 1 || dt.extent == dt.size)
}
