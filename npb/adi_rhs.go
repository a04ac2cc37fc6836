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
// of the derived fields along the axis, the velocity normal to it, and
// the two others with the indices of their momentum components.
type adiAxisView struct {
	su, sa int
	n      int // momentum component normal to the axis (1, 2 or 3)
	vn     []float64
	t      [2]int
	vt     [2][]float64
	ax     *adiDir
	diss   [][5]float64 // dissipation weights by position on the axis
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
// rhs and scales by dt.
func adiCellRHS(c *adiCell, k *adiConsts) {
	ui, uj, uk := c.uStride()
	ai, aj, ak := c.aStride()
	views := [3]adiAxisView{
		{su: ui, sa: ai, n: 1, vn: c.us, t: [2]int{2, 3}, vt: [2][]float64{c.vs, c.ws}},
		{su: uj, sa: aj, n: 2, vn: c.vs, t: [2]int{1, 3}, vt: [2][]float64{c.us, c.ws}},
		{su: uk, sa: ak, n: 3, vn: c.ws, t: [2]int{1, 2}, vt: [2][]float64{c.us, c.vs}},
	}
	for d := range views {
		v := &views[d]
		v.ax = &k.dir[d]
		v.diss = c.diss[d]
	}
	pt := adiPointRefs{u: c.u, rhoI: c.rhoI, qs: c.qs, sq: c.square}
	ilo, ihi := c.interior(0)
	jlo, jhi := c.interior(1)
	klo, khi := c.interior(2)
	for kk := klo; kk <= khi; kk++ {
		for jj := jlo; jj <= jhi; jj++ {
			r0 := c.rAt(0, jj, kk)
			u0, a0 := c.uAt(0, jj, kk), c.aAt(0, jj, kk)
			for ii := ilo; ii <= ihi; ii++ {
				r := (*[5]float64)(c.rhs[r0+5*ii:])
				pos := [3]int{ii, jj, kk}
				for d := range views {
					pt.fluxAndDissipation(r, &views[d], u0+5*ii, a0+ii, pos[d], k)
				}
				for m := range r {
					r[m] *= k.dt
				}
			}
		}
	}
}

// adiPointRefs are the fields the right-hand side reads.
type adiPointRefs struct {
	u, rhoI, qs, sq []float64
}

// fluxAndDissipation adds to r, the right-hand side at the point whose
// index is pu in u and pa in the derived fields and whose position on the
// view's axis is q, the central differences of the fluxes along the axis
// and subtracts the fourth-order dissipation.
func (f *adiPointRefs) fluxAndDissipation(r *[5]float64, v *adiAxisView, pu, pa, q int, k *adiConsts) {
	su, sa := v.su, v.sa
	u := f.u
	up := (*[5]float64)(u[pu+su:])
	uc := (*[5]float64)(u[pu:])
	um := (*[5]float64)(u[pu-su:])
	ax := v.ax
	n := v.n
	vc, vp, vm := v.vn[pa], v.vn[pa+sa], v.vn[pa-sa]
	sqp, sqm := f.sq[pa+sa], f.sq[pa-sa]

	r[0] = r[0] + ax.dt1[0]*(up[0]-2*uc[0]+um[0]) - ax.t2*(up[n]-um[n])
	r[n] = r[n] + ax.dt1[n]*(up[n]-2*uc[n]+um[n]) +
		ax.con[1]*k.con43*(vp-2*vc+vm) -
		ax.t2*(up[n]*vp-um[n]*vm+(up[4]-sqp-um[4]+sqm)*k.c2)
	for e, t := range v.t {
		vt := v.vt[e]
		r[t] = r[t] + ax.dt1[t]*(up[t]-2*uc[t]+um[t]) +
			ax.con[1]*(vt[pa+sa]-2*vt[pa]+vt[pa-sa]) -
			ax.t2*(up[t]*vp-um[t]*vm)
	}
	qs, rho := f.qs, f.rhoI
	r[4] = r[4] + ax.dt1[4]*(up[4]-2*uc[4]+um[4]) +
		ax.con[2]*(qs[pa+sa]-2*qs[pa]+qs[pa-sa]) +
		ax.con[3]*(vp*vp-2*vc*vc+vm*vm) +
		ax.con[4]*(up[4]*rho[pa+sa]-2*uc[4]*rho[pa]+um[4]*rho[pa-sa]) -
		ax.t2*((k.c1*up[4]-k.c2*sqp)*vp-(k.c1*um[4]-k.c2*sqm)*vm)

	w := &v.diss[q]
	u2p := (*[5]float64)(u[pu+2*su:])
	u2m := (*[5]float64)(u[pu-2*su:])
	for m := range r {
		r[m] = r[m] - k.dssp*(w[0]*u2m[m]+w[1]*um[m]+w[2]*uc[m]+w[3]*up[m]+w[4]*u2p[m])
	}
}
