package npb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestBT(t *testing.T) {
	checkKernel(t, "BT", 'S', 1, 4)
}

// TestBTNine runs class S on 9 processes (3 cells per axis, so that a
// sweep has a middle stage that both receives and sends).
func TestBTNine(t *testing.T) {
	if testing.Short() {
		t.Skip("9 processes oversubscribed")
	}
	out, code := runKernel(t, "BT", 'S', 9, false)
	if code != 0 || !strings.Contains(out, "Verification    =               SUCCESSFUL") {
		t.Errorf("BT class S np=9 did not verify (exit %d):\n%s", code, out)
	}
}

// btRandomBlock returns a block of random entries in [−1, 1), with diag
// added to its diagonal.
func btRandomBlock(rng *rand.Rand, diag float64) btBlock {
	var b btBlock
	for r := range 5 {
		for c := range 5 {
			b[r][c] = 2*rng.Float64() - 1
		}
		b[r][r] += diag
	}
	return b
}

func btMul(a, b *btBlock) btBlock {
	var p btBlock
	for r := range 5 {
		for c := range 5 {
			for k := range 5 {
				p[r][c] += a[r][k] * b[k][c]
			}
		}
	}
	return p
}

func btMulVec(a *btBlock, v *[5]float64) [5]float64 {
	var p [5]float64
	for r := range 5 {
		for k := range 5 {
			p[r] += a[r][k] * v[k]
		}
	}
	return p
}

// TestBTBlockAlgebra checks matvec_sub, matmul_sub and binvcrhs against
// the definitions: after btBinvCRHS(b, c, r), b·c and b·r give back the
// original c and r.
func TestBTBlockAlgebra(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		a, b, c := btRandomBlock(rng, 0), btRandomBlock(rng, 6), btRandomBlock(rng, 0)
		v := [5]float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()}
		r := v
		btMatVecSub(&a, &v, &r)
		av := btMulVec(&a, &v)
		cc := c
		btMatMulSub(&a, &b, &cc)
		ab := btMul(&a, &b)
		for i := range 5 {
			if d := math.Abs(r[i] - (v[i] - av[i])); d > 1e-14 {
				t.Fatalf("matvec_sub row %d off by %g", i, d)
			}
			for j := range 5 {
				if d := math.Abs(cc[i][j] - (c[i][j] - ab[i][j])); d > 1e-14 {
					t.Fatalf("matmul_sub (%d,%d) off by %g", i, j, d)
				}
			}
		}

		b0, c0, r0 := b, c, v
		x, rx := c, v
		btBinvCRHS(&b, &x, &rx)
		bx, brx := btMul(&b0, &x), btMulVec(&b0, &rx)
		for i := range 5 {
			if d := math.Abs(brx[i] - r0[i]); d > 1e-12 {
				t.Fatalf("binvcrhs: (B·x)[%d] off by %g", i, d)
			}
			for j := range 5 {
				if d := math.Abs(bx[i][j] - c0[i][j]); d > 1e-12 {
					t.Fatalf("binvcrhs: (B·X)(%d,%d) off by %g", i, j, d)
				}
			}
		}
	}
}

// TestBTJacobian checks the flux Jacobian of every direction against the
// Euler flux it linearises: the flux is homogeneous of degree one in u,
// so F(u)·u is the flux itself.
func TestBTJacobian(t *testing.T) {
	gp := [3]int{12, 12, 12}
	k := adiNewConsts(gp, 0.01)
	u := [5]float64{1.3, 0.4, -0.7, 0.2, 2.9}
	rhoI := 1 / u[0]
	square := 0.5 * (u[1]*u[1] + u[2]*u[2] + u[3]*u[3]) * rhoI
	qs := square * rhoI
	for d := range 3 {
		n := d + 1
		var f, nv btBlock
		btJacobians(&f, &nv, &u, rhoI, qs, n, k)
		vn := u[n] * rhoI
		want := [5]float64{u[n], 0, 0, 0, (k.c1*u[4] - k.c2*square) * vn}
		for m := 1; m < 4; m++ {
			want[m] = u[m] * vn
		}
		want[n] += k.c2 * (u[4] - square)
		got := btMulVec(&f, &u)
		for m := range 5 {
			if math.Abs(got[m]-want[m]) > 1e-13 {
				t.Errorf("axis %d: (F·u)[%d] = %v, flux %v", d, m, got[m], want[m])
			}
		}
	}
}

// TestBTLineSolve checks the sweeps on one process against the systems
// they solve: along every line, A(q)·Δ(q−1) + B(q)·Δ(q) + C(q)·Δ(q+1)
// gives back the right-hand side, Δ being zero on the boundary.
func TestBTLineSolve(t *testing.T) {
	gp := [3]int{7, 8, 9}
	g, err := adiNewGrid(gp, 1, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	k := adiNewConsts(gp, 0.01)
	adiInitialize(g, k, btGhost)
	adiExactRHS(g, k)
	s := btNewSolver(nil, g, k)
	c := &g.cells[0]
	for d := range 3 {
		adiRHS(g, k, nil)
		r0 := append([]float64(nil), c.rhs...)
		if err := s.solve(d); err != nil {
			t.Fatal(err)
		}
		lo, hi := c.interior(d)
		su, sa, sr := adiAxisStrides(c, d)
		ax := &k.dir[d]
		worst := 0.0
		adiLineIter(c, d, func(_, pu, pa, pr int) {
			jac := func(q int) (f, n btBlock) {
				btJacobians(&f, &n, (*[5]float64)(c.u[pu+q*su:]), c.rhoI[pa+q*sa], c.qs[pa+q*sa], d+1, k)
				return f, n
			}
			delta := func(q int) *[5]float64 {
				if q < lo || q > hi {
					return &[5]float64{}
				}
				return (*[5]float64)(c.rhs[pr+q*sr:])
			}
			for q := lo; q <= hi; q++ {
				var a, b, cu btBlock
				fm, nm := jac(q - 1)
				_, n0 := jac(q)
				fp, np := jac(q + 1)
				btLower(&a, &fm, &nm, ax.dtt1, ax.dtt2, &ax.d)
				btDiag(&b, &n0, ax.dtt1, &ax.d)
				btUpper(&cu, &fp, &np, ax.dtt1, ax.dtt2, &ax.d)
				x, y, z := btMulVec(&a, delta(q-1)), btMulVec(&b, delta(q)), btMulVec(&cu, delta(q+1))
				for m := range 5 {
					want := r0[pr+q*sr+m]
					worst = max(worst, math.Abs(x[m]+y[m]+z[m]-want)/(math.Abs(want)+1e-3))
				}
			}
		})
		if worst > 1e-10 {
			t.Errorf("axis %d: the solution misses the right-hand side by %g (relative)", d, worst)
		}
	}
}

// BenchmarkBTSolve times BT's line solves along each axis, class A on one
// process (no messages).
func BenchmarkBTSolve(b *testing.B) {
	p, _ := btClassParams('A')
	s, err := btNewState(nil, 1, 0, p)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.rhs(); err != nil {
		b.Fatal(err)
	}
	r0 := append([]float64(nil), s.g.cells[0].rhs...)
	for d := range 3 {
		b.Run(fmt.Sprintf("axis%d", d), func(b *testing.B) {
			for range b.N {
				copy(s.g.cells[0].rhs, r0)
				if err := s.solver.solve(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBTRHS times BT's right-hand side, class A on one process.
func BenchmarkBTRHS(b *testing.B) {
	p, _ := btClassParams('A')
	s, err := btNewState(nil, 1, 0, p)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if err := s.rhs(); err != nil {
			b.Fatal(err)
		}
	}
}
