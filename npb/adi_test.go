package npb

import (
	"errors"
	"math"
	"testing"
)

// TestADIDecomposition checks the multi-partition scheme for every
// process of 1, 4, 9 and 16: every cell of the p×p×p partition belongs to
// exactly one process, each process has one cell in every plane of cells
// on every axis, the cells tile the grid, and the neighbour of a cell in
// either direction of an axis belongs to the process's predecessor or
// successor on that axis.
func TestADIDecomposition(t *testing.T) {
	const n = 13 // not divisible by 2, 3 or 4: cells of unequal sizes
	for _, np := range []int{1, 4, 9, 16} {
		p := adiCellsPerAxis(np)
		grids, owner := adiOwners(t, n, np, p)
		if len(owner) != p*p*p {
			t.Fatalf("np=%d: %d cells, want %d", np, len(owner), p*p*p)
		}
		checkADITiling(t, n, np, p, grids, owner)
	}
}

// adiOwners makes the grids of every process of np on n points a side,
// checks that each has one cell in every plane of the p cells of every
// axis and that no cell is held twice, and returns the grids and the
// owner of every cell.
func adiOwners(t *testing.T, n, np, p int) ([]*adiGrid, map[[3]int]int) {
	t.Helper()
	owner := map[[3]int]int{}
	grids := make([]*adiGrid, np)
	for me := range np {
		g, err := adiNewGrid([3]int{n, n, n}, np, me, false)
		if err != nil {
			t.Fatalf("np=%d me=%d: %v", np, me, err)
		}
		grids[me] = g
		for d := range 3 {
			seen := make([]bool, p)
			for _, ci := range g.slice[d] {
				seen[g.cells[ci].coord[d]] = true
			}
			for x, ok := range seen {
				if !ok {
					t.Errorf("np=%d me=%d: no cell at %d on axis %d", np, me, x, d)
				}
			}
		}
		for _, c := range g.cells {
			if prev, dup := owner[c.coord]; dup {
				t.Errorf("np=%d: cell %v held by %d and %d", np, c.coord, prev, me)
			}
			owner[c.coord] = me
		}
	}
	return grids, owner
}

// checkADITiling checks that the cells tile the grid, and that the
// neighbour of a cell along each axis belongs to the process's successor
// on that axis, whose predecessor is the process.
func checkADITiling(t *testing.T, n, np, p int, grids []*adiGrid, owner map[[3]int]int) {
	t.Helper()
	for me, g := range grids {
		for _, c := range g.cells {
			for d := range 3 {
				// The cells tile the axis: the next one starts where
				// this one ends.
				next := c.coord
				next[d]++
				if next[d] == p {
					if c.low[d]+c.size[d] != n || c.end[d] != 1 {
						t.Errorf("np=%d: last cell on axis %d ends at %d (end flag %d), want %d", np, d, c.low[d]+c.size[d], c.end[d], n)
					}
					continue
				}
				other := grids[owner[next]]
				oc := other.cells[other.slice[d][next[d]]]
				if oc.low[d] != c.low[d]+c.size[d] {
					t.Errorf("np=%d: cell %v ends at %d, cell %v starts at %d", np, c.coord, c.low[d]+c.size[d], oc.coord, oc.low[d])
				}
				if owner[next] != g.succ[d] {
					t.Errorf("np=%d me=%d: the neighbour of %v along +%d is held by %d, not the successor %d", np, me, c.coord, d, owner[next], g.succ[d])
				}
				if other.pred[d] != me {
					t.Errorf("np=%d: the predecessor of %d on axis %d is %d, want %d", np, owner[next], d, other.pred[d], me)
				}
			}
		}
	}
}

// TestADIFaceBuffers checks, for every process of 4, 9 and 16 on a grid
// that splits into cells of unequal sizes, that each face message a
// process sends is as long as the buffer its receiver posts for it and as
// the faces the receiver unpacks from it.
func TestADIFaceBuffers(t *testing.T) {
	const n = 13
	for _, np := range []int{4, 9, 16} {
		grids := make([]*adiGrid, np)
		faces := make([]*adiFaces, np)
		for me := range np {
			g, err := adiNewGrid([3]int{n, n, n}, np, me, false)
			if err != nil {
				t.Fatalf("np=%d me=%d: %v", np, me, err)
			}
			grids[me], faces[me] = g, adiNewFaces(g)
		}
		for me, g := range grids {
			for d := range 3 {
				for side := range 2 {
					to := [2]int{g.pred[d], g.succ[d]}[side]
					sent, posted := len(faces[me].send[d][side]), len(faces[to].recv[d][side])
					if sent != posted {
						t.Errorf("np=%d: %d sends %d values along axis %d towards side %d, %d posts %d", np, me, sent, d, side, to, posted)
					}
					faces[me].pack(g, d, side)
					faces[to].unpack(grids[to], d, side) // panics if it reads past the buffer
				}
			}
		}
	}
}

// TestADIDecompositionRefuses checks that a non-square process count and
// cells of fewer than three points are refused.
func TestADIDecompositionRefuses(t *testing.T) {
	if _, err := adiNewGrid([3]int{12, 12, 12}, 2, 0, false); !errors.Is(err, ErrUnsupported) {
		t.Errorf("np=2: %v, want ErrUnsupported", err)
	}
	if _, err := adiNewGrid([3]int{12, 12, 12}, 36, 0, false); !errors.Is(err, ErrUnsupported) {
		t.Errorf("12 points on 6 cells: %v, want ErrUnsupported", err)
	}
}

// TestADIExact checks the exact solution at the corners of the unit cube
// against the sums of set_constants' coefficients.
func TestADIExact(t *testing.T) {
	origin := adiExact(0, 0, 0)
	want0 := [5]float64{2, 1, 2, 2, 5}
	if origin != want0 {
		t.Errorf("exact(0,0,0) = %v, want %v", origin, want0)
	}
	// At (1,1,1) every power is 1: the sum of the 13 coefficients, e.g.
	// 2+4+5+3+0.5+0.02+0.01+0.03+0.5+0.4+0.3 for the density.
	one := adiExact(1, 1, 1)
	want1 := [5]float64{15.76, 8.26, 10.32, 9.72, 15.52}
	for m := range 5 {
		if math.Abs(one[m]-want1[m]) > 1e-13 {
			t.Errorf("exact(1,1,1)[%d] = %v, want %v", m, one[m], want1[m])
		}
	}
	// The initial field holds the exact solution on the grid's faces.
	gp := [3]int{5, 6, 7}
	g, err := adiNewGrid(gp, 1, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	k := adiNewConsts(gp, 0.01)
	adiInitialize(g, k, btGhost)
	c := &g.cells[0]
	for _, p := range [][3]int{{0, 2, 3}, {4, 1, 6}, {2, 0, 1}, {3, 5, 2}, {1, 4, 0}, {2, 3, 6}} {
		var x [3]float64
		for d := range 3 {
			x[d] = float64(p[d]) / float64(gp[d]-1)
		}
		want := adiExact(x[0], x[1], x[2])
		got := c.u[c.uAt(p[0], p[1], p[2]):][:5]
		for m := range 5 {
			if math.Abs(got[m]-want[m]) > 1e-13 {
				t.Errorf("initial u at face point %v [%d] = %v, exact %v", p, m, got[m], want[m])
			}
		}
	}
}

// adiSetExact sets u to the exact solution on every point of every cell.
func adiSetExact(g *adiGrid, k *adiConsts) {
	for ci := range g.cells {
		c := &g.cells[ci]
		for kk := range c.size[2] {
			for jj := range c.size[1] {
				for ii := range c.size[0] {
					v := adiExact(float64(ii+c.low[0])*k.dir[0].dn, float64(jj+c.low[1])*k.dir[1].dn, float64(kk+c.low[2])*k.dir[2].dn)
					copy(c.u[c.uAt(ii, jj, kk):][:5], v[:])
				}
			}
		}
	}
}

// TestADISteadyState checks the forcing against the right-hand side: the
// exact solution is a steady state of the discrete equations, so the
// right-hand side at the exact solution vanishes to rounding, while at the
// initial field it does not.
func TestADISteadyState(t *testing.T) {
	g, k := adiTestGrid(t, [3]int{12, 12, 12}, 1, false, 0.01)
	initial := adiMaxAbs(g.cells[0].rhs)
	if initial < 1e-4 {
		t.Fatalf("right-hand side at the initial field: max %g, want a clear residual", initial)
	}
	adiSetExact(g, k)
	adiRHS(g, k, nil)
	if r := adiMaxAbs(g.cells[0].rhs); r > 1e-12*initial/k.dt {
		t.Errorf("right-hand side at the exact solution: max %g, want 0 to rounding", r)
	}
}

func adiMaxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// TestADIStepAllocs checks that a time step of BT and of SP on one
// process allocates nothing.
func TestADIStepAllocs(t *testing.T) {
	p, _ := btClassParams('S')
	bt, err := btNewState(nil, 1, 0, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(3, func() { bt.step() }); n != 0 {
		t.Errorf("BT: %v allocations per step", n)
	}
	p, _ = spClassParams('S')
	sp, err := spNewState(nil, 1, 0, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(3, func() { sp.step() }); n != 0 {
		t.Errorf("SP: %v allocations per step", n)
	}
}

// adiTestGrid returns the grid of gp points of process 0 of np, for SP
// where sp is set, else for BT, with time step dt, at its initial field,
// with the forcing and the derived fields and the right-hand side
// computed.
func adiTestGrid(t *testing.T, gp [3]int, np int, sp bool, dt float64) (*adiGrid, *adiConsts) {
	t.Helper()
	g, err := adiNewGrid(gp, np, 0, sp)
	if err != nil {
		t.Fatal(err)
	}
	k := adiNewConsts(gp, dt)
	ghost := btGhost
	if sp {
		ghost = spGhost
	}
	adiInitialize(g, k, ghost)
	adiExactRHS(g, k)
	adiRHS(g, k, nil)
	return g, k
}
