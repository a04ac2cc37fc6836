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
	owned := make([][]int, d)
	for i := range d {
		idx, err := distributed(gsizes[i], distribs[i], dargs[i], psizes[i], coords[i])
		if err != nil {
			return nil, fmt.Errorf("mpi: Darray: dimension %d: %w", i, err)
		}
		owned[i] = idx
	}
	return arrayPart(gsizes, owned, order), nil
}

// distributed returns the indices of a dimension of g elements that the
// process of coordinate c of p holds.
func distributed(g int, dist Distribution, darg, p, c int) ([]int, error) {
	if g <= 0 {
		return nil, fmt.Errorf("%w: size %d", ErrDatatype, g)
	}
	if darg != DistributeDefault && darg <= 0 {
		return nil, fmt.Errorf("%w: distribution argument %d", ErrDatatype, darg)
	}
	var idx []int
	switch dist {
	case DistributeNone:
		if p != 1 {
			return nil, fmt.Errorf("%w: not distributed, over %d processes", ErrDims, p)
		}
		for k := range g {
			idx = append(idx, k)
		}
	case DistributeBlock:
		b := darg
		if b == DistributeDefault {
			b = (g + p - 1) / p
		}
		if b*p < g {
			return nil, fmt.Errorf("%w: blocks of %d over %d processes do not cover %d elements", ErrDatatype, b, p, g)
		}
		for k := c * b; k < min(g, (c+1)*b); k++ {
			idx = append(idx, k)
		}
	case DistributeCyclic:
		b := darg
		if b == DistributeDefault {
			b = 1
		}
		for start := c * b; start < g; start += p * b {
			for k := start; k < min(g, start+b); k++ {
				idx = append(idx, k)
			}
		}
	default:
		return nil, fmt.Errorf("%w: distribution %d", ErrDatatype, dist)
	}
	return idx, nil
}

// arrayPart returns the datatype of the elements of an array of extents
// sizes, stored in order, whose index along dimension i is one of
// owned[i], in storage order; its extent is the whole array's.
func arrayPart(sizes []int, owned [][]int, order Order) *Datatype {
	d := len(sizes)
	dim, stride, total := arrayLayout(sizes, order)
	var blocks []typeBlock
	empty := false
	for _, o := range owned {
		empty = empty || len(o) == 0
	}
	pos := make([]int, d) // position in owned, by dimension
	for !empty {
		off := 0
		for i := range d {
			off += owned[i][pos[i]] * stride[i]
		}
		blocks = appendBlock(blocks, typeBlock{off, 1})
		k := 0
		for ; k < d; k++ {
			i := dim(k)
			if pos[i]++; pos[i] < len(owned[i]) {
				break
			}
			pos[i] = 0
		}
		empty = k == d
	}
	dt := newDatatype(blocks)
	dt.lb, dt.extent = 0, total
	return dt
}
