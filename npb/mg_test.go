package npb

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMG(t *testing.T) {
	checkKernel(t, "MG", 'S', 1, 2, 4)
}

// TestMGManyProcs runs class S oversubscribed where the decomposition
// gets harder: 8 processes split all three axes, and with 16 (a 2×2×4
// grid) half the processes hold no point of the coarsest level, so that
// comm3 zeroes their arrays and comm3_ex hands them the interpolated
// borders.
func TestMGManyProcs(t *testing.T) {
	if testing.Short() {
		t.Skip("oversubscribed runs")
	}
	for _, np := range []int{8, 16} {
		out, code := runKernel(t, "MG", 'S', np, false)
		if code != 0 || !strings.Contains(out, "Verification    =               SUCCESSFUL") {
			t.Errorf("MG class S np=%d did not verify (exit %d):\n%s", np, code, out)
		}
	}
}

// mgRandomField returns an array of extents n filled, ghosts included,
// with distinct numbers from NPB's generator.
func mgRandomField(n [3]int, seed float64) []float64 {
	z := make([]float64, n[0]*n[1]*n[2])
	x := seed
	Vranlc(&x, A, z)
	return z
}

// mgFullField returns a level of extents n filled with random values in
// (−1, 1) of full precision: NPB's random numbers have 46 bits, so that
// sums of a few of them are exact in any order and would hide a sum
// taken in another order than the kernels'.
func mgFullField(n [3]int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := make([]float64, n[0]*n[1]*n[2])
	for i := range z {
		z[i] = rng.Float64()*2 - 1
	}
	return z
}

// mgIndex is the flat index of NPB's 1-based point (i1, i2, i3).
func mgIndex(n [3]int, i1, i2, i3 int) int {
	return (i1 - 1) + n[0]*((i2-1)+n[1]*(i3-1))
}

// mgRefResid is mg.f90's resid as NPB writes it: the u1, u2 line
// temporaries first, then the combination.
func mgRefResid(u, v, r []float64, n [3]int, a *[4]float64) {
	at := func(i1, i2, i3 int) float64 { return u[mgIndex(n, i1, i2, i3)] }
	u1 := make([]float64, n[0]+1)
	u2 := make([]float64, n[0]+1)
	for i3 := 2; i3 <= n[2]-1; i3++ {
		for i2 := 2; i2 <= n[1]-1; i2++ {
			for i1 := 1; i1 <= n[0]; i1++ {
				u1[i1] = at(i1, i2-1, i3) + at(i1, i2+1, i3) + at(i1, i2, i3-1) + at(i1, i2, i3+1)
				u2[i1] = at(i1, i2-1, i3-1) + at(i1, i2+1, i3-1) + at(i1, i2-1, i3+1) + at(i1, i2+1, i3+1)
			}
			for i1 := 2; i1 <= n[0]-1; i1++ {
				x := mgIndex(n, i1, i2, i3)
				r[x] = v[x] - a[0]*u[x] - a[2]*(u2[i1]+u1[i1-1]+u1[i1+1]) - a[3]*(u2[i1-1]+u2[i1+1])
			}
		}
	}
}

// mgRefPsinv is mg.f90's psinv as NPB writes it.
func mgRefPsinv(r, u []float64, n [3]int, c *[4]float64) {
	at := func(i1, i2, i3 int) float64 { return r[mgIndex(n, i1, i2, i3)] }
	r1 := make([]float64, n[0]+1)
	r2 := make([]float64, n[0]+1)
	for i3 := 2; i3 <= n[2]-1; i3++ {
		for i2 := 2; i2 <= n[1]-1; i2++ {
			for i1 := 1; i1 <= n[0]; i1++ {
				r1[i1] = at(i1, i2-1, i3) + at(i1, i2+1, i3) + at(i1, i2, i3-1) + at(i1, i2, i3+1)
				r2[i1] = at(i1, i2-1, i3-1) + at(i1, i2+1, i3-1) + at(i1, i2-1, i3+1) + at(i1, i2+1, i3+1)
			}
			for i1 := 2; i1 <= n[0]-1; i1++ {
				x := mgIndex(n, i1, i2, i3)
				u[x] = u[x] + c[0]*r[x] + c[1]*(at(i1-1, i2, i3)+at(i1+1, i2, i3)+r1[i1]) + c[2]*(r2[i1]+r1[i1-1]+r1[i1+1])
			}
		}
	}
}

// mgRefRprj3 is mg.f90's rprj3 as NPB writes it.
func mgRefRprj3(r []float64, nk [3]int, s []float64, nj [3]int) {
	at := func(i1, i2, i3 int) float64 { return r[mgIndex(nk, i1, i2, i3)] }
	var d [3]int
	for ax := range 3 {
		d[ax] = 1
		if nk[ax] == 3 {
			d[ax] = 2
		}
	}
	x1 := make([]float64, nk[0]+1)
	y1 := make([]float64, nk[0]+1)
	for j3 := 2; j3 <= nj[2]-1; j3++ {
		i3 := 2*j3 - d[2]
		for j2 := 2; j2 <= nj[1]-1; j2++ {
			i2 := 2*j2 - d[1]
			for j1 := 2; j1 <= nj[0]; j1++ {
				i1 := 2*j1 - d[0]
				x1[i1-1] = at(i1-1, i2-1, i3) + at(i1-1, i2+1, i3) + at(i1-1, i2, i3-1) + at(i1-1, i2, i3+1)
				y1[i1-1] = at(i1-1, i2-1, i3-1) + at(i1-1, i2-1, i3+1) + at(i1-1, i2+1, i3-1) + at(i1-1, i2+1, i3+1)
			}
			for j1 := 2; j1 <= nj[0]-1; j1++ {
				i1 := 2*j1 - d[0]
				y2 := at(i1, i2-1, i3-1) + at(i1, i2-1, i3+1) + at(i1, i2+1, i3-1) + at(i1, i2+1, i3+1)
				x2 := at(i1, i2-1, i3) + at(i1, i2+1, i3) + at(i1, i2, i3-1) + at(i1, i2, i3+1)
				s[mgIndex(nj, j1, j2, j3)] = 0.5*at(i1, i2, i3) +
					0.25*(at(i1-1, i2, i3)+at(i1+1, i2, i3)+x2) +
					0.125*(x1[i1-1]+x1[i1+1]+y2) +
					0.0625*(y1[i1-1]+y1[i1+1])
			}
		}
	}
}

// mgRefInterp is mg.f90's interp for fine extents other than 3.
func mgRefInterp(z []float64, nz [3]int, u []float64, nu [3]int) {
	at := func(i1, i2, i3 int) float64 { return z[mgIndex(nz, i1, i2, i3)] }
	add := func(i1, i2, i3 int, x float64) { u[mgIndex(nu, i1, i2, i3)] += x }
	mm1 := nz[0]
	z1 := make([]float64, mm1+1)
	z2 := make([]float64, mm1+1)
	z3 := make([]float64, mm1+1)
	for i3 := 1; i3 <= nz[2]-1; i3++ {
		for i2 := 1; i2 <= nz[1]-1; i2++ {
			for i1 := 1; i1 <= mm1; i1++ {
				z1[i1] = at(i1, i2+1, i3) + at(i1, i2, i3)
				z2[i1] = at(i1, i2, i3+1) + at(i1, i2, i3)
				z3[i1] = at(i1, i2+1, i3+1) + at(i1, i2, i3+1) + z1[i1]
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-1, 2*i2-1, 2*i3-1, at(i1, i2, i3))
				add(2*i1, 2*i2-1, 2*i3-1, 0.5*(at(i1+1, i2, i3)+at(i1, i2, i3)))
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-1, 2*i2, 2*i3-1, 0.5*z1[i1])
				add(2*i1, 2*i2, 2*i3-1, 0.25*(z1[i1]+z1[i1+1]))
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-1, 2*i2-1, 2*i3, 0.5*z2[i1])
				add(2*i1, 2*i2-1, 2*i3, 0.25*(z2[i1]+z2[i1+1]))
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				add(2*i1-1, 2*i2, 2*i3, 0.25*z3[i1])
				add(2*i1, 2*i2, 2*i3, 0.125*(z3[i1]+z3[i1+1]))
			}
		}
	}
}

// TestMGOperators checks resid, psinv, rprj3 and interp bit for bit
// against mg.f90's loops written as NPB writes them, on random data of
// full precision (mgFullField) and on boxes of several shapes.
func TestMGOperators(t *testing.T) {
	a, c := mgCoefficients('A')
	_, cb := mgCoefficients('B')
	for _, h := range [][3]int{{2, 2, 2}, {4, 4, 4}, {8, 4, 2}, {2, 8, 16}, {16, 16, 8}} {
		n := [3]int{h[0] + 2, h[1] + 2, h[2] + 2}
		u := mgFullField(n, 1)
		v := mgFullField(n, 2)
		checkMGResidPsinv(t, h, n, u, v, &a, []*[4]float64{&c, &cb})
		checkMGRprj3Interp(t, h, n, u, v)
	}
	checkMGShiftedRprj3(t)
}

// checkMGResidPsinv checks resid, out of place and in place, and psinv
// with each of cs, on the box h of n points with u and v.
func checkMGResidPsinv(t *testing.T, h, n [3]int, u, v []float64, a *[4]float64, cs []*[4]float64) {
	t.Helper()
	got, want := slices.Clone(v), slices.Clone(v)
	mgResid(u, v, got, n, a, false)
	mgRefResid(u, v, want, n, a)
	if !slices.Equal(got, want) {
		t.Errorf("%v: resid differs from NPB's", h)
	}
	// In place, as mg3P calls it on the coarse levels.
	got = slices.Clone(v)
	mgResid(u, got, got, n, a, false)
	if !slices.Equal(got, want) {
		t.Errorf("%v: resid in place differs from NPB's", h)
	}

	for _, cc := range cs {
		got, want = slices.Clone(v), slices.Clone(v)
		mgPsinv(u, got, n, cc, false)
		mgRefPsinv(u, want, n, cc)
		if !slices.Equal(got, want) {
			t.Errorf("%v: psinv differs from NPB's", h)
		}
	}
}

// checkMGRprj3Interp checks rprj3 from the box h of n points onto the box
// of half as many, and interp back, with u and v.
func checkMGRprj3Interp(t *testing.T, h, n [3]int, u, v []float64) {
	t.Helper()
	nj := [3]int{h[0]/2 + 2, h[1]/2 + 2, h[2]/2 + 2}
	s := mgFullField(nj, 3)
	got, want := slices.Clone(s), slices.Clone(s)
	mgRprj3(u, n, got, nj)
	mgRefRprj3(u, n, want, nj)
	if !slices.Equal(got, want) {
		t.Errorf("%v: rprj3 differs from NPB's", h)
	}

	got, want = slices.Clone(v), slices.Clone(v)
	mgInterp(s, nj, got, n, make([]float64, 3*nj[0]))
	mgRefInterp(s, nj, want, n)
	if !slices.Equal(got, want) {
		t.Errorf("%v: interp differs from NPB's", h)
	}
}

// checkMGShiftedRprj3 checks restriction from fine boxes with a single
// interior point on some axis (many processes on a coarse level): NPB's
// shifted mapping.
func checkMGShiftedRprj3(t *testing.T) {
	t.Helper()
	for _, c := range []struct{ fine, coarse [3]int }{
		{[3]int{1, 4, 2}, [3]int{1, 2, 1}},
		{[3]int{4, 1, 1}, [3]int{2, 1, 1}},
		{[3]int{1, 1, 1}, [3]int{1, 1, 1}},
	} {
		n := [3]int{c.fine[0] + 2, c.fine[1] + 2, c.fine[2] + 2}
		nj := [3]int{c.coarse[0] + 2, c.coarse[1] + 2, c.coarse[2] + 2}
		u := mgFullField(n, 1)
		s := mgFullField(nj, 3)
		got, want := slices.Clone(s), slices.Clone(s)
		mgRprj3(u, n, got, nj)
		mgRefRprj3(u, n, want, nj)
		if !slices.Equal(got, want) {
			t.Errorf("%v onto %v: rprj3 differs from NPB's", c.fine, c.coarse)
		}
	}
}

// mgSelfCopies fills the ghosts of x on axes 0 and 1 as comm3 does for a
// process that is its own neighbour on both.
func mgSelfCopies(x []float64, n [3]int) {
	l := &mgLevel{n: n}
	for ax := range 2 {
		nn := n[ax]
		mgCopyBox(x, &l.n, mgFace(l, ax, nn-2, nn-1, false), mgFace(l, ax, 0, 1, false))
		mgCopyBox(x, &l.n, mgFace(l, ax, 1, 2, false), mgFace(l, ax, nn-1, nn, false))
	}
}

// TestMGWrap checks that resid and psinv with wrap set leave the ghosts
// of axes 0 and 1 as comm3's copies would, and the rest as without it.
func TestMGWrap(t *testing.T) {
	a, c := mgCoefficients('A')
	for _, h := range [][3]int{{1, 1, 1}, {4, 4, 4}, {8, 4, 2}, {2, 8, 16}, {5, 3, 7}} {
		n := [3]int{h[0] + 2, h[1] + 2, h[2] + 2}
		u := mgRandomField(n, 271828183)
		v := mgRandomField(n, 314159265)

		got, want := slices.Clone(v), slices.Clone(v)
		mgResid(u, v, got, n, &a, true)
		mgResid(u, v, want, n, &a, false)
		mgSelfCopies(want, n)
		if !slices.Equal(got, want) {
			t.Errorf("%v: resid with wrap differs from resid and comm3's copies", h)
		}

		got, want = slices.Clone(v), slices.Clone(v)
		mgPsinv(u, got, n, &c, true)
		mgPsinv(u, want, n, &c, false)
		mgSelfCopies(want, n)
		if !slices.Equal(got, want) {
			t.Errorf("%v: psinv with wrap differs from psinv and comm3's copies", h)
		}
	}
}

// TestMGSetup checks the decomposition for process counts up to 512 on
// class S's grid and class A's: the boxes tile every axis, on each live
// level the neighbours are live and point back, and the dead levels and
// expansion flags pair up as comm3_ex needs.
func TestMGSetup(t *testing.T) {
	for _, lt := range []int{5, 8} {
		for np := 1; np <= 512; np *= 2 {
			grids := make([]mgGrid, np)
			for me := range np {
				g, err := mgSetup(np, me, lt)
				if err != nil {
					t.Fatalf("lt=%d np=%d: %v", lt, np, err)
				}
				grids[me] = g
			}
			for ax := range 3 {
				// Along axis ax from rank 0, the top-level boxes follow one
				// another and end at the grid's edge.
				next := 2
				for id := range grids[0].pi[ax] {
					me := id * []int{1, grids[0].pi[0], grids[0].pi[0] * grids[0].pi[1]}[ax]
					g := &grids[me]
					if g.is[ax] != next || g.ie[ax]-g.is[ax]+3 != g.lev[lt].n[ax] {
						t.Fatalf("lt=%d np=%d rank %d axis %d: box %d..%d (extent %d), want from %d", lt, np, me, ax, g.is[ax], g.ie[ax], g.lev[lt].n[ax], next)
					}
					next = g.ie[ax] + 1
				}
				if next != 1<<lt+2 {
					t.Fatalf("lt=%d np=%d axis %d: boxes end at %d, want %d", lt, np, ax, next-1, 1<<lt+1)
				}
			}
			for me := range np {
				g := &grids[me]
				for k := 1; k <= lt; k++ {
					l := &g.lev[k]
					for ax := range 3 {
						lo, hi := l.nbr[ax][0], l.nbr[ax][1]
						if !l.dead {
							if grids[lo].lev[k].dead || grids[hi].lev[k].dead {
								t.Errorf("lt=%d np=%d rank %d level %d axis %d: dead neighbour", lt, np, me, k, ax)
							}
							if grids[lo].lev[k].nbr[ax][1] != me || grids[hi].lev[k].nbr[ax][0] != me {
								t.Errorf("lt=%d np=%d rank %d level %d axis %d: neighbours %d, %d do not point back", lt, np, me, k, ax, lo, hi)
							}
						}
						if l.takeEx[ax] && (!grids[lo].lev[k].giveEx[ax] || !grids[hi].lev[k].giveEx[ax]) {
							t.Errorf("lt=%d np=%d rank %d level %d axis %d: takes from ranks that do not give", lt, np, me, k, ax)
						}
						if l.giveEx[ax] && (!grids[lo].lev[k].takeEx[ax] || !grids[hi].lev[k].takeEx[ax]) {
							t.Errorf("lt=%d np=%d rank %d level %d axis %d: gives to ranks that do not take", lt, np, me, k, ax)
						}
					}
				}
			}
		}
	}
}

// TestMGFillRandom checks zran3's generation: pieced together from the
// boxes of 8 processes, the field is the one a single process generates,
// whose first point is the first number after the seed and whose points
// follow one another in Fortran order.
func TestMGFillRandom(t *testing.T) {
	const lt = 4
	nx := 1 << lt
	g1, _ := mgSetup(1, 0, lt)
	n1 := g1.lev[lt].n
	whole := make([]float64, n1[0]*n1[1]*n1[2])
	mgFillRandom(whole, n1, g1.is, g1.ie, nx, nx)

	x := float64(Seed)
	seq := make([]float64, nx*nx*nx)
	Vranlc(&x, A, seq)
	for i3 := range nx {
		for i2 := range nx {
			for i1 := range nx {
				if got, want := whole[mgIndex(n1, i1+2, i2+2, i3+2)], seq[i1+nx*(i2+nx*i3)]; got != want {
					t.Fatalf("point (%d,%d,%d) = %v, want the %d-th number %v", i1+1, i2+1, i3+1, got, i1+nx*(i2+nx*i3)+1, want)
				}
			}
		}
	}

	for me := range 8 {
		g, _ := mgSetup(8, me, lt)
		n := g.lev[lt].n
		part := make([]float64, n[0]*n[1]*n[2])
		mgFillRandom(part, n, g.is, g.ie, nx, nx)
		for i3 := 2; i3 < n[2]; i3++ {
			for i2 := 2; i2 < n[1]; i2++ {
				for i1 := 2; i1 < n[0]; i1++ {
					got := part[mgIndex(n, i1, i2, i3)]
					want := whole[mgIndex(n1, g.is[0]+i1-2, g.is[1]+i2-2, g.is[2]+i3-2)]
					if got != want {
						t.Fatalf("rank %d point (%d,%d,%d): %v, want %v", me, i1, i2, i3, got, want)
					}
				}
			}
		}
	}
}

// TestMGCandidates checks zran3's local search against a sort of the
// interior values.
func TestMGCandidates(t *testing.T) {
	n := [3]int{10, 8, 6}
	z := mgRandomField(n, Seed)
	hi, lo := mgCandidates(z, n)
	var vals []float64
	for i3 := 2; i3 < n[2]; i3++ {
		for i2 := 2; i2 < n[1]; i2++ {
			for i1 := 2; i1 < n[0]; i1++ {
				vals = append(vals, z[mgIndex(n, i1, i2, i3)])
			}
		}
	}
	slices.Sort(vals)
	for i := range mgCharges {
		// hi.val[mgCharges-1] is the largest, lo.val[mgCharges-1] the
		// smallest.
		if hi.val[i] != vals[len(vals)-mgCharges+i] || z[hi.pos[i]] != hi.val[i] {
			t.Errorf("largest %d: %v at %d, want %v", i, hi.val[i], hi.pos[i], vals[len(vals)-mgCharges+i])
		}
		if lo.val[i] != vals[mgCharges-1-i] || z[lo.pos[i]] != lo.val[i] {
			t.Errorf("smallest %d: %v at %d, want %v", i, lo.val[i], lo.pos[i], vals[mgCharges-1-i])
		}
	}
}

// TestMGFortranE checks the E20.13 format of the verification lines.
func TestMGFortranE(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0.5307707005734e-04, " 0.5307707005734E-04"},
		{0, " 0.0000000000000E+00"},
		{1.5, " 0.1500000000000E+01"},
		{-2.433365309069e-06, "-0.2433365309069E-05"},
		{math.NaN(), "                 NaN"},
	} {
		if got := fortranE(c.x, 13, 20); got != c.want {
			t.Errorf("fortranE(%v, 13, 20) = %q, want %q", c.x, got, c.want)
		}
	}
}

// mgBenchLevel returns a level of class A's finest grid as one of two
// processes holds it (256×256×128 points and ghosts), filled with NPB's
// random numbers.
func mgBenchLevel() ([3]int, []float64) {
	n := [3]int{258, 258, 130}
	z := make([]float64, n[0]*n[1]*n[2])
	mgFillRandom(z, n, [3]int{2, 2, 2}, [3]int{257, 257, 129}, 256, 256)
	return n, z
}

// mgBenchPoints reports millions of fine-grid points per second.
func mgBenchPoints(b *testing.B) {
	b.ReportMetric(float64(256*256*128)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpt/s")
}

// BenchmarkMGResid measures resid on class A's finest level at np = 2.
func BenchmarkMGResid(b *testing.B) {
	n, u := mgBenchLevel()
	v := make([]float64, len(u))
	r := make([]float64, len(u))
	a, _ := mgCoefficients('A')
	for b.Loop() {
		mgResid(u, v, r, n, &a, false)
	}
	mgBenchPoints(b)
}

// BenchmarkMGPsinv measures psinv as BenchmarkMGResid does resid.
func BenchmarkMGPsinv(b *testing.B) {
	n, r := mgBenchLevel()
	u := make([]float64, len(r))
	_, c := mgCoefficients('A')
	for b.Loop() {
		mgPsinv(r, u, n, &c, false)
	}
	mgBenchPoints(b)
}

// BenchmarkMGRprj3 measures the restriction from class A's finest level
// at np = 2.
func BenchmarkMGRprj3(b *testing.B) {
	n, r := mgBenchLevel()
	nj := [3]int{130, 130, 66}
	s := make([]float64, nj[0]*nj[1]*nj[2])
	for b.Loop() {
		mgRprj3(r, n, s, nj)
	}
	mgBenchPoints(b)
}

// BenchmarkMGInterp measures the prolongation onto class A's finest
// level at np = 2.
func BenchmarkMGInterp(b *testing.B) {
	n, u := mgBenchLevel()
	nz := [3]int{130, 130, 66}
	z := mgRandomField(nz, Seed)
	tmp := make([]float64, 3*nz[0])
	for b.Loop() {
		mgInterp(z, nz, u, n, tmp)
	}
	mgBenchPoints(b)
}
