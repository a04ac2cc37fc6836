package npb

// FT's data layouts and transposes (ft.f90's setup, fft, transpose_*).
//
// The np processes form an np1×np2 grid (ft.f90: np1 = 1, np2 = np, the
// 1-D layout, when np ≤ nz; else np1 = nz, np2 = np/nz, the 2-D layout);
// process rank has coordinates r1 = rank/np2, r2 = rank mod np2. Every
// array keeps x varying fastest, and the three layouts are
//
//   - layout 1, x-y-z: nx × ny/np1 × nz/np2 (y-rows y1…, z-planes z0…).
//     The initial conditions, the x transforms and the checksum work on
//     it.
//   - layout 2: nx/np1 × ny × nz/np2 (x-columns x0…), for the y
//     transforms. In the 1-D layout it is layout 1.
//   - layout 3: nx/np1 × ny/np2 × nz (y-rows y3…), for the z transforms
//     and the time evolution.
//
// Transpose A (layout 1 ↔ 2) runs among the np1 processes of equal r2,
// transpose B (layout 2 ↔ 3) among the np2 processes of equal r1, each an
// Alltoall of blocks ordered x-y-z, so that what a process receives from
// process q is a block of its own layout (ft.f90's transpose_x_y and
// transpose_x_z, or transpose_xy_z and transpose_x_yz in the 1-D layout).
// ft.f90 transposes locally so as to always transform contiguous lines
// (cffts1). Here the y and z transforms run across whole x-rows instead
// (as ft.f90's cffts2 and cffts3 do on one process, a few columns at a
// time): the first pass of a transform reads the rows straight from a
// transpose's receive buffer, the last writes them straight into the
// next one's send buffer, where a process's own block is, when it can be,
// the final place of its data, so that it does not travel. Only the x
// transforms copy their lines to and from a scratch block. The arithmetic
// of every 1-D transform is ft.f90's; only the copies around them differ.

import (
	"fmt"
	"math"

	"github.com/rhinet-go/martini/mpi"
)

// ftGrid is one process's share of the problem and its arrays.
type ftGrid struct {
	np, rank   int
	nx, ny, nz int
	// np1×np2 is the process grid and r1, r2 this process's place in it;
	// rowA holds the np1 processes of transpose A, colB the np2 of
	// transpose B (ft.f90's commslice2 and commslice1); rowA is nil when
	// np1 = 1.
	np1, np2   int
	r1, r2     int
	rowA, colB *mpi.Comm

	// Layout 1 has nyA = ny/np1 y-rows from y1 and nzB = nz/np2 z-planes
	// from z0, layout 2 nxA = nx/np1 x-columns from x0, and layout 3
	// nyB = ny/np2 y-rows from y3 and nxA x-columns.
	nxA, x0 int
	nyA, y1 int
	nzB, z0 int
	nyB, y3 int
	// The z-planes of layout 1 lie p1 = nx·nyA+ftPlanePad elements apart,
	// those of layout 3 (and of transpose B's blocks) p3 =
	// nxA·nyB+ftPlanePad: the padding keeps the elements of a z-line off
	// the same cache sets.
	p1, p3 int
	// blkA and blkB are the blocks every process sends every other one in
	// transposes A and B (ft.f90: ntdivnp/np).
	blkA, blkB int

	// u0 holds the transformed initial condition, evolved step by step
	// (layout 3); u1 and u2 are work arrays (ft_fields). The forward
	// transform may leave its result in another of them and swap names.
	u0, u1, u2 []complex128

	// ex holds the evolution factors exp(-4·alpha·pi²·s) for every
	// s = i²+j²+k² that occurs, sq the i² of the x-columns of layout 3
	// and zBase the j²+k² of every z of the current y-row of layout 3:
	// they stand for ft.f90's twiddle array (compute_indexmap), whose
	// element (x, y, z) is ex[zBase[z]+sq[x]].
	ex        []float64
	sq, zBase []int
	ev        ftEvolution

	fft ftFFT

	// src and dst are the rows (x-lines) a strided transform reads and
	// writes, one for each point of its lines.
	src, dst [][]complex128
	// countsB and displsB describe transpose B's blocks for Alltoallv:
	// one of blkB elements for every other process, none for this one,
	// whose block is always in place.
	countsB, displsB []int
	// line is a buffer of one x-line of random numbers.
	line []float64
}

// ftLayout returns ft.f90's process grid np1×np2 for np processes, or
// the one with np1 = force when force > 0.
func ftLayout(p ftClassParams, np, force int) (np1, np2 int, err error) {
	switch {
	case force > 0:
		np1 = force
	case np <= p.nz:
		np1 = 1
	default:
		np1 = p.nz
	}
	np2 = np / np1
	// Every split dimension must hold at least one point per process.
	if np1*np2 != np || np1 > p.nx || np1 > p.ny || np2 > p.ny || np2 > p.nz {
		return 0, 0, fmt.Errorf("npb: ft: %d processes for a %dx%dx%d grid: %w", np, p.nx, p.ny, p.nz, ErrUnsupported)
	}
	return np1, np2, nil
}

// newFTGrid sets up process rank's part of the grid of p among the np
// processes of c (ft.f90's setup): the process grid (np1 = force if
// force > 0), its communicators and the arrays. c may be nil on one
// process (for the tests).
func newFTGrid(c *mpi.Comm, p ftClassParams, np, rank, force int) (*ftGrid, error) {
	np1, np2, err := ftLayout(p, np, force)
	if err != nil {
		return nil, err
	}
	g := &ftGrid{
		np: np, rank: rank, nx: p.nx, ny: p.ny, nz: p.nz,
		np1: np1, np2: np2, r1: rank / np2, r2: rank % np2,
	}
	g.nxA, g.nyA = p.nx/np1, p.ny/np1
	g.nzB, g.nyB = p.nz/np2, p.ny/np2
	g.x0, g.y1 = g.r1*g.nxA, g.r1*g.nyA
	g.z0, g.y3 = g.r2*g.nzB, g.r2*g.nyB
	g.p1 = p.nx*g.nyA + ftPlanePad
	g.p3 = g.nxA*g.nyB + ftPlanePad
	g.blkA = g.nxA * g.nyA * g.nzB
	g.blkB = g.nzB * g.p3
	if c != nil {
		// ft.f90: commslice1 (same r1, ranked by r2) and commslice2
		// (same r2, ranked by r1).
		if g.colB, err = c.Split(g.r1, g.r2); err != nil {
			return nil, fmt.Errorf("npb: ft: %w", err)
		}
		if np1 > 1 {
			if g.rowA, err = c.Split(g.r2, g.r1); err != nil {
				return nil, fmt.Errorf("npb: ft: %w", err)
			}
		}
	}

	n := max(g.nzB*g.p1, np2*g.blkB, np1*g.blkA)
	g.u0 = hugeSlice[complex128](n)
	g.u1 = hugeSlice[complex128](n)
	if np > 1 {
		g.u2 = hugeSlice[complex128](n)
	}
	h := func(n int) int { return n / 2 }
	g.ex = make([]float64, h(p.nx)*h(p.nx)+h(p.ny)*h(p.ny)+h(p.nz)*h(p.nz)+1)
	g.sq = make([]int, g.nxA)
	g.zBase = make([]int, p.nz)
	maxdim := max(p.nx, p.ny, p.nz)
	g.fft = newFTFFT(maxdim, p.nx)
	g.ev = ftEvolution{ex: g.ex, base: g.zBase, sq: g.sq}
	g.src = make([][]complex128, maxdim)
	g.dst = make([][]complex128, maxdim)
	g.countsB = make([]int, np2)
	g.displsB = make([]int, np2)
	for q := range np2 {
		if q != g.r2 {
			g.countsB[q] = g.blkB
		}
		g.displsB[q] = q * g.blkB
	}
	g.line = make([]float64, 2*p.nx)
	return g, nil
}

// free releases the grid's communicators (collective over the grid's
// processes).
func (g *ftGrid) free() error {
	for _, c := range []*mpi.Comm{g.rowA, g.colB} {
		if c != nil {
			if err := c.Free(); err != nil {
				return fmt.Errorf("npb: ft: %w", err)
			}
		}
	}
	return nil
}

// ftWave returns the signed wave number of index i of n points:
// 0, 1, …, n/2-1, -n/2, …, -1 (compute_indexmap's mod(i-1+n/2, n) - n/2).
func ftWave(i, n int) int { return (i+n/2)%n - n/2 }

// computeIndexMap computes the evolution factors (compute_indexmap):
// element (i, j, k) of the grid, with signed wave numbers i, j, k, is
// multiplied by exp(-4·alpha·pi²·(i²+j²+k²)) every step. The sum takes
// few distinct values; their exponentials are computed once each, with
// ft.f90's expression, and the squares of the wave numbers kept apart.
func (g *ftGrid) computeIndexMap() {
	ap := -4.0 * ftAlpha * ftPi * ftPi
	for s := range g.ex {
		g.ex[s] = math.Exp(ap * float64(s))
	}
	for x := range g.sq {
		ii := ftWave(g.x0+x, g.nx)
		g.sq[x] = ii * ii
	}
}

// computeInitialConditions fills u1 (layout 1) with NPB's random numbers:
// the grid is filled x-line by x-line, y-z order, real and imaginary
// parts taking consecutive numbers of the sequence, so that every process
// jumps to its first line and then from plane to plane
// (compute_initial_conditions, ipow46).
func (g *ftGrid) computeInitialConditions() {
	nx, ny := g.nx, g.ny
	start := float64(Seed)
	Randlc(&start, Pow46(A, int64(2*nx)*int64(g.z0*ny+g.y1)))
	an := Pow46(A, int64(2*nx)*int64(ny))
	line := g.line[:2*nx]
	for k := range g.nzB {
		x0 := start
		for yl := range g.nyA {
			Vranlc(&x0, A, line)
			row := g.row1(g.u1, yl, k)
			for i := range row {
				row[i] = complex(line[2*i], line[2*i+1])
			}
		}
		if k != g.nzB-1 {
			Randlc(&start, an)
		}
	}
}

// row1 returns local y-row yl of local z-plane k of a in layout 1.
func (g *ftGrid) row1(a []complex128, yl, k int) []complex128 {
	return a[g.nx*yl+g.p1*k:][:g.nx]
}

// plane1 returns local z-plane k of a in layout 1.
func (g *ftGrid) plane1(a []complex128, k int) []complex128 {
	return a[g.p1*k:][:g.nx*g.nyA]
}

// rowInA returns y-row y of local z-plane k of layout 2 in transpose A's
// order, the receive buffer's forward and the send buffer's backward: the
// block of process q = y/nyA of the row, at q·blkA, holds x-y-z its
// y-rows of this process's x-columns, which are the x-columns of its
// layout 1.
func (g *ftGrid) rowInA(a []complex128, y, k int) []complex128 {
	q := y / g.nyA
	return a[q*g.blkA+g.nxA*(y%g.nyA+g.nyA*k):][:g.nxA]
}

// rowB returns y-row y of local z-plane k of layout 2 in transpose B's
// order, the send buffer's forward and the receive buffer's backward: the
// block of process q = y/nyB of the column, at q·blkB, holds x-y-z its
// y-rows of every local z-plane, which is the layout 3 order of that
// process. This process's own block is taken from own instead of a.
func (g *ftGrid) rowB(a, own []complex128, y, k int) []complex128 {
	q := y / g.nyB
	if q == g.r2 {
		a = own
	}
	return a[q*g.blkB+g.nxA*(y%g.nyB)+g.p3*k:][:g.nxA]
}

// row3 returns the x-row of z of local y-row yl of a in layout 3.
func (g *ftGrid) row3(a []complex128, yl, z int) []complex128 {
	return a[g.nxA*yl+g.p3*z:][:g.nxA]
}

// transposeA exchanges all the blocks of send among the processes of
// transpose A (ft.f90's transpose_x_y_global).
func (g *ftGrid) transposeA(send, recv []complex128) error {
	n := g.np1 * g.blkA
	if err := mpi.Alltoall(g.rowA, send[:n], recv[:n]); err != nil {
		return fmt.Errorf("npb: ft: transpose: %w", err)
	}
	return nil
}

// transposeB sends the blocks of send for the other processes of
// transpose B and receives theirs into recv (ft.f90's transpose2_global
// and transpose_x_z_global); this process's block is already in place.
func (g *ftGrid) transposeB(send, recv []complex128) error {
	if g.np2 == 1 {
		return nil
	}
	if err := mpi.Alltoallv(g.colB, send, g.countsB, g.displsB, recv, g.countsB, g.displsB); err != nil {
		return fmt.Errorf("npb: ft: transpose: %w", err)
	}
	return nil
}

// forward transforms u1 (layout 1) into u0 (layout 3); u1 is overwritten
// (ft.f90's fft(1, u1, u0)).
func (g *ftGrid) forward() error {
	// Layout 2 is layout 1 itself in the 1-D layout; the y transforms
	// go to transpose B's send buffer u2, their own block to out, where
	// the z transforms will find it.
	in, out := g.u1, g.u0
	if g.np1 > 1 {
		if err := g.forwardX(); err != nil {
			return err
		}
		in, out = g.u0, g.u1
	}
	g.forwardY(in, out)
	if g.np1 == 1 {
		g.declare(ftC2, g.nx)
	}
	g.declare(ftC2, g.ny)
	if err := g.transposeB(g.u2, out); err != nil {
		return err
	}
	g.forwardZ(out)
	g.declare(ftC2, g.nz)
	if g.np1 > 1 {
		g.u0, g.u1 = g.u1, g.u0
	}
	return nil
}

// forwardX is the forward transform's first pass in the 2-D layout: the
// x transforms of u1 in place (cffts1), then transpose A, which brings
// each process the x-columns of layout 2: the x-lines are cut into the
// blocks of the row's processes in u2 (transpose_x_y_local) and
// exchanged into u0.
func (g *ftGrid) forwardX() error {
	nx := g.nx
	for k := range g.nzB {
		g.fft.contiguous(1, g.plane1(g.u1, k), nx)
		for yl := range g.nyA {
			row := g.row1(g.u1, yl, k)
			for q := range g.np1 {
				copy(g.u2[q*g.blkA+g.nxA*(yl+g.nyA*k):][:g.nxA], row[q*g.nxA:])
			}
		}
	}
	g.declare(ftC2, nx)
	return g.transposeA(g.u2, g.u0)
}

// forwardY is the y transforms of the forward transform (cffts2), from
// in (layout 2) to transpose B's send buffer u2, in its order, and out
// for this process's own block; in the 1-D layout it does the x
// transforms of each plane first (cffts1), since layout 2 is layout 1
// there.
func (g *ftGrid) forwardY(in, out []complex128) {
	nx, ny := g.nx, g.ny
	for k := range g.nzB {
		for y := range ny {
			if g.np1 > 1 {
				g.src[y] = g.rowInA(in, y, k)
			} else {
				g.src[y] = g.row1(in, y, k)
			}
			g.dst[y] = g.rowB(g.u2, out, y, k)
		}
		if g.np1 == 1 {
			g.fft.contiguous(1, g.plane1(in, k), nx)
		}
		g.fft.strided(1, ny, g.src, g.dst, g.nxA, nil)
	}
}

// forwardZ is the last pass of the forward transform: the z transforms of
// out (layout 3) in place (cffts3, or cffts1 of layout 3).
func (g *ftGrid) forwardZ(out []complex128) {
	nz := g.nz
	for yl := range g.nyB {
		for z := range nz {
			g.src[z] = g.row3(out, yl, z)
		}
		g.fft.strided(1, nz, g.src, g.src, g.nxA, nil)
	}
}

// evolveInverse evolves u0 one time step (evolve) and transforms it back
// into u1 (layout 1) (ft.f90's evolve and fft(-1, u1, u2)); the evolution
// is done in the first pass of the z transforms.
func (g *ftGrid) evolveInverse() error {
	// Transpose B's receive buffer: u2, or u1 itself on one process.
	recv := g.u1
	if g.np > 1 {
		recv = g.u2
	}
	g.evolveZ(recv)
	g.declare(ftC3, 1)
	g.declare(ftC4, g.nz)
	if err := g.transposeB(g.u1, recv); err != nil {
		return err
	}
	if g.np1 == 1 {
		g.inverseYX(recv)
		g.declare(ftC4, g.ny)
		g.declare(ftC4, g.nx)
		return nil
	}
	// 2-D layout: y transforms into transpose A's send buffer u1,
	// exchanged into u2 and put together into x-lines in u1
	// (transpose_x_y_finish), then the x transforms.
	g.inverseY(recv)
	g.declare(ftC4, g.ny)
	if err := g.transposeA(g.u1, g.u2); err != nil {
		return err
	}
	g.inverseX()
	g.declare(ftC4, g.nx)
	return nil
}

// evolveZ is the first pass of evolveInverse: the evolution of u0 and
// the inverse z transforms in one sweep, one y-row of layout 3 at a
// time, so that u0 is read once; it writes transpose B's send buffer u1,
// and this process's own block straight to recv, transpose B's receive
// buffer.
func (g *ftGrid) evolveZ(recv []complex128) {
	ny, nz := g.ny, g.nz
	for yl := range g.nyB {
		jj := ftWave(g.y3+yl, ny)
		for z := range nz {
			kk := ftWave(z, nz)
			g.zBase[z] = jj*jj + kk*kk
			g.src[z] = g.row3(g.u0, yl, z)
			// z-plane z goes to process z/nzB of the column: this
			// process's own block straight to the receive buffer.
			if z/g.nzB == g.r2 {
				g.dst[z] = g.row3(recv, yl, z)
			} else {
				g.dst[z] = g.row3(g.u1, yl, z)
			}
		}
		g.fft.strided(-1, nz, g.src, g.dst, g.nxA, &g.ev)
	}
}

// inverseYX ends the inverse transform in the 1-D layout, where layout 2
// is layout 1: plane by plane, the y transforms from transpose B's
// receive buffer recv into u1, then the x transforms of the plane in
// place, while it is in cache.
func (g *ftGrid) inverseYX(recv []complex128) {
	nx, ny := g.nx, g.ny
	for k := range g.nzB {
		for y := range ny {
			g.src[y] = g.rowB(recv, recv, y, k)
			g.dst[y] = g.row1(g.u1, y, k)
		}
		g.fft.strided(-1, ny, g.src, g.dst, g.nxA, nil)
		g.fft.contiguous(-1, g.plane1(g.u1, k), nx)
	}
}

// inverseY is the inverse y transforms in the 2-D layout, from transpose
// B's receive buffer recv into transpose A's send buffer u1, in its
// order.
func (g *ftGrid) inverseY(recv []complex128) {
	ny := g.ny
	for k := range g.nzB {
		for y := range ny {
			g.src[y] = g.rowB(recv, recv, y, k)
			g.dst[y] = g.rowInA(g.u1, y, k)
		}
		g.fft.strided(-1, ny, g.src, g.dst, g.nxA, nil)
	}
}

// inverseX ends the inverse transform in the 2-D layout: it puts the
// blocks transpose A left in u2 together into the x-lines of u1
// (transpose_x_y_finish), then does the x transforms of each plane in
// place.
func (g *ftGrid) inverseX() {
	nx := g.nx
	for k := range g.nzB {
		for yl := range g.nyA {
			row := g.row1(g.u1, yl, k)
			for q := range g.np1 {
				copy(row[q*g.nxA:][:g.nxA], g.u2[q*g.blkA+g.nxA*(yl+g.nyA*k):])
			}
		}
		g.fft.contiguous(-1, g.plane1(g.u1, k), nx)
	}
}

// declare declares c·ln d operations per point of this process
// (mpi.Compute), c for d = 1: ftMops's count for a pass of d-point
// transforms, or for a pass over the points.
func (g *ftGrid) declare(c float64, d int) {
	ops := float64(g.nx) * float64(g.nyA) * float64(g.nzB) * c
	if d > 1 {
		ops *= math.Log(float64(d))
	}
	mpi.Compute(ops)
}

// checksum returns the sum of the 1024 elements (j mod nx, 3j mod ny,
// 5j mod nz), j = 1…1024, of u1 (layout 1) divided by the grid size, on
// rank 0 of c (ft.f90's checksum).
func (g *ftGrid) checksum(c *mpi.Comm) (complex128, error) {
	var chk complex128
	for j := 1; j <= ftChecksumPoints; j++ {
		q, r, s := j%g.nx, (3*j)%g.ny, (5*j)%g.nz
		if r >= g.y1 && r < g.y1+g.nyA && s >= g.z0 && s < g.z0+g.nzB {
			chk += g.row1(g.u1, r-g.y1, s-g.z0)[q]
		}
	}
	n := float64(g.nx) * float64(g.ny) * float64(g.nz)
	chk = complex(real(chk)/n, imag(chk)/n)
	all := make([]complex128, 1)
	if err := mpi.Reduce(c, []complex128{chk}, all, mpi.Sum, 0); err != nil {
		return 0, fmt.Errorf("npb: ft: checksum: %w", err)
	}
	return all[0], nil
}

// setup computes the evolution factors and the initial conditions and
// transforms them (ft.f90's compute_indexmap, compute_initial_conditions,
// fft_init and fft(1, u1, u0)).
func (g *ftGrid) setup() error {
	g.computeIndexMap()
	g.computeInitialConditions()
	g.declare(ftC1, 1)
	g.fft.init(max(g.nx, g.ny, g.nz))
	return g.forward()
}
