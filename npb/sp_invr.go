package npb

// SP's block-diagonal transformations between the conserved variables
// and the characteristic variables of each direction (NPB3.4-MPI
// SP/txinvr.f90, ninvr.f90, pinvr.f90, tzetar.f90): the diagonalised
// scheme solves scalar pentadiagonal systems in the eigenvector bases of
// the flux Jacobians, and these small 5×5 products move the right-hand
// side from one basis to the next between the sweeps.

// spEachPoint calls f with the index of every point of cell c the time
// step updates: in the derived fields, and of component 0 in rhs and u.
func spEachPoint(c *adiCell, f func(pa, pr, pu int)) {
	ilo, ihi := c.interior(0)
	jlo, jhi := c.interior(1)
	klo, khi := c.interior(2)
	for k := klo; k <= khi; k++ {
		for j := jlo; j <= jhi; j++ {
			pa, pr, pu := c.aAt(ilo, j, k), c.rAt(ilo, j, k), c.uAt(ilo, j, k)
			for i := 0; i <= ihi-ilo; i++ {
				f(pa+i, pr+5*i, pu+5*i)
			}
		}
	}
}

// spTxinvr multiplies the right-hand side of every cell by the inverse of
// the x eigenvector matrix, before the x sweep (txinvr).
func spTxinvr(g *adiGrid, k *adiConsts) {
	c2, bt := k.c2, k.bt
	for ci := range g.cells {
		c := &g.cells[ci]
		spEachPoint(c, func(pa, pr, _ int) {
			r := (*[5]float64)(c.rhs[pr:])
			ru1, uu, vv, ww := c.rhoI[pa], c.us[pa], c.vs[pa], c.ws[pa]
			ac := c.speed[pa]
			ac2inv := c.ainv[pa] * c.ainv[pa]
			r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
			t1 := c2 * ac2inv * (c.qs[pa]*r1 - uu*r2 - vv*r3 - ww*r4 + r5)
			t2 := bt * ru1 * (uu*r1 - r2)
			t3 := (bt * ru1 * ac) * t1
			r[0] = r1 - t1
			r[1] = -ru1 * (ww*r1 - r4)
			r[2] = ru1 * (vv*r1 - r3)
			r[3] = -t2 + t3
			r[4] = t2 + t3
		})
	}
}

// spNinvr moves cell c's right-hand side from the x to the y
// characteristic variables, after the x sweep (ninvr).
func spNinvr(c *adiCell, bt float64) {
	spEachPoint(c, func(_, pr, _ int) {
		r := (*[5]float64)(c.rhs[pr:])
		r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
		t1 := bt * r3
		t2 := 0.5 * (r4 + r5)
		r[0] = -r2
		r[1] = r1
		r[2] = bt * (r4 - r5)
		r[3] = -t1 + t2
		r[4] = t1 + t2
	})
}

// spPinvr moves cell c's right-hand side from the y to the z
// characteristic variables, after the y sweep (pinvr).
func spPinvr(c *adiCell, bt float64) {
	spEachPoint(c, func(_, pr, _ int) {
		r := (*[5]float64)(c.rhs[pr:])
		r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
		t1 := bt * r1
		t2 := 0.5 * (r4 + r5)
		r[0] = bt * (r4 - r5)
		r[1] = -r3
		r[2] = r2
		r[3] = -t1 + t2
		r[4] = t1 + t2
	})
}

// spTzetar multiplies cell c's right-hand side by the z eigenvector
// matrix, back to the conserved variables, after the z sweep (tzetar).
func spTzetar(c *adiCell, k *adiConsts) {
	bt, c2iv := k.bt, k.c2iv
	spEachPoint(c, func(pa, pr, pu int) {
		r := (*[5]float64)(c.rhs[pr:])
		xvel, yvel, zvel := c.us[pa], c.vs[pa], c.ws[pa]
		ac, acinv := c.speed[pa], c.ainv[pa]
		ac2u := ac * ac
		r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
		uzik1 := c.u[pu]
		btuz := bt * uzik1
		t1 := btuz * acinv * (r4 + r5)
		t2 := r3 + t1
		t3 := btuz * (r4 - r5)
		r[0] = t2
		r[1] = -uzik1*r2 + xvel*t2
		r[2] = uzik1*r1 + yvel*t2
		r[3] = zvel*t2 + t3
		r[4] = uzik1*(-xvel*r2+yvel*r1) + c.qs[pa]*t2 + c2iv*ac2u*t1 + zvel*t3
	})
}
