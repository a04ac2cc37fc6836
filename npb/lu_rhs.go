package npb

// The residual of LU (NPB3.4-MPI LU/rhs.f90, and erhs.f90 which applies
// the same operator to the exact solution).
//
// rhs.f90 works on whole 3-D arrays direction by direction; here every
// k-plane is finished before the next (the x, y and z terms of a point are
// added in NPB's order, so every value is NPB's), with the fluxes in a
// line buffer (x), a plane buffer (y) and rings of planes (z): the work
// stays in cache.

// luRhsWork holds rhs's flux buffers.
type luRhsWork struct {
	fx []float64    // one line of fluxes in x, indexed like a line of u
	fy []float64    // one plane of fluxes in y, indexed like a plane of u
	zc [3][]float64 // convective fluxes in z of planes k−1, k, k+1 (by k mod 3)
	zv [2][]float64 // viscous fluxes in z of planes k, k+1 (by k mod 2)
	c  luRhsConst
}

// luRhsDir are rhs's loop-invariant products of one direction, each
// rounded as NPB forms it (for x: t2 is tx2, t3 tx3, visc tx3·c3·c4, r43t3
// (4/3)·tx3, k5 ½(1−c1c5)·tx3, k6 (1/6)·tx3, k7 c1c5·tx3, d1[m] dx(m)·tx1).
type luRhsDir struct {
	t2, t3, visc, r43t3, k5, k6, k7 float64
	d1                              [5]float64
	lanes                           *luViscLanes // visc and d1 for luViscousAVX2
	flux                            *luFluxConst // the fluxes' constants for their AVX2
}

// luRhsConst are rhs's constants: each direction's, and the dissipation
// coefficient.
type luRhsConst struct {
	x, y, z luRhsDir
	dssp    float64
}

func newLURhsDir(t1, t2, t3 float64, d [5]float64, n int) luRhsDir {
	r := luRhsDir{
		t2:    t2,
		t3:    t3,
		visc:  t3 * luC3 * luC4,
		r43t3: (4.0 / 3.0) * t3,
		k5:    0.50 * (1.0 - luC1*luC5) * t3,
		k6:    (1.0 / 6.0) * t3,
		k7:    luC1 * luC5 * t3,
	}
	for m := range d {
		r.d1[m] = d[m] * t1
	}
	r.lanes = newLUViscLanes(&r)
	r.flux = newLUFluxConst(&r, n)
	return r
}

func newLURhsWork(s *luSolver) luRhsWork {
	co := &s.co
	w := luRhsWork{
		fx: make([]float64, s.sj),
		fy: make([]float64, s.sk),
		c: luRhsConst{
			x:    newLURhsDir(co.tx1, co.tx2, co.tx3, co.dx, 1),
			y:    newLURhsDir(co.ty1, co.ty2, co.ty3, co.dy, 2),
			z:    newLURhsDir(co.tz1, co.tz2, co.tz3, co.dz, 3),
			dssp: co.dssp,
		},
	}
	for i := range w.zc {
		w.zc[i] = make([]float64, s.sk)
	}
	for i := range w.zv {
		w.zv[i] = make([]float64, s.sk)
	}
	return w
}

// luPt returns the five components at offset o of w.
func luPt(w []float64, o int) *[5]float64 { return (*[5]float64)(w[o : o+5]) }

// rhs computes the residual rsd = −frct − (the discrete operator applied
// to u), after exchanging u's ghost layers.
func (s *luSolver) rhs() error {
	for i, f := range s.frct {
		s.rsd[i] = -f
	}
	if err := s.exchange3(s.u); err != nil {
		return err
	}
	s.fluxDivergence(s.u, s.rsd, false)
	s.declare(luShareRHS, s.g.nz-2)
	return nil
}

// fluxDivergence adds to out the operator of the equations applied to w,
// with the opposite sign, at the updated points of every inner k-plane:
// the convective and viscous fluxes and the fourth-difference dissipation
// in x, y and z. erhs.f90 forms the second difference in z from k+1
// down, rhs.f90 from k−1 up: erhsOrder selects the former.
func (s *luSolver) fluxDivergence(w, out []float64, erhsOrder bool) {
	nz := s.g.nz
	s.reciprocals(w)
	s.zConvective(w, 1)
	s.zConvective(w, 2)
	s.zViscous(w, 2)
	for k := 2; k <= nz-1; k++ {
		s.xTerms(w, out, k)
		s.yTerms(w, out, k)
		s.zConvective(w, k+1)
		s.zViscous(w, k+1)
		s.zTerms(w, out, k, erhsOrder)
	}
}

// reciprocals sets rinv to 1/ρ at every point of w, ghosts included (a
// point never set gives an infinity that nothing reads). rhs.f90 and
// jacld.f90 divide at every use; the quotient is the same number, formed
// once.
func (s *luSolver) reciprocals(w []float64) {
	r := s.rinv[:len(w)/5]
	for x := range r {
		r[x] = 1.0 / w[5*x]
	}
}

// luConvective writes into f the convective flux of the point p in the
// direction whose momentum component is n (1, 2, 3 for x, y, z).
func luConvective(f, p *[5]float64, n int) {
	un := p[n] / p[0]
	q := 0.50 * (p[1]*p[1] + p[2]*p[2] + p[3]*p[3]) / p[0]
	f[0] = p[n]
	f[1] = p[1] * un
	f[2] = p[2] * un
	f[3] = p[3] * un
	f[n] += luC2 * (p[4] - q)
	f[4] = (luC1*p[4] - luC2*q) * un
}

// luViscous writes into f[1:5] the viscous flux between points pm and p,
// its neighbour one step further from the origin, in the direction whose
// momentum component is n; rm and r are 1/ρ of pm and p.
func luViscous(f, pm, p *[5]float64, rm, r float64, n int, c *luRhsDir) {
	u2, u3, u4, u5 := r*p[1], r*p[2], r*p[3], r*p[4]
	v2, v3, v4, v5 := rm*pm[1], rm*pm[2], rm*pm[3], rm*pm[4]
	m2, m3, m4 := c.t3, c.t3, c.t3
	un, vn := u2, v2
	switch n {
	case 1:
		m2 = c.r43t3
	case 2:
		m3 = c.r43t3
		un, vn = u3, v3
	default:
		m4 = c.r43t3
		un, vn = u4, v4
	}
	f[1] = m2 * (u2 - v2)
	f[2] = m3 * (u3 - v3)
	f[3] = m4 * (u4 - v4)
	f[4] = c.k5*((u2*u2+u3*u3+u4*u4)-(v2*v2+v3*v3+v4*v4)) + c.k6*(un*un-vn*vn) + c.k7*(u5-v5)
}
