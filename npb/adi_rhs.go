package npb

// The right-hand side of the time step (NPB3.4-MPI BT/rhs.f90, SP/rhs.f90):
// rhs = dt·(forcing + the central differences of the fluxes and the
// fourth-order dissipation along x, y and z), on the points the step
// updates. rhs.f90 makes one pass over the cell per term; here one pass
// over the points computes all of them, each point's terms added in
// rhs.f90's order.

import "math"

// adiDerived computes the fields derived from u on the cell and its first
// ghost layer: 1/ρ, the velocities, the kinetic energy per volume (square)
// and per mass (qs), and, for SP, the speed of sound and its inverse.
func adiDerived(c *adiCell, c1c2 float64) {
	for k := -1; k <= c.size[2]; k++ {
		for j := -1; j <= c.size[1]; j++ {
			u0 := c.uAt(-1, j, k)
			a0 := c.aAt(-1, j, k)
			n := c.size[0] + 2
			u := c.u[u0 : u0+5*n]
			rhoI, us, vs, ws := c.rhoI[a0:a0+n], c.us[a0:a0+n], c.vs[a0:a0+n], c.ws[a0:a0+n]
			sq, qs := c.square[a0:a0+n], c.qs[a0:a0+n]
			for i := range n {
				p := u[5*i : 5*i+5]
				r := 1 / p[0]
				rhoI[i] = r
				us[i] = p[1] * r
				vs[i] = p[2] * r
				ws[i] = p[3] * r
				sq[i] = 0.5 * (p[1]*p[1] + p[2]*p[2] + p[3]*p[3]) * r
				qs[i] = sq[i] * r
			}
			if c.speed != nil {
				speed, ainv := c.speed[a0:a0+n], c.ainv[a0:a0+n]
				for i := range n {
					s := math.Sqrt(c1c2 * rhoI[i] * (u[5*i+4] - sq[i]))
					speed[i] = s
					ainv[i] = 1 / s
				}
			}
		}
	}
}

// adiAxisView is what the flux along one axis reads: the strides of u and
// of the derived fields along the axis, the velocity normal to it and the
// two others, the indices of the matching momentum components, and the
// axis's constants.
type adiAxisView struct {
	su, sa    int
	n, t1, t2 int // momentum components normal and tangential to the axis
	vn        []float64
	vt1, vt2  []float64
	ax        *adiDir
	diss      [][5]float64 // dissipation weights by position on the axis
	con43     float64
	c1, c2    float64
	dssp      float64
	u         []float64
	rhoI, qs  []float64
	sq        []float64 // square
}

// adiRHS computes the right-hand side of every cell from u (compute_rhs).
// The derived fields must be up to date on the ghost layer, which needs
// the faces exchanged first.
func adiRHS(g *adiGrid, k *adiConsts) {
	for ci := range g.cells {
		c := &g.cells[ci]
		adiDerived(c, k.c1c2)
		copy(c.rhs, c.forcing)
		adiCellRHS(c, k)
	}
}

// adiCellRHS adds the fluxes and the dissipation to the forcing in cell c's
// rhs and scales by dt. The five components of a point stay in registers
// through the three axes; each axis's function takes and returns them
// with the normal momentum component second.
func adiCellRHS(c *adiCell, k *adiConsts) {
	ui, uj, uk := c.uStride()
	ai, aj, ak := c.aStride()
	views := [3]adiAxisView{
		{su: ui, sa: ai, n: 1, t1: 2, t2: 3, vn: c.us, vt1: c.vs, vt2: c.ws},
		{su: uj, sa: aj, n: 2, t1: 1, t2: 3, vn: c.vs, vt1: c.us, vt2: c.ws},
		{su: uk, sa: ak, n: 3, t1: 1, t2: 2, vn: c.ws, vt1: c.us, vt2: c.vs},
	}
	for d := range views {
		v := &views[d]
		v.ax, v.diss = &k.dir[d], c.diss[d]
		v.con43, v.c1, v.c2, v.dssp = k.con43, k.c1, k.c2, k.dssp
		v.u, v.rhoI, v.qs, v.sq = c.u, c.rhoI, c.qs, c.square
	}
	vx, vy, vz := &views[0], &views[1], &views[2]
	dt := k.dt
	ilo, ihi := c.interior(0)
	jlo, jhi := c.interior(1)
	klo, khi := c.interior(2)
	// The points go by blocks of adiRHSRows rows, each block plane after
	// plane: the planes that the z differences read stay in cache from
	// one plane of the block to the next.
	for jb := jlo; jb <= jhi; jb += adiRHSRows {
		jend := min(jb+adiRHSRows-1, jhi)
		for kk := klo; kk <= khi; kk++ {
			adiRHSRowsAt(c, vx, vy, vz, jb, jend, kk, ilo, ihi, dt)
		}
	}
}

// adiRHSRows is the number of rows in a block of adiCellRHS: five planes
// of u and three of each derived field, over a block of rows of a class B
// cell, fit in a megabyte.
const adiRHSRows = 8

// adiRHSRowsAt computes the right-hand side on rows jb to jend of plane
// kk, points ilo to ihi.
func adiRHSRowsAt(c *adiCell, vx, vy, vz *adiAxisView, jb, jend, kk, ilo, ihi int, dt float64) {
	for jj := jb; jj <= jend; jj++ {
		rb := c.rAt(0, jj, kk)
		u0, a0 := c.uAt(0, jj, kk), c.aAt(0, jj, kk)
		for ii := ilo; ii <= ihi; ii++ {
			r := (*[5]float64)(c.rhs[rb+5*ii:])
			pu, pa := u0+5*ii, a0+ii
			r0, r1, r2, r3, r4 := r[0], r[1], r[2], r[3], r[4]
			r0, r1, r2, r3, r4 = vx.flux(pu, pa, ii, r0, r1, r2, r3, r4)
			r0, r2, r1, r3, r4 = vy.flux(pu, pa, jj, r0, r2, r1, r3, r4)
			r0, r3, r1, r2, r4 = vz.flux(pu, pa, kk, r0, r3, r1, r2, r4)
			r[0], r[1], r[2], r[3], r[4] = r0*dt, r1*dt, r2*dt, r3*dt, r4*dt
		}
	}
}

// flux returns the right-hand side (r0, rn, rt1, rt2, r4) at the point
// whose index is pu in u and pa in the derived fields and whose position
// on the view's axis is q, with the central differences of the fluxes
// along the axis added and the fourth-order dissipation subtracted; rn is
// the momentum component normal to the axis, rt1 and rt2 the others.
func (v *adiAxisView) flux(pu, pa, q int, r0, rn, rt1, rt2, r4 float64) (float64, float64, float64, float64, float64) {
	su, sa := v.su, v.sa
	u := v.u
	up := (*[5]float64)(u[pu+su:])
	uc := (*[5]float64)(u[pu:])
	um := (*[5]float64)(u[pu-su:])
	ax := v.ax
	n, t1, t2 := v.n, v.t1, v.t2
	c1, c2 := v.c1, v.c2
	vn := v.vn
	vc, vp, vm := vn[pa], vn[pa+sa], vn[pa-sa]
	sqp, sqm := v.sq[pa+sa], v.sq[pa-sa]
	con2 := ax.con[1]

	r0 = r0 + ax.dt1[0]*(up[0]-2*uc[0]+um[0]) - ax.t2*(up[n]-um[n])
	rn = rn + ax.dt1[n]*(up[n]-2*uc[n]+um[n]) +
		con2*v.con43*(vp-2*vc+vm) -
		ax.t2*(up[n]*vp-um[n]*vm+(up[4]-sqp-um[4]+sqm)*c2)
	vt := v.vt1
	rt1 = rt1 + ax.dt1[t1]*(up[t1]-2*uc[t1]+um[t1]) +
		con2*(vt[pa+sa]-2*vt[pa]+vt[pa-sa]) -
		ax.t2*(up[t1]*vp-um[t1]*vm)
	vt = v.vt2
	rt2 = rt2 + ax.dt1[t2]*(up[t2]-2*uc[t2]+um[t2]) +
		con2*(vt[pa+sa]-2*vt[pa]+vt[pa-sa]) -
		ax.t2*(up[t2]*vp-um[t2]*vm)
	qs, rho := v.qs, v.rhoI
	r4 = r4 + ax.dt1[4]*(up[4]-2*uc[4]+um[4]) +
		ax.con[2]*(qs[pa+sa]-2*qs[pa]+qs[pa-sa]) +
		ax.con[3]*(vp*vp-2*vc*vc+vm*vm) +
		ax.con[4]*(up[4]*rho[pa+sa]-2*uc[4]*rho[pa]+um[4]*rho[pa-sa]) -
		ax.t2*((c1*up[4]-c2*sqp)*vp-(c1*um[4]-c2*sqm)*vm)

	w := &v.diss[q]
	w0, w1, w2, w3, w4 := w[0], w[1], w[2], w[3], w[4]
	u2p := (*[5]float64)(u[pu+2*su:])
	u2m := (*[5]float64)(u[pu-2*su:])
	diss := func(m int) float64 {
		return v.dssp * (w0*u2m[m] + w1*um[m] + w2*uc[m] + w3*up[m] + w4*u2p[m])
	}
	return r0 - diss(0), rn - diss(n), rt1 - diss(t1), rt2 - diss(t2), r4 - diss(4)
}
