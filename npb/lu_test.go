package npb

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestLU(t *testing.T) {
	checkKernel(t, "LU", 'S', 1, 2, 4)
}

// TestLUNorms checks the whole verification table of class S against
// NPB3.4-MPI's at the same process count (gfortran -O3 on Open MPI,
// printed by its verify): every operation is NPB's, in NPB's order, so
// the norms agree to the last printed digit of their relative errors,
// which are differences of nearly equal numbers. (At np=4 the processes'
// partial sums are added in a different order than Open MPI's allreduce
// adds them, which moves the last bits.)
func TestLUNorms(t *testing.T) {
	for _, c := range []struct {
		np   int
		want []string
	}{
		{1, []string{
			"           1   0.1619634321098E-01 0.1619634321098E-01 0.2142117456243E-14\n",
			"           3   0.1517992765340E-02 0.1517992765340E-02 0.2356972477666E-12\n",
			"           2   0.8414434204735E-04 0.8414434204735E-04 0.5959325280509E-14\n",
			"               0.7841892886594E+01 0.7841892886594E+01 0.0000000000000E+00\n",
		}},
		{2, []string{
			"           1   0.1619634321098E-01 0.1619634321098E-01 0.2998964438740E-14\n",
			"           3   0.1517992765340E-02 0.1517992765340E-02 0.2359829414002E-12\n",
			"           2   0.8414434204735E-04 0.8414434204735E-04 0.5798262435090E-14\n",
			"           5   0.1310334791411E-02 0.1310334791411E-02 0.7612298820307E-14\n",
		}},
	} {
		out, code := runKernel(t, "LU", 'S', c.np, false)
		for _, w := range c.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("np=%d: want the line %q in:\n%s", c.np, w, out)
			}
		}
	}
}

// TestLUProcGrid checks the process counts LU 3.4 accepts and the grids
// it makes of them (get_active_nprocs kind 2, isqrt2, proc_grid).
func TestLUProcGrid(t *testing.T) {
	for _, c := range []struct{ np, xdim, ydim int }{
		{1, 1, 1}, {2, 2, 1}, {4, 2, 2}, {6, 3, 2}, {8, 4, 2}, {9, 3, 3},
		{12, 4, 3}, {16, 4, 4}, {20, 5, 4}, {32, 8, 4}, {64, 8, 8}, {128, 16, 8},
		{15, 5, 3}, {18, 6, 3},
		{3, 0, 0}, {5, 0, 0}, {7, 0, 0}, {10, 0, 0}, {11, 0, 0}, {14, 0, 0}, {0, 0, 0},
	} {
		x, y, ok := luProcGrid(c.np)
		if ok != (c.xdim > 0) || x != c.xdim || y != c.ydim {
			t.Errorf("np=%d: %dx%d (%v), want %dx%d", c.np, x, y, ok, c.xdim, c.ydim)
		}
	}
}

// TestLUSubdomain checks the decomposition of class S (12³) on 6
// processes, a 3×2 grid, and the refusal of subdomains narrower than 3.
func TestLUSubdomain(t *testing.T) {
	type sub struct{ nx, ipt, ny, jpt, north, south, west, east, ist, iend, jst, jend int }
	want := []sub{
		{4, 0, 6, 0, -1, 1, -1, 3, 2, 4, 2, 6},
		{4, 4, 6, 0, 0, 2, -1, 4, 1, 4, 2, 6},
		{4, 8, 6, 0, 1, -1, -1, 5, 1, 3, 2, 6},
		{4, 0, 6, 6, -1, 4, 0, -1, 2, 4, 1, 5},
		{4, 4, 6, 6, 3, 5, 1, -1, 1, 4, 1, 5},
		{4, 8, 6, 6, 4, -1, 2, -1, 1, 3, 1, 5},
	}
	for id, w := range want {
		g, err := luNewGrid(6, id, 12)
		if err != nil {
			t.Fatal(err)
		}
		got := sub{g.nx, g.ipt, g.ny, g.jpt, g.north, g.south, g.west, g.east, g.ist, g.iend, g.jst, g.jend}
		if got != w {
			t.Errorf("rank %d: %+v, want %+v", id, got, w)
		}
	}
	// 33 over 5 rows: 7, 7, 7, 6, 6 (the first 33 mod 5 one larger).
	for row, w := range [][2]int{{7, 0}, {7, 7}, {7, 14}, {6, 21}, {6, 27}} {
		if n, off := luSplit(33, 5, row); n != w[0] || off != w[1] {
			t.Errorf("luSplit(33, 5, %d) = %d, %d; want %d, %d", row, n, off, w[0], w[1])
		}
	}
	if _, err := luNewGrid(32, 0, 12); !errors.Is(err, ErrUnsupported) {
		t.Errorf("12³ on 32 processes (8×4, 1 or 2 points in i): %v, want ErrUnsupported", err)
	}
}

// TestLUExact checks the exact solution at two corners of the grid: the
// constant coefficients at the origin, their sum at the far corner.
func TestLUExact(t *testing.T) {
	p, _ := luClassParams('S')
	s := &luSolver{g: luGrid{nx0: p.n, ny0: p.n, nz0: p.n, nz: p.n}, co: newLUCoef(p.n, p.n, p.n)}
	var u [5]float64
	s.exact(1, 1, 1, u[:])
	if u != [5]float64{2, 1, 2, 2, 5} {
		t.Errorf("exact at the origin: %v, want 2 1 2 2 5", u)
	}
	s.exact(p.n, p.n, p.n, u[:])
	want := [5]float64{15.76, 8.26, 10.32, 9.72, 15.52} // the sums of setcoeff's rows
	for m := range u {
		if math.Abs(u[m]-want[m]) > 1e-13 {
			t.Errorf("exact at the far corner, component %d: %v, want %v", m+1, u[m], want[m])
		}
	}
}

// TestLUJacobians checks the convective parts of the neighbour blocks
// against central differences of the convective fluxes: with the
// viscous coefficients zero (tx1 = ty1 = tz1 = 0), jacld's block in a
// direction is the convective factor times the flux Jacobian there.
func TestLUJacobians(t *testing.T) {
	co := newLUCoef(12, 12, 12)
	co.tx1, co.ty1, co.tz1 = 0, 0, 0
	k := newLUJacConst(&co, 0.5, 1.2)
	rng := rand.New(rand.NewPCG(1, 2))
	jacs := []func(a *[25]float64, w *[5]float64, t1, cv float64, k *luJacConst){luJacX, luJacY, luJacZ}
	for trial := range 20 {
		w := [5]float64{1 + rng.Float64(), rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5, 2 + rng.Float64()}
		for dir, jac := range jacs {
			var a [25]float64
			const cv = 0.75
			jac(&a, &w, 1.0/w[0], cv, &k)
			for col := range 5 {
				const h = 1e-6
				wp, wm := w, w
				wp[col] += h
				wm[col] -= h
				var fp, fm [5]float64
				luConvective(&fp, &wp, dir+1)
				luConvective(&fm, &wm, dir+1)
				for row := range 5 {
					want := cv * (fp[row] - fm[row]) / (2 * h)
					if got := a[5*row+col]; math.Abs(got-want) > 1e-7*(1+math.Abs(want)) {
						t.Errorf("trial %d, direction %d: entry (%d,%d) = %v, the flux derivative gives %v", trial, dir, row+1, col+1, got, want)
					}
				}
			}
		}
	}
}

// TestLUSolveDiag checks the solve with the diagonal block against NPB's
// full Gaussian elimination of blts (every entry of the 5×5 block, the
// zeros included): the results agree bit for bit.
func TestLUSolveDiag(t *testing.T) {
	co := newLUCoef(64, 64, 64)
	k := newLUJacConst(&co, 2, 1.2)
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 100 {
		w := [5]float64{1 + rng.Float64(), rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5, 2 + rng.Float64()}
		var d luDiag
		luJacD(&d, &w, 1.0/w[0], &k)
		v := [5]float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()}
		want := luRefSolve(&d, v)
		luSolveDiag(&d, &v)
		if v != want {
			t.Errorf("trial %d: %v, NPB's elimination gives %v", trial, v, want)
		}
	}
}

// luRefSolve is blts's elimination as NPB writes it, on the full block.
func luRefSolve(d *luDiag, v [5]float64) [5]float64 {
	tm := [5][5]float64{
		{d.d11, 0, 0, 0, 0},
		{d.d21, d.d22, 0, 0, 0},
		{d.d31, 0, d.d33, 0, 0},
		{d.d41, 0, 0, d.d44, 0},
		{d.d51, d.d52, d.d53, d.d54, d.d55},
	}
	for p := range 4 {
		t1 := 1.0 / tm[p][p]
		for r := p + 1; r < 5; r++ {
			t := t1 * tm[r][p]
			for c := p + 1; c < 5; c++ {
				tm[r][c] = tm[r][c] - t*tm[p][c]
			}
			v[r] = v[r] - v[p]*t
		}
	}
	for r := 4; r >= 0; r-- {
		for c := r + 1; c < 5; c++ {
			v[r] = v[r] - tm[r][c]*v[c]
		}
		v[r] = v[r] / tm[r][r]
	}
	return v
}

// TestLUOps checks the operation count of class A with lu.f90's
// single-precision literals (1984.77 is 1984.77001953125 as a Fortran
// default real).
func TestLUOps(t *testing.T) {
	p, _ := luClassParams('A')
	if got := luOps(p); got != 119296760906.25 {
		t.Errorf("class A: %v operations, want 119296760906.25", got)
	}
}

// luOffline is a solver of class c on one process, without a
// communicator, set up as ssor finds it: u the initial values, frct the
// forcing, rsd the first residual.
func luOffline(tb testing.TB, c Class) *luSolver {
	p, _ := luClassParams(c)
	g, err := luNewGrid(1, 0, p.n)
	if err != nil {
		tb.Fatal(err)
	}
	s := newLUArrays(g, p)
	s.setbv()
	s.setiv()
	for k := 1; k <= g.nz; k++ {
		for j := 1; j <= g.ny; j++ {
			for i := 1; i <= g.nx; i++ {
				s.exact(i, j, k, s.point(s.rsd, i, j, k))
			}
		}
	}
	s.fluxDivergence(s.rsd, s.frct, true)
	for i, f := range s.frct {
		s.rsd[i] = -f
	}
	s.fluxDivergence(s.u, s.rsd, false)
	return s
}

// step runs one SSOR step of an offline solver: the scaling, both
// sweeps, the update and rhs, without the message passing.
func (s *luSolver) offlineStep() {
	g, p := &s.g, &s.p
	s.scaleInterior(s.rsd, p.dt)
	for k := 2; k <= g.nz-1; k++ {
		s.lowerPlane(k)
	}
	for k := g.nz - 1; k >= 2; k-- {
		s.upperPlane(k)
	}
	s.addInterior(s.u, s.rsd, 1/(p.omega*(2-p.omega)))
	for i, f := range s.frct {
		s.rsd[i] = -f
	}
	s.fluxDivergence(s.u, s.rsd, false)
}

// BenchmarkLUStep times one SSOR step of class A on one process without
// the message passing.
func BenchmarkLUStep(b *testing.B) {
	s := luOffline(b, 'A')
	b.ResetTimer()
	for range b.N {
		s.offlineStep()
	}
}
