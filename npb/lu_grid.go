package npb

import (
	"fmt"
	"math"
)

// The process grid, the subdomains and the array layout of LU (NPB3.4-MPI
// LU/init_comm.f90 with common/get_active_nprocs.f90, proc_grid.f90,
// neighbors.f90, subdomain.f90, and the array shapes of lu_data.f90).
//
// The nx0 × ny0 × nz0 grid is split in i over xdim process rows and in j
// over ydim process columns; every process holds all of k. Process id sits
// in row id mod xdim and column id / xdim; its north neighbour (smaller i)
// is id−1, south id+1, west (smaller j) id−xdim and east id+xdim.

// luProcGrid returns the process grid LU 3.4 uses for np processes, and
// false for a count it refuses. get_active_nprocs (kind 2) accepts np when
// np = np1·np2 for its candidate shapes (the power-of-two split, or a
// factor n of np between √np and √(2np)); isqrt2 must then find a factor
// xdiv with np/xdiv ≤ xdiv ≤ 2·np/xdiv, and proc_grid lowers ydim from √np
// to the first divisor that is not below np/xdiv.
func luProcGrid(np int) (xdim, ydim int, ok bool) {
	if np <= 0 || luActiveProcs(np) != np {
		return 0, 0, false
	}
	xdiv := luIsqrt2(np)
	if xdiv <= 0 {
		return 0, 0, false
	}
	xdim0, ydim0 := xdiv, np/xdiv
	ydim = int(math.Sqrt(float64(np)) + 0.001)
	xdim = np / ydim
	for ydim >= ydim0 && xdim*ydim != np {
		ydim--
		xdim = np / ydim
	}
	if xdim < xdim0 || ydim < ydim0 || xdim*ydim != np {
		return 0, 0, false
	}
	return xdim, ydim, true
}

// luActiveProcs is the number of processes get_active_nprocs (kind 2)
// keeps active out of np.
func luActiveProcs(np int) int {
	l := int(math.Log(float64(np)+1e-3) / math.Log(2))
	np2 := l / 2
	npa := (1 << (l - np2)) * (1 << np2)
	if npa < np {
		lo := int(math.Sqrt(float64(np) + 1e-3))
		hi := int(math.Sqrt(float64(2*np) + 1e-3))
		for n := lo; n <= hi; n++ {
			w := np / n * n
			if n == 1 && np == 3 {
				w = 2
			}
			npa = max(npa, w)
		}
	}
	return npa
}

// luIsqrt2 is proc_grid.f90's isqrt2: √i for a square, otherwise the
// smallest factor x ≥ √i of i with i/x ≥ x/2, or −1.
func luIsqrt2(i int) int {
	if i <= 0 {
		return -1
	}
	x := 1
	for sq := 0; sq <= i; x++ {
		sq = x * x
		if sq == i {
			return x
		}
	}
	x-- // the root of the first square above i
	y := i / x
	for x*y != i && 2*y >= x {
		x++
		y = i / x
	}
	if x*y != i || 2*y < x {
		return -1
	}
	return x
}

// luProcs reports whether LU runs on np processes.
func luProcs(np int) bool {
	_, _, ok := luProcGrid(np)
	return ok
}

// luGrid is one process's subdomain. Indices are NPB's: local i in 1..nx,
// j in 1..ny, k in 1..nz; global i = ipt + local i.
type luGrid struct {
	id, np                   int
	xdim, ydim               int
	row, col                 int // 0-based
	north, south, east, west int // neighbour ranks, −1 at the edge of the grid
	nx0, ny0, nz0            int
	nx, ny, nz               int
	ipt, jpt                 int
	// The points updated by the solver: i in ist..iend, j in jst..jend
	// (the global boundary planes excluded).
	ist, iend, jst, jend int
}

// luNewGrid returns process id's subdomain of an n0³ grid among np
// processes, or an error wrapping ErrUnsupported where subdomain.f90
// aborts (a side shorter than 3 points).
func luNewGrid(np, id, n0 int) (luGrid, error) {
	xdim, ydim, ok := luProcGrid(np)
	if !ok {
		return luGrid{}, fmt.Errorf("npb: lu: %d processes: %w", np, ErrUnsupported)
	}
	g := luGrid{id: id, np: np, xdim: xdim, ydim: ydim, row: id % xdim, col: id / xdim,
		north: -1, south: -1, east: -1, west: -1, nx0: n0, ny0: n0, nz0: n0}
	if g.row > 0 {
		g.north = id - 1
	}
	if g.row < xdim-1 {
		g.south = id + 1
	}
	if g.col > 0 {
		g.west = id - xdim
	}
	if g.col < ydim-1 {
		g.east = id + xdim
	}
	g.nx, g.ipt = luSplit(g.nx0, xdim, g.row)
	g.ny, g.jpt = luSplit(g.ny0, ydim, g.col)
	g.nz = g.nz0
	if g.nx < 3 || g.ny < 3 || g.nz < 3 {
		return g, fmt.Errorf("npb: lu: subdomain %dx%dx%d on %d processes, NPB needs at least 3 points a side: %w",
			g.nx, g.ny, g.nz, np, ErrUnsupported)
	}
	g.ist, g.iend, g.jst, g.jend = 1, g.nx, 1, g.ny
	if g.north == -1 {
		g.ist = 2
	}
	if g.south == -1 {
		g.iend = g.nx - 1
	}
	if g.west == -1 {
		g.jst = 2
	}
	if g.east == -1 {
		g.jend = g.ny - 1
	}
	return g, nil
}

// luSplit returns the size and offset of part p of n points split into
// parts pieces, the first n mod parts one larger.
func luSplit(n, parts, p int) (size, offset int) {
	mm := n % parts
	if p < mm {
		size = n/parts + 1
		return size, p * size
	}
	size = n / parts
	return size, p*size + mm
}

// luLayout is the shape of a field of five components on a subdomain,
// with two ghost layers in i and j (NPB's u(5, -1:nx+2, -1:ny+2, nz)):
// component m (0-based) of point (i, j, k) is at at(i, j, k) + m, the
// components fastest, then i, j and k.
type luLayout struct {
	sj, sk int // strides of j and k
	size   int
}

func newLULayout(g *luGrid) luLayout {
	sj := 5 * (g.nx + 4)
	sk := sj * (g.ny + 4)
	return luLayout{sj: sj, sk: sk, size: sk * g.nz}
}

// at returns the offset of point (i, j, k), NPB's indices.
func (l *luLayout) at(i, j, k int) int { return 5*(i+1) + l.sj*(j+1) + l.sk*(k-1) }
