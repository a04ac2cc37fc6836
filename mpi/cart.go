package mpi

import (
	"fmt"
	"slices"
)

// cartTopo is a Cartesian grid: its ranks are numbered in row-major order
// (the last dimension varies fastest), as MPI numbers them.
type cartTopo struct {
	dims    []int
	periods []bool
}

func (t *cartTopo) kind() Topology { return TopoCart }

// size returns the number of processes of the grid.
func (t *cartTopo) size() int {
	n := 1
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// coords returns the coordinates of rank.
func (t *cartTopo) coords(rank int) []int {
	out := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		out[i] = rank % t.dims[i]
		rank /= t.dims[i]
	}
	return out
}

// rank returns the rank at coords, wrapping the coordinates of periodic
// dimensions.
func (t *cartTopo) rank(coords []int) (int, error) {
	if len(coords) != len(t.dims) {
		return 0, fmt.Errorf("%d coordinates for a grid of %d dimensions: %w", len(coords), len(t.dims), ErrDims)
	}
	r := 0
	for i, x := range coords {
		if t.periods[i] {
			x = ((x % t.dims[i]) + t.dims[i]) % t.dims[i]
		} else if x < 0 || x >= t.dims[i] {
			return 0, fmt.Errorf("coordinate %d of dimension %d is outside 0..%d, which is not periodic: %w", x, i, t.dims[i]-1, ErrRank)
		}
		r = r*t.dims[i] + x
	}
	return r, nil
}

// shift returns the ranks disp steps down and up dimension dim from rank:
// ProcNull past the edge of a dimension that is not periodic.
func (t *cartTopo) shift(rank, dim, disp int) (source, dest int) {
	c := t.coords(rank)
	at := func(x int) int {
		c := slices.Clone(c)
		c[dim] = x
		r, err := t.rank(c)
		if err != nil {
			return ProcNull
		}
		return r
	}
	return at(c[dim] - disp), at(c[dim] + disp)
}

// neighbors: the two neighbours of each dimension, the one below first.
// The message to the neighbour below travels down the dimension and
// arrives at that neighbour from above: the exchanges of each direction
// have a tag of their own, so that a process that is its neighbour's
// neighbour on both sides (a periodic dimension of 1 or 2) receives each
// block in its place.
func (t *cartTopo) neighbors(rank int) (in, out []link, ntags int, err error) {
	for d := range t.dims {
		down, up := t.shift(rank, d, 1)
		in = append(in, link{down, 2*d + 1}, link{up, 2 * d})
		out = append(out, link{down, 2 * d}, link{up, 2*d + 1})
	}
	return in, out, 2 * len(t.dims), nil
}

// CartCreate returns a communicator of the first n processes of c, where n
// is the product of dims, with a Cartesian topology of len(dims)
// dimensions of those sizes, periodic where periods says so (nil: none);
// the other processes get nil (MPI_Cart_create). reorder allows the
// ranks to be renumbered; this implementation keeps c's order. Every
// process must pass the same arguments, else every one fails with
// ErrMismatch. Collective over c.
func (c *Comm) CartCreate(dims []int, periods []bool, reorder bool) (*Comm, error) {
	const op = "CartCreate"
	if err := c.check(op); err != nil {
		return nil, err
	}
	if periods == nil {
		periods = make([]bool, len(dims))
	}
	if err := c.agree(op, dims, boolInts(periods)); err != nil {
		return nil, err
	}
	t := &cartTopo{dims: slices.Clone(dims), periods: slices.Clone(periods)}
	if err := t.validate(c.size); err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	return c.withTopology(op, t.size(), t)
}

// validate checks a grid for a communicator of size processes.
func (t *cartTopo) validate(size int) error {
	if len(t.periods) != len(t.dims) {
		return fmt.Errorf("%d periods for %d dimensions: %w", len(t.periods), len(t.dims), ErrDims)
	}
	n := 1
	for i, d := range t.dims {
		if d <= 0 {
			return fmt.Errorf("dimension %d has size %d: %w (must be positive)", i, d, ErrDims)
		}
		if n *= d; n > size {
			return fmt.Errorf("the grid %v has more processes than the communicator's %d: %w", t.dims, size, ErrDims)
		}
	}
	return nil
}

// cart returns c's Cartesian topology.
func (c *Comm) cart(op string) (*cartTopo, error) {
	t, err := c.topoOf(op, TopoCart)
	if err != nil {
		return nil, err
	}
	return t.(*cartTopo), nil
}

// Cartdim returns the number of dimensions of c's Cartesian topology
// (MPI_Cartdim_get).
func (c *Comm) Cartdim() (int, error) {
	t, err := c.cart("Cartdim")
	if err != nil {
		return 0, err
	}
	return len(t.dims), nil
}

// CartGet returns the sizes and periodicity of the dimensions of c's
// Cartesian topology and the calling process's coordinates (MPI_Cart_get).
func (c *Comm) CartGet() (dims []int, periods []bool, coords []int, err error) {
	t, err := c.cart("CartGet")
	if err != nil {
		return nil, nil, nil, err
	}
	return slices.Clone(t.dims), slices.Clone(t.periods), t.coords(c.rank), nil
}

// CartCoords returns the coordinates of rank in c's Cartesian topology
// (MPI_Cart_coords).
func (c *Comm) CartCoords(rank int) ([]int, error) {
	t, err := c.cart("CartCoords")
	if err != nil {
		return nil, err
	}
	if rank < 0 || rank >= c.size {
		return nil, fmt.Errorf("mpi: CartCoords of rank %d: %w (communicator size %d)", rank, ErrRank, c.size)
	}
	return t.coords(rank), nil
}

// CartRank returns the rank at coords in c's Cartesian topology
// (MPI_Cart_rank): a coordinate of a periodic dimension wraps around, one
// outside a dimension that is not periodic is an error wrapping ErrRank.
func (c *Comm) CartRank(coords []int) (int, error) {
	t, err := c.cart("CartRank")
	if err != nil {
		return 0, err
	}
	r, err := t.rank(coords)
	if err != nil {
		return 0, fmt.Errorf("mpi: CartRank of %v: %w", coords, err)
	}
	return r, nil
}

// CartShift returns the ranks disp steps down (source) and up (dest)
// dimension dim from the calling process in c's Cartesian topology, for a
// Sendrecv that shifts data up the dimension (MPI_Cart_shift). Past the
// edge of a dimension that is not periodic the rank is ProcNull.
func (c *Comm) CartShift(dim, disp int) (source, dest int, err error) {
	t, err := c.cart("CartShift")
	if err != nil {
		return 0, 0, err
	}
	if dim < 0 || dim >= len(t.dims) {
		return 0, 0, fmt.Errorf("mpi: CartShift along dimension %d of %d: %w", dim, len(t.dims), ErrDims)
	}
	source, dest = t.shift(c.rank, dim, disp)
	return source, dest, nil
}

// CartSub partitions c's Cartesian grid into grids of the dimensions that
// remain says to keep, and returns the calling process's, with a
// Cartesian topology of those dimensions (MPI_Cart_sub). Keeping none
// gives each process a grid of its own, of no dimensions. Every process
// must pass the same remain, else every one fails with ErrMismatch.
// Collective over c.
func (c *Comm) CartSub(remain []bool) (*Comm, error) {
	const op = "CartSub"
	t, err := c.cart(op)
	if err != nil {
		return nil, err
	}
	if len(remain) != len(t.dims) {
		return nil, fmt.Errorf("mpi: %s: %d flags for a grid of %d dimensions: %w", op, len(remain), len(t.dims), ErrDims)
	}
	if err := c.agree(op, boolInts(remain)); err != nil {
		return nil, err
	}
	sub := &cartTopo{}
	color, key := 0, 0
	for i, x := range t.coords(c.rank) {
		if remain[i] {
			sub.dims = append(sub.dims, t.dims[i])
			sub.periods = append(sub.periods, t.periods[i])
			key = key*t.dims[i] + x
		} else {
			color = color*t.dims[i] + x
		}
	}
	nc, err := c.Split(color, key)
	if err != nil {
		return nil, fmt.Errorf("mpi: %s: %w", op, err)
	}
	nc.topo = sub
	return nc, nil
}

// DimsCreate returns the sizes of a Cartesian grid of nnodes processes in
// len(dims) dimensions (MPI_Dims_create): the non-zero entries of dims are
// kept, and the zero ones are chosen as close to each other as possible,
// in non-increasing order. dims is not modified. A negative entry, or
// fixed entries whose product does not divide nnodes, is an error
// wrapping ErrDims.
func DimsCreate(nnodes int, dims []int) ([]int, error) {
	if nnodes <= 0 {
		return nil, fmt.Errorf("mpi: DimsCreate of %d processes: %w (must be positive)", nnodes, ErrDims)
	}
	fixed, free := 1, 0
	for i, d := range dims {
		switch {
		case d < 0:
			return nil, fmt.Errorf("mpi: DimsCreate: dimension %d has size %d: %w", i, d, ErrDims)
		case d == 0:
			free++
		default:
			fixed *= d
		}
	}
	if nnodes%fixed != 0 || (free == 0 && fixed != nnodes) {
		return nil, fmt.Errorf("mpi: DimsCreate: the fixed sizes %v do not make a grid of %d processes: %w", dims, nnodes, ErrDims)
	}
	chosen := balancedFactors(nnodes/fixed, free)
	out := slices.Clone(dims)
	for i := range out {
		if out[i] == 0 {
			out[i], chosen = chosen[0], chosen[1:]
		}
	}
	return out, nil
}

// balancedFactors returns k factors of n in non-increasing order whose
// largest and smallest differ least (of those, the first found, which has
// the largest first factor).
func balancedFactors(n, k int) []int {
	if k == 0 {
		return nil
	}
	var best []int
	cur := make([]int, 0, k)
	var search func(rem, most int)
	search = func(rem, most int) {
		if len(cur) == k-1 {
			if rem <= most {
				cand := append(slices.Clone(cur), rem)
				if best == nil || cand[0]-rem < best[0]-best[k-1] {
					best = cand
				}
			}
			return
		}
		for d := min(rem, most); d >= 1; d-- {
			if rem%d != 0 || !reaches(d, k-len(cur), rem) {
				continue
			}
			if best != nil && len(cur) > 0 && cur[0]-d >= best[0]-best[k-1] {
				return // smaller factors only widen the spread
			}
			cur = append(cur, d)
			search(rem/d, d)
			cur = cur[:len(cur)-1]
		}
	}
	search(n, n)
	return best
}

// reaches reports whether k factors of at most d can make n: d^k >= n.
func reaches(d, k, n int) bool {
	p := 1
	for range k {
		if p *= d; p >= n {
			return true
		}
	}
	return p >= n
}
