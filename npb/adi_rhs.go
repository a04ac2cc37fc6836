package npb

// The right-hand side of the time step (NPB3.4-MPI BT/rhs.f90, SP/rhs.f90):
// rhs = dt·(forcing + the central differences of the fluxes and the
// fourth-order dissipation along x, y and z), on the points the step
// updates. rhs.f90 makes one pass over the cell per term; here each row
// of points along x takes the terms of the three axes in turn
// (adi_rhs_axes.go), each point's terms added in rhs.f90's order, while
// the row's rhs stays in cache.

import "math"

// adiPacked is the number of values per point of rhsFields: 1/ρ, the
// three velocities (at the index of their momentum component in u), the
// kinetic energy per mass (qs) and per volume (square).
const adiPacked = 6

// The places of the fields in a point's values of rhsFields.
const (
	adiPackRhoI   = 0
	adiPackQs     = 4
	adiPackSquare = 5
)

// adiDerived computes the fields derived from u on the cell and its first
// ghost layer: 1/ρ, the velocities, the kinetic energy per volume (square)
// and per mass (qs), and, for SP, the speed of sound and its inverse; the
// right-hand side's are packed in rhsFields too.
func adiDerived(c *adiCell, c1c2 float64) {
	for k := -1; k <= c.size[2]; k++ {
		for j := -1; j <= c.size[1]; j++ {
			u0 := c.uAt(-1, j, k)
			a0 := c.aAt(-1, j, k)
			n := c.size[0] + 2
			u := c.u[u0 : u0+5*n]
			rhoI, us, vs, ws, qs := c.rhoI[a0:a0+n], c.us[a0:a0+n], c.vs[a0:a0+n], c.ws[a0:a0+n], c.qs[a0:a0+n]
			pk := c.rhsFields[adiPacked*a0 : adiPacked*(a0+n)]
			var speed, ainv []float64
			if c.speed != nil {
				speed, ainv = c.speed[a0:a0+n], c.ainv[a0:a0+n]
			}
			done := adiDerivedLanes(u, pk, rhoI, us, vs, ws, qs, speed, ainv, c1c2)
			for i := done; i < n; i++ {
				p := u[5*i : 5*i+5]
				r := 1 / p[0]
				sq := 0.5 * (p[1]*p[1] + p[2]*p[2] + p[3]*p[3]) * r
				f := (*[adiPacked]float64)(pk[adiPacked*i:])
				f[adiPackRhoI], f[1], f[2], f[3] = r, p[1]*r, p[2]*r, p[3]*r
				f[adiPackQs], f[adiPackSquare] = sq*r, sq
				rhoI[i], us[i], vs[i], ws[i], qs[i] = r, f[1], f[2], f[3], f[adiPackQs]
			}
			if speed != nil {
				for i := done; i < n; i++ {
					sq := pk[adiPacked*i+adiPackSquare]
					s := math.Sqrt(c1c2 * rhoI[i] * (u[5*i+4] - sq))
					speed[i] = s
					ainv[i] = 1 / s
				}
			}
		}
	}
}

// adiRHS computes the right-hand side of every cell from u (compute_rhs).
// The derived fields must be up to date on the ghost layer, which needs
// the faces exchanged first. If then is not nil, it runs on each row of
// points along x as soon as the row's right-hand side is complete, while
// the row is still in cache (SP's txinvr).
func adiRHS(g *adiGrid, k *adiConsts, then adiRowFunc) {
	for ci := range g.cells {
		c := &g.cells[ci]
		adiDerived(c, k.c1c2)
		copy(c.rhs, c.forcing)
		adiCellRHS(c, k, then)
	}
}

// adiRowFunc is work on the row of cell c's updated points along x at
// (j, k).
type adiRowFunc func(c *adiCell, j, k int)

// adiCellRHS adds the fluxes and the dissipation to the forcing in cell c's
// rhs and scales by dt, a row of points along x at a time; then, if not
// nil, runs on each row once it is done.
func adiCellRHS(c *adiCell, k *adiConsts, then adiRowFunc) {
	var kc [3]adiAxisConsts
	for d := range kc {
		kc[d] = adiNewAxisConsts(&k.dir[d], k)
	}
	kv := newAdiRowVecs(&kc, k.dt)
	ilo, ihi := c.interior(0)
	jlo, jhi := c.interior(1)
	klo, khi := c.interior(2)
	n := ihi - ilo + 1
	wx := c.diss[0][ilo : ihi+1]
	var rows [3]adiRows
	// The points go by blocks of adiRHSRows rows, each block plane after
	// plane: the planes that the z differences read stay in cache from
	// one plane of the block to the next.
	for jb := jlo; jb <= jhi; jb += adiRHSRows {
		for kk := klo; kk <= khi; kk++ {
			for jj := jb; jj <= min(jb+adiRHSRows-1, jhi); jj++ {
				pr := c.rAt(ilo, jj, kk)
				r := c.rhs[pr : pr+5*n]
				for d := range rows {
					rows[d].set(c, d, ilo, jj, kk, n)
				}
				adiRowTerms(r, &rows, wx, &c.diss[1][jj], &c.diss[2][kk], &kc, &kv, k.dt)
				if then != nil {
					then(c, jj, kk)
				}
			}
		}
	}
}

// adiRHSRows is the number of rows in a block of adiCellRHS: five planes
// of u and three of each derived field, over a block of rows of a class B
// cell, fit in a megabyte.
const adiRHSRows = 8

// adiRows are the rows that the terms of one axis read at a row of n
// points along x: u at offsets −2..+2 along the axis (five values a
// point) and rhsFields at −1..+1 (adiPacked values a point), each from
// the row's first point on.
type adiRows struct {
	u      [5][]float64
	fields [3][]float64
}

// set cuts the rows next to the n points of cell c from (i, j, k) along
// axis d.
func (rw *adiRows) set(c *adiCell, d, i, j, k, n int) {
	su, sa, _ := adiAxisStrides(c, d)
	pu, pa := c.uAt(i, j, k), c.aAt(i, j, k)
	for o := range rw.u {
		rw.u[o] = c.u[pu+(o-2)*su:][:5*n]
	}
	for o := range rw.fields {
		a := pa + (o-1)*sa
		rw.fields[o] = c.rhsFields[adiPacked*a : adiPacked*(a+n)]
	}
}
