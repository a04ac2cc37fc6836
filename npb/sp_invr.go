package npb

import "math"

// SP's block-diagonal transformations between the conserved variables
// and the characteristic variables of each direction (NPB3.4-MPI
// SP/txinvr.f90, ninvr.f90, pinvr.f90, tzetar.f90): the diagonalised
// scheme solves scalar pentadiagonal systems in the eigenvector bases of
// the flux Jacobians, and these small 5×5 products move the right-hand
// side from one basis to the next between the sweeps.
//
// Each works a row along x at a time: the row's slices are cut once and
// walked point by point, so that the loops carry no bounds checks and no
// call per point; txinvr and tzetar take four points at a time in AVX2
// first (sp_lanes_amd64.s), where the processor has it.

// spRow is one row along x of the points of a cell that the time step
// updates: its rhs values (5 per point), u's (5 per point) and each
// derived field's (one per point), all of the same points.
type spRow struct {
	rhs, u               []float64
	rhoI, us, vs, ws, qs []float64
	speed, ainv          []float64
}

// spEachRow calls f with every row along x of the points of cell c that
// the time step updates.
func spEachRow(c *adiCell, f func(r spRow)) {
	jlo, jhi := c.interior(1)
	klo, khi := c.interior(2)
	for k := klo; k <= khi; k++ {
		for j := jlo; j <= jhi; j++ {
			f(spRowAt(c, j, k))
		}
	}
}

// spRowAt returns the row along x of cell c's updated points at (j, k).
func spRowAt(c *adiCell, j, k int) spRow {
	ilo, ihi := c.interior(0)
	n := ihi - ilo + 1
	pa, pr, pu := c.aAt(ilo, j, k), c.rAt(ilo, j, k), c.uAt(ilo, j, k)
	return spRow{
		rhs: c.rhs[pr : pr+5*n], u: c.u[pu : pu+5*n],
		rhoI: c.rhoI[pa : pa+n], us: c.us[pa : pa+n], vs: c.vs[pa : pa+n], ws: c.ws[pa : pa+n], qs: c.qs[pa : pa+n],
		speed: c.speed[pa : pa+n], ainv: c.ainv[pa : pa+n],
	}
}

// spTxinvr multiplies the right-hand side of every cell by the inverse of
// the x eigenvector matrix, before the x sweep (txinvr).
func spTxinvr(g *adiGrid, k *adiConsts) {
	c2, bt := k.c2, k.bt
	t := newSPInvrConst(c2, bt)
	for ci := range g.cells {
		spEachRow(&g.cells[ci], func(row spRow) { spTxinvrRow(row, c2, bt, t) })
	}
}

// spTxinvrThen returns txinvr of a row, for adiRHS to run on each row as
// soon as its right-hand side is complete: the same products as spTxinvr,
// without another pass over the cell's memory.
func spTxinvrThen(k *adiConsts) adiRowFunc {
	c2, bt := k.c2, k.bt
	t := newSPInvrConst(c2, bt)
	return func(c *adiCell, j, kk int) { spTxinvrRow(spRowAt(c, j, kk), c2, bt, t) }
}

// spTxinvrRow is txinvr on one row; t holds c2 and bt for the
// assembly (newSPInvrConst).
func spTxinvrRow(row spRow, c2, bt float64, t *spInvrConst) {
	rho := row.rhoI
	us, vs, ws, qs := row.us[:len(rho)], row.vs[:len(rho)], row.ws[:len(rho)], row.qs[:len(rho)]
	speed, ainv := row.speed[:len(rho)], row.ainv[:len(rho)]
	done := spTxinvrLanes(row, t)
	rs := row.rhs[5*done:]
	for i := done; i < len(rho); i++ {
		ru1 := rho[i]
		if len(rs) < 5 {
			break
		}
		r := (*[5]float64)(rs)
		rs = rs[5:]
		uu, vv, ww := us[i], vs[i], ws[i]
		ac := speed[i]
		ac2inv := ainv[i] * ainv[i]
		r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
		t1 := c2 * ac2inv * (qs[i]*r1 - uu*r2 - vv*r3 - ww*r4 + r5)
		t2 := bt * ru1 * (uu*r1 - r2)
		t3 := (bt * ru1 * ac) * t1
		r[0] = r1 - t1
		r[1] = -ru1 * (ww*r1 - r4)
		r[2] = ru1 * (vv*r1 - r3)
		r[3] = -t2 + t3
		r[4] = t2 + t3
	}
}

// spNinvr moves cell c's right-hand side from the x to the y
// characteristic variables, after the x sweep (ninvr).
func spNinvr(c *adiCell, bt float64) {
	spEachRow(c, func(row spRow) {
		for rs := row.rhs; len(rs) >= 5; rs = rs[5:] {
			r := (*[5]float64)(rs)
			r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
			t1 := bt * r3
			t2 := 0.5 * (r4 + r5)
			r[0] = -r2
			r[1] = r1
			r[2] = bt * (r4 - r5)
			r[3] = -t1 + t2
			r[4] = t1 + t2
		}
	})
}

// spPinvr moves cell c's right-hand side from the y to the z
// characteristic variables, after the y sweep (pinvr).
func spPinvr(c *adiCell, bt float64) {
	spEachRow(c, func(row spRow) {
		for rs := row.rhs; len(rs) >= 5; rs = rs[5:] {
			r := (*[5]float64)(rs)
			r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
			t1 := bt * r1
			t2 := 0.5 * (r4 + r5)
			r[0] = bt * (r4 - r5)
			r[1] = -r3
			r[2] = r2
			r[3] = -t1 + t2
			r[4] = t1 + t2
		}
	})
}

// spTzetar multiplies cell c's right-hand side by the z eigenvector
// matrix, back to the conserved variables, after the z sweep (tzetar).
func spTzetar(c *adiCell, k *adiConsts) {
	bt, c2iv := k.bt, k.c2iv
	t := newSPInvrConst(bt, c2iv)
	spEachRow(c, func(row spRow) { spTzetarRow(row, bt, c2iv, t, false) })
}

// spTzetarAdd is tzetar and then the step's update of cell c (u +=
// rhs, add), a point at a time: the cell's memory is walked once instead
// of twice.
func spTzetarAdd(c *adiCell, k *adiConsts) {
	bt, c2iv := k.bt, k.c2iv
	t := newSPInvrConst(bt, c2iv)
	spEachRow(c, func(row spRow) { spTzetarRow(row, bt, c2iv, t, true) })
}

// spTzetarRow is tzetar on one row; with add, each point's u then takes
// its right-hand side. t holds bt and c2iv for the assembly
// (newSPInvrConst).
func spTzetarRow(row spRow, bt, c2iv float64, t *spInvrConst, add bool) {
	us := row.us
	vs, ws, qs := row.vs[:len(us)], row.ws[:len(us)], row.qs[:len(us)]
	speed, ainv := row.speed[:len(us)], row.ainv[:len(us)]
	done := spTzetarLanes(row, t, add)
	rs, u := row.rhs[5*done:], row.u[5*done:]
	for i := done; i < len(us); i++ {
		xvel := us[i]
		if len(rs) < 5 || len(u) < 5 {
			break
		}
		r := (*[5]float64)(rs)
		u0 := u
		uzik1 := u[0]
		rs, u = rs[5:], u[5:]
		yvel, zvel := vs[i], ws[i]
		ac, acinv := speed[i], ainv[i]
		ac2u := ac * ac
		r1, r2, r3, r4, r5 := r[0], r[1], r[2], r[3], r[4]
		btuz := bt * uzik1
		t1 := btuz * acinv * (r4 + r5)
		t2 := r3 + t1
		t3 := btuz * (r4 - r5)
		r[0] = t2
		r[1] = -uzik1*r2 + xvel*t2
		r[2] = uzik1*r1 + yvel*t2
		r[3] = zvel*t2 + t3
		r[4] = uzik1*(-xvel*r2+yvel*r1) + qs[i]*t2 + c2iv*ac2u*t1 + zvel*t3
		if add {
			p := (*[5]float64)(u0)
			p[0] += r[0]
			p[1] += r[1]
			p[2] += r[2]
			p[3] += r[3]
			p[4] += r[4]
		}
	}
}

// spInvrConst are two constants of txinvr or tzetar and −0, each in four
// lanes, for their assembly.
type spInvrConst [3][4]float64

func newSPInvrConst(a, b float64) *spInvrConst {
	z := math.Copysign(0, -1)
	return &spInvrConst{lanes4(a), lanes4(b), lanes4(z)}
}
