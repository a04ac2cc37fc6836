package mpi

import "fmt"

// Distribution is how Darray distributes a dimension of an array over
// the processes of a dimension of the process grid.
type Distribution int

// The distributions of Darray.
const (
	// DistributeBlock: consecutive blocks of darg elements (by default
	// the dimension's size divided by the processes, rounded up), one per
	// process (MPI_DISTRIBUTE_BLOCK).
	DistributeBlock Distribution = iota
	// DistributeCyclic: blocks of darg elements (by default 1) dealt out
	// to the processes in turn (MPI_DISTRIBUTE_CYCLIC).
	DistributeCyclic
	// DistributeNone: the dimension is not distributed; its grid
	// dimension must have one process (MPI_DISTRIBUTE_NONE).
	DistributeNone
)

// DistributeDefault as a darg asks for the distribution's default block
// size (MPI_DISTRIBUTE_DFLT_DARG).
const DistributeDefault = -1

// Darray returns the datatype of the part of an array of extents gsizes,
// stored in order, that process rank of size processes holds when the
// array is distributed over a grid of psizes processes (numbered in
// row-major order, as MPI numbers them whatever the array's order), each
// dimension by distribs[i] with argument dargs[i]
// (MPI_Type_create_darray). Its extent is the whole array's.
func Darray(size, rank int, gsizes []int, distribs []Distribution, dargs, psizes []int, order Order) (*Datatype, error) {
	d := len(gsizes)
	if d == 0 || len(distribs) != d || len(dargs) != d || len(psizes) != d {
		return nil, fmt.Errorf("mpi: Darray: %w: %d sizes, %d distributions, %d arguments, %d grid sizes",
			ErrDatatype, d, len(distribs), len(dargs), len(psizes))
	}
	if order != OrderC && order != OrderFortran {
		return nil, fmt.Errorf("mpi: Darray: %w: order %d", ErrDatatype, order)
	}
	grid := &cartTopo{dims: psizes, periods: make([]bool, d)}
	if err := grid.validate(size); err != nil || grid.size() != size {
		return nil, fmt.Errorf("mpi: Darray: %w: a grid of %v processes for %d", ErrDims, psizes, size)
	}
	if rank < 0 || rank >= size {
		return nil, fmt.Errorf("mpi: Darray: rank %d: %w (%d processes)", rank, ErrRank, size)
	}
	coords := grid.coords(rank)
	owned := make([][]piece, d)
	for i := range d {
		ps, err := distributed(gsizes[i], distribs[i], dargs[i], psizes[i], coords[i])
		if err != nil {
			return nil, fmt.Errorf("mpi: Darray: dimension %d: %w", i, err)
		}
		owned[i] = ps
	}
	dt, err := arrayPart(gsizes, owned, order)
	if err != nil {
		return nil, fmt.Errorf("mpi: Darray: %w", err)
	}
	return dt, nil
}

// piece is count blocks of n consecutive indices of a dimension, the
// first at index first and the others step indices apart.
type piece struct{ first, count, n, step int }

// distributed returns the indices of a dimension of g elements that the
// process of coordinate c of p holds, in increasing order, as at most two
// pieces: a distribution deals out blocks of one length, the last
// perhaps cut short.
func distributed(g int, dist Distribution, darg, p, c int) ([]piece, error) {
	if g <= 0 {
		return nil, fmt.Errorf("%w: size %d", ErrDatatype, g)
	}
	if darg != DistributeDefault && darg <= 0 {
		return nil, fmt.Errorf("%w: distribution argument %d", ErrDatatype, darg)
	}
	switch dist {
	case DistributeNone:
		if p != 1 {
			return nil, fmt.Errorf("%w: not distributed, over %d processes", ErrDims, p)
		}
		return []piece{{0, 1, g, 0}}, nil
	case DistributeBlock:
		b := darg
		if b == DistributeDefault {
			b = (g-1)/p + 1
		}
		if bp, ok := mulInt(b, p); ok && bp < g {
			return nil, fmt.Errorf("%w: blocks of %d over %d processes do not cover %d elements", ErrDatatype, b, p, g)
		}
		return cyclic(g, b, p, c, true), nil
	case DistributeCyclic:
		b := darg
		if b == DistributeDefault {
			b = 1
		}
		return cyclic(g, b, p, c, false), nil
	}
	return nil, fmt.Errorf("%w: distribution %d", ErrDatatype, dist)
}

// cyclic returns the indices below g that process c of p holds when
// blocks of b are dealt out in turn: the blocks from c·b on, p·b apart
// (only the first where once is set).
func cyclic(g, b, p, c int, once bool) []piece {
	first, ok := mulInt(c, b)
	if !ok || first >= g {
		return nil
	}
	m, step := 1, 0 // blocks that start below g, and the distance between them
	if pb, ok := mulInt(p, b); ok && !once && pb <= g-1-first {
		m, step = 1+(g-1-first)/pb, pb
	}
	last := first + (m-1)*step
	if last+b-1 < g && last+b-1 >= last { // the last block is whole
		return []piece{{first, m, b, step}}
	}
	ps := []piece{{last, 1, g - last, 0}}
	if m > 1 {
		ps = []piece{{first, m - 1, b, step}, ps[0]}
	}
	return ps
}

// arrayPart returns the datatype of the elements of an array of extents
// sizes, stored in order, whose index along dimension i is one of the
// pieces owned[i], in storage order; its extent is the whole array's. It
// nests a datatype per dimension, the fastest innermost, each the pieces
// of its dimension over the one inside.
func arrayPart(sizes []int, owned [][]piece, order Order) (*Datatype, error) {
	dim, stride, total, err := arrayLayout(sizes, order)
	if err != nil {
		return nil, err
	}
	var a arith
	dt := Element
	for k := range sizes {
		i := dim(k)
		if len(owned[i]) == 0 { // nothing: an empty datatype of the array's extent
			return &Datatype{kind: kindIndexed, child: Element, extent: total, dense: true}, nil
		}
		blocks := make([]*Datatype, len(owned[i]))
		for j, p := range owned[i] {
			run := hvector(&a, dt, p.n, 1, stride[i], 0)
			blocks[j] = hvector(&a, run, p.count, 1, a.mul(p.step, stride[i]), a.mul(p.first, stride[i]))
		}
		dt = blocks[0]
		if len(blocks) > 1 {
			dt = joined(&a, blocks)
		}
	}
	if a.over {
		return nil, fmt.Errorf("%w: a part of an array of extents %v overflows an int", ErrDatatype, sizes)
	}
	return dt.Resized(0, total)
}

// joined returns the datatype of one item of each of blocks in turn, at
// their own displacements (MPI_Type_create_struct's shape).
func joined(a *arith, blocks []*Datatype) *Datatype {
	dt := &Datatype{kind: kindIndexed, children: blocks, blocklen: 1, displs: make([]int, len(blocks))}
	var tb typeBounds
	for _, b := range blocks {
		tb.add(a, 0, 1, b)
		dt.size = a.add(dt.size, b.size)
	}
	tb.setOn(dt)
	dt.dense = dt.indexedDense()
	return dt
}
