package npb

// The multi-partition decomposition that BT and SP share (NPB3.4-MPI
// BT/make_set.f90, BT/define.f90 and the start/end flags of
// BT/initialize.f90's lhsinit; SP's are the same).
//
// With np = p² processes the grid is cut into p×p×p cells; every process
// holds p of them, one in each plane of cells along every axis, so that a
// line solve along any axis keeps all processes busy: the cells of a
// process are numbered c = 0..p−1 by their z plane, and successive cells
// of a process step diagonally (+1 in x, −1 in y, modulo p) through the
// xy planes. A cell's neighbour in a direction always belongs to the same
// process (the successor or predecessor in that direction) whichever the
// cell, so each sweep and each face exchange talks to one process per
// direction.

import (
	"fmt"
	"math"
)

// adiGhost is the width of u's ghost layer (the fourth-order dissipation
// reaches two points out); the derived fields have one ghost layer.
const adiGhost = 2

// adiCell is one cell of the decomposition held by this process, with its
// fields. Arrays are flat, the component m (0..4) of a point fastest, then
// i, j, k:
//
//   - u: the solution with two ghost layers, point (i, j, k) for
//     i = −2..size[0]+1 at 5·((i+2) + (size[0]+4)·((j+2) + (size[1]+4)·(k+2)));
//   - rhs and forcing: no ghosts, 5·(i + size[0]·(j + size[1]·k));
//   - the derived fields rhoI, us, vs, ws, qs (and SP's speed and ainv):
//     one value per point with one ghost layer,
//     (i+1) + (size[0]+2)·((j+1) + (size[1]+2)·(k+1));
//   - rhsFields: the fields that the right-hand side's stencils read,
//     packed by point (adiPacked values at adiPacked times the index of
//     the derived fields), so that a neighbour's six values are one
//     slice of the array.
type adiCell struct {
	coord [3]int // the cell's coordinates, 0..p−1
	size  [3]int // points on each axis
	low   [3]int // global index (0-based) of the first point on each axis
	// start[d] is 1 if the cell holds the grid's first plane on axis d (a
	// boundary that is not updated), end[d] is 1 if it holds the last.
	start, end [3]int

	// diss[d][q] are the weights of the dissipation stencil at position
	// q on axis d.
	diss [3][][5]float64

	u, rhs, forcing      []float64
	rhoI, us, vs, ws, qs []float64
	speed, ainv          []float64 // SP only
	rhsFields            []float64
}

// uStride returns u's strides (in float64s) along i, j and k.
func (c *adiCell) uStride() (si, sj, sk int) {
	ni, nj := c.size[0]+2*adiGhost, c.size[1]+2*adiGhost
	return 5, 5 * ni, 5 * ni * nj
}

// uAt returns the index in u of component 0 of point (i, j, k).
func (c *adiCell) uAt(i, j, k int) int {
	_, sj, sk := c.uStride()
	return 5*(i+adiGhost) + sj*(j+adiGhost) + sk*(k+adiGhost)
}

// aStride returns the strides of the derived fields along i, j and k.
func (c *adiCell) aStride() (si, sj, sk int) {
	ni, nj := c.size[0]+2, c.size[1]+2
	return 1, ni, ni * nj
}

// aAt returns the index of point (i, j, k) in the derived fields.
func (c *adiCell) aAt(i, j, k int) int {
	_, sj, sk := c.aStride()
	return (i + 1) + sj*(j+1) + sk*(k+1)
}

// rAt returns the index in rhs and forcing of component 0 of point
// (i, j, k).
func (c *adiCell) rAt(i, j, k int) int {
	return 5 * (i + c.size[0]*(j+c.size[1]*k))
}

// points returns the number of points of the cell.
func (c *adiCell) points() int { return c.size[0] * c.size[1] * c.size[2] }

// interior returns the first and last point on axis d that the time step
// updates (the boundary planes of the grid stay fixed).
func (c *adiCell) interior(d int) (lo, hi int) {
	return c.start[d], c.size[d] - c.end[d] - 1
}

// adiGrid is one process's part of the decomposition.
type adiGrid struct {
	ncells int    // p: cells per axis, and cells per process
	gp     [3]int // grid points on each axis
	// pred[d] and succ[d] are the ranks holding the neighbours of this
	// process's cells in direction −d and +d.
	pred, succ [3]int
	cells      []adiCell
	// slice[d][n] is the index in cells of the cell at coordinate n on
	// axis d.
	slice [3][]int
}

// adiCellsPerAxis returns √np, the number of cells per axis, for a square
// np.
func adiCellsPerAxis(np int) int {
	return int(math.Sqrt(float64(np) + 0.00001))
}

// adiNewGrid decomposes a grid of gp points per axis over np processes (a
// square) and returns process me's part, its cells allocated for SP's
// fields as well when sp is set. Cells of fewer than three points on an
// axis are refused, as make_set does.
func adiNewGrid(gp [3]int, np, me int, sp bool) (*adiGrid, error) {
	p := adiCellsPerAxis(np)
	if p*p != np {
		return nil, fmt.Errorf("%d processes: %w (want a square number)", np, ErrUnsupported)
	}
	g := &adiGrid{ncells: p, gp: gp, cells: make([]adiCell, p)}
	i0, j0 := me%p, me/p
	for c := range g.cells {
		// Each further cell steps +1 in x and −1 in y, one plane up in z.
		g.cells[c].coord = [3]int{(i0 + c) % p, ((j0-c)%p + p) % p, c}
	}
	mod := func(a int) int { return (a%p + p) % p }
	g.pred = [3]int{mod(i0-1) + p*j0, i0 + p*mod(j0-1), mod(i0+1) + p*mod(j0-1)}
	g.succ = [3]int{mod(i0+1) + p*j0, i0 + p*mod(j0+1), mod(i0-1) + p*mod(j0+1)}
	for d := range 3 {
		g.slice[d] = make([]int, p)
		size, excess := gp[d]/p, gp[d]%p
		for ci := range g.cells {
			cell := &g.cells[ci]
			n := cell.coord[d]
			g.slice[d][n] = ci
			if n < excess {
				cell.size[d] = size + 1
				cell.low[d] = n * (size + 1)
			} else {
				cell.size[d] = size
				cell.low[d] = excess*(size+1) + (n-excess)*size
			}
			if cell.size[d] <= 2 {
				return nil, fmt.Errorf("%d points on %d processes: cells of %d points: %w (the minimum is 3)", gp[d], np, cell.size[d], ErrUnsupported)
			}
			if n == 0 {
				cell.start[d] = 1
			}
			if n == p-1 {
				cell.end[d] = 1
			}
		}
	}
	for ci := range g.cells {
		c := &g.cells[ci]
		c.alloc(sp)
		for d := range 3 {
			c.diss[d] = make([][5]float64, c.size[d])
			for q := range c.diss[d] {
				c.diss[d][q] = adiDissipationWeights(q, c.size[d], c.start[d] == 1, c.end[d] == 1)
			}
		}
	}
	return g, nil
}

// alloc allocates the cell's fields.
func (c *adiCell) alloc(sp bool) {
	g2 := 2 * adiGhost
	nu := 5 * (c.size[0] + g2) * (c.size[1] + g2) * (c.size[2] + g2)
	na := (c.size[0] + 2) * (c.size[1] + 2) * (c.size[2] + 2)
	nr := 5 * c.points()
	fields := []floatField{{&c.u, nu}, {&c.rhs, nr}, {&c.forcing, nr},
		{&c.rhoI, na}, {&c.us, na}, {&c.vs, na}, {&c.ws, na}, {&c.qs, na}, {&c.rhsFields, adiPacked * na}}
	if sp {
		fields = append(fields, floatField{&c.speed, na}, floatField{&c.ainv, na})
	}
	allocFloats(fields...)
}

// maxSize returns the largest cell extent on any axis.
func (g *adiGrid) maxSize() int {
	m := 0
	for _, c := range g.cells {
		m = max(m, c.size[0], c.size[1], c.size[2])
	}
	return m
}

// adiOther returns the two axes other than d, in increasing order.
func adiOther(d int) (a, b int) {
	a, b = (d+1)%3, (d+2)%3
	if a > b {
		a, b = b, a
	}
	return a, b
}

// adiLines returns the number of lines along axis d through cell c's
// updated points.
func adiLines(c *adiCell, d int) int {
	a, b := adiOther(d)
	alo, ahi := c.interior(a)
	blo, bhi := c.interior(b)
	return (ahi - alo + 1) * (bhi - blo + 1)
}

// adiLineIter calls f for every line along axis d through cell c's updated
// points, with the line's number and the indices of its point at
// position 0 on the axis in u, the derived fields and rhs.
func adiLineIter(c *adiCell, d int, f func(line, pu, pa, pr int)) {
	a, b := adiOther(d)
	alo, ahi := c.interior(a)
	blo, bhi := c.interior(b)
	var idx [3]int
	line := 0
	for ib := blo; ib <= bhi; ib++ {
		for ia := alo; ia <= ahi; ia++ {
			idx[a], idx[b], idx[d] = ia, ib, 0
			f(line, c.uAt(idx[0], idx[1], idx[2]), c.aAt(idx[0], idx[1], idx[2]), c.rAt(idx[0], idx[1], idx[2]))
			line++
		}
	}
}

// adiAxisStrides returns the strides along axis d of u, the derived fields
// and rhs (in values), and of rhs in points.
func adiAxisStrides(c *adiCell, d int) (su, sa, sr int) {
	ui, uj, uk := c.uStride()
	ai, aj, ak := c.aStride()
	rs := [3]int{5, 5 * c.size[0], 5 * c.size[0] * c.size[1]}
	return [3]int{ui, uj, uk}[d], [3]int{ai, aj, ak}[d], rs[d]
}
