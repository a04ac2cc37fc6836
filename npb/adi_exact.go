package npb

// The problem that BT and SP share: the constants of the discretised
// compressible Navier–Stokes equations, the manufactured exact solution,
// the initial field and the forcing that makes the exact solution a steady
// state of the discrete equations (NPB3.4-MPI BT/set_constants.f90,
// BT/exact_solution.f90, BT/initialize.f90, BT/exact_rhs.f90; SP's are the
// same but for the initial values of the ghost points).

import "math"

// adiCE are the coefficients of the exact solution (set_constants' ce):
// component m is a sum of quartic polynomials in ξ, η and ζ.
var adiCE = [5][13]float64{
	{2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3},
	{1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5},
	{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4},
	{2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3},
	{5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2},
}

// adiExact returns the exact solution at (ξ, η, ζ).
func adiExact(xi, eta, zeta float64) (v [5]float64) {
	for m := range 5 {
		ce := &adiCE[m]
		v[m] = ce[0] +
			xi*(ce[1]+xi*(ce[4]+xi*(ce[7]+xi*ce[10]))) +
			eta*(ce[2]+eta*(ce[5]+eta*(ce[8]+eta*ce[11]))) +
			zeta*(ce[3]+zeta*(ce[6]+zeta*(ce[9]+zeta*ce[12])))
	}
	return v
}

// adiDir are the constants of one axis (for x, set_constants' tx1, tx2,
// dx1..dx5, dx1tx1..dx5tx1, xxcon1..xxcon5, dttx1, dttx2, c2dttx1 and
// dnxm1).
type adiDir struct {
	t1, t2 float64    // 1/h², 1/(2h)
	d      [5]float64 // the dissipation coefficients of the implicit operator
	dt1    [5]float64 // d[m]·t1
	con    [5]float64 // the viscous coefficients xxcon1..xxcon5
	dtt1   float64    // dt·t1
	dtt2   float64    // dt·t2
	c2dtt1 float64    // 2·dt·t1
	dn     float64    // h = 1/(points−1)
}

// adiConsts are the constants of a run (set_constants).
type adiConsts struct {
	dt          float64
	dir         [3]adiDir
	c1, c2      float64 // the gas constants c1 = γ and c2 = γ−1
	c1c2, c1c5  float64
	c3c4, c1345 float64
	con43       float64
	dssp        float64    // the fourth-order dissipation coefficient
	dttdssp     float64    // dt·dssp
	dmax        [3]float64 // NPB's dxmax, dymax, dzmax (SP)
	bt, c2iv    float64    // √½ and 2.5 (SP's changes of variables)
}

// adiNewConsts returns the constants for a grid of gp points per axis and
// time step dt.
func adiNewConsts(gp [3]int, dt float64) *adiConsts {
	// Products of the constants are formed at run time, as in NPB (Go
	// would fold constant expressions exactly).
	c1, c2, c3, c4, c5 := 1.4, 0.4, 0.1, 1.0, 1.4
	k := &adiConsts{dt: dt, c1: c1, c2: c2, c1c2: c1 * c2, c1c5: c1 * c5, c3c4: c3 * c4}
	k.c1345 = k.c1c5 * k.c3c4
	k.con43 = 4.0 / 3.0
	conz1 := 1 - k.c1c5
	con16 := 1.0 / 6.0
	k.bt = math.Sqrt(0.5)
	k.c2iv = 2.5
	d := [3]float64{0.75, 0.75, 1.0}
	for ax := range 3 {
		a := &k.dir[ax]
		a.dn = 1 / float64(gp[ax]-1)
		a.t1 = 1 / (a.dn * a.dn)
		a.t2 = 1 / (2 * a.dn)
		t3 := 1 / a.dn
		for m := range 5 {
			a.d[m] = d[ax]
			a.dt1[m] = a.d[m] * a.t1
		}
		a.dtt1, a.dtt2 = dt*a.t1, dt*a.t2
		a.c2dtt1 = 2 * a.dtt1
		c := k.c3c4 * t3
		a.con = [5]float64{c * k.con43 * t3, c * t3, c * conz1 * t3, c * con16 * t3, c * k.c1c5 * t3}
	}
	k.dmax = [3]float64{max(k.dir[0].d[2], k.dir[0].d[3]), max(k.dir[1].d[1], k.dir[1].d[3]), max(k.dir[2].d[1], k.dir[2].d[2])}
	k.dssp = 0.25 * max(k.dir[0].d[0], max(k.dir[1].d[0], k.dir[2].d[0]))
	k.dttdssp = dt * k.dssp
	return k
}

// adiInitialize sets u to the initial field (initialize): every point,
// ghosts included, to ghost; then the cells' points to the transfinite
// interpolation of the exact solution on the grid's faces; then the
// points on the grid's faces to the exact solution.
func adiInitialize(g *adiGrid, k *adiConsts, ghost [5]float64) {
	for ci := range g.cells {
		c := &g.cells[ci]
		for p := 0; p < len(c.u); p += 5 {
			copy(c.u[p:p+5], ghost[:])
		}
		for kk := range c.size[2] {
			zeta := float64(kk+c.low[2]) * k.dir[2].dn
			for jj := range c.size[1] {
				eta := float64(jj+c.low[1]) * k.dir[1].dn
				for ii := range c.size[0] {
					xi := float64(ii+c.low[0]) * k.dir[0].dn
					v := adiInterpolate(xi, eta, zeta)
					copy(c.u[c.uAt(ii, jj, kk):][:5], v[:])
				}
			}
		}
	}
	for d := range 3 {
		for side := range 2 {
			c := &g.cells[g.slice[d][side*(g.ncells-1)]]
			q := side * (c.size[d] - 1)
			adiSetFace(c, k, d, q, float64(side))
		}
	}
}

// adiInterpolate returns the transfinite interpolation at (ξ, η, ζ) of the
// exact solution on the faces of the unit cube.
func adiInterpolate(xi, eta, zeta float64) [5]float64 {
	x0, x1 := adiExact(0, eta, zeta), adiExact(1, eta, zeta)
	y0, y1 := adiExact(xi, 0, zeta), adiExact(xi, 1, zeta)
	z0, z1 := adiExact(xi, eta, 0), adiExact(xi, eta, 1)
	var v [5]float64
	for m := range 5 {
		px := xi*x1[m] + (1-xi)*x0[m]
		py := eta*y1[m] + (1-eta)*y0[m]
		pz := zeta*z1[m] + (1-zeta)*z0[m]
		v[m] = px + py + pz - px*py - px*pz - py*pz + px*py*pz
	}
	return v
}

// adiSetFace sets the plane q on axis d of cell c, which lies on the
// grid's face at coordinate pos (0 or 1) on that axis, to the exact
// solution.
func adiSetFace(c *adiCell, k *adiConsts, d, q int, pos float64) {
	var idx [3]int
	idx[d] = q
	a, b := adiOther(d)
	for ib := range c.size[b] {
		for ia := range c.size[a] {
			idx[a], idx[b] = ia, ib
			var x [3]float64
			for ax := range 3 {
				x[ax] = float64(idx[ax]+c.low[ax]) * k.dir[ax].dn
			}
			x[d] = pos
			v := adiExact(x[0], x[1], x[2])
			copy(c.u[c.uAt(idx[0], idx[1], idx[2]):][:5], v[:])
		}
	}
}
