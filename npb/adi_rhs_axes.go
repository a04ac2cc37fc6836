package npb

// The terms of each axis on a row of points along x (rhs.f90's xi-, eta-
// and zeta-direction fluxes and fourth-order dissipation). The three
// differ only in which momentum component is normal to the axis; each is
// written out with its components as constants, so that its loop reads
// its rows at fixed offsets of running indices and carries no bounds
// checks.

// adiAxisConsts are the constants of one axis's terms of the right-hand
// side (con2con43 is con2·con43, the product rhs.f90 forms at each
// point).
type adiAxisConsts struct {
	dt1                 [5]float64
	t2, con2, con2con43 float64
	con3, con4, con5    float64
	c1, c2, dssp        float64
}

// adiNewAxisConsts returns the constants of the terms along the axis of
// ax.
func adiNewAxisConsts(ax *adiDir, k *adiConsts) adiAxisConsts {
	return adiAxisConsts{
		dt1: ax.dt1, t2: ax.t2, con2: ax.con[1], con2con43: ax.con[1] * k.con43,
		con3: ax.con[2], con4: ax.con[3], con5: ax.con[4],
		c1: k.c1, c2: k.c2, dssp: k.dssp,
	}
}

// adiRowTermsGo adds the terms of the three axes to the row r of rhs and
// scales it by dt: rw are the rows next to it along each axis, wx its
// points' dissipation weights along x, wy and wz the row's along y and z.
func adiRowTermsGo(r []float64, rw *[3]adiRows, wx [][5]float64, wy, wz *[5]float64, kc *[3]adiAxisConsts, dt float64) {
	adiRowX(r, &rw[0], wx, &kc[0])
	adiRowY(r, &rw[1], wy, &kc[1])
	adiRowZ(r, &rw[2], wz, &kc[2], dt)
}

// adiRowX adds the x terms to the row r of rhs: rw are the rows next to
// it along x, w its points' dissipation weights.
func adiRowX(r []float64, rw *adiRows, w [][5]float64, kp *adiAxisConsts) {
	k := *kp
	u, f := &rw.u, &rw.fields
	um2, um, uc, up, up2 := u[0][:len(r)], u[1][:len(r)], u[2][:len(r)], u[3][:len(r)], u[4][:len(r)]
	fc := f[1]
	fm, fp := f[0][:len(fc)], f[2][:len(fc)]
	const n, t1, t2 = 1, 2, 3
	for i, j, p := 0, 0, 0; i >= 0 && i < len(w) && j >= 0 && j < len(r)-4 && p >= 0 && p < len(fc)-5; i, j, p = i+1, j+5, p+6 {
		w0, w1, w2, w3, w4 := w[i][0], w[i][1], w[i][2], w[i][3], w[i][4]
		vm, vc, vp := fm[p+n], fc[p+n], fp[p+n]
		sqm, sqp := fm[p+adiPackSquare], fp[p+adiPackSquare]
		diss := func(m int) float64 {
			return k.dssp * (w0*um2[j+m] + w1*um[j+m] + w2*uc[j+m] + w3*up[j+m] + w4*up2[j+m])
		}
		r[j] = r[j] + k.dt1[0]*(up[j]-2*uc[j]+um[j]) - k.t2*(up[j+n]-um[j+n]) - diss(0)
		r[j+n] = r[j+n] + k.dt1[n]*(up[j+n]-2*uc[j+n]+um[j+n]) +
			k.con2con43*(vp-2*vc+vm) -
			k.t2*(up[j+n]*vp-um[j+n]*vm+(up[j+4]-sqp-um[j+4]+sqm)*k.c2) - diss(n)
		r[j+t1] = r[j+t1] + k.dt1[t1]*(up[j+t1]-2*uc[j+t1]+um[j+t1]) +
			k.con2*(fp[p+t1]-2*fc[p+t1]+fm[p+t1]) -
			k.t2*(up[j+t1]*vp-um[j+t1]*vm) - diss(t1)
		r[j+t2] = r[j+t2] + k.dt1[t2]*(up[j+t2]-2*uc[j+t2]+um[j+t2]) +
			k.con2*(fp[p+t2]-2*fc[p+t2]+fm[p+t2]) -
			k.t2*(up[j+t2]*vp-um[j+t2]*vm) - diss(t2)
		const qs, rho = adiPackQs, adiPackRhoI
		r[j+4] = r[j+4] + k.dt1[4]*(up[j+4]-2*uc[j+4]+um[j+4]) +
			k.con3*(fp[p+qs]-2*fc[p+qs]+fm[p+qs]) +
			k.con4*(vp*vp-2*vc*vc+vm*vm) +
			k.con5*(up[j+4]*fp[p+rho]-2*uc[j+4]*fc[p+rho]+um[j+4]*fm[p+rho]) -
			k.t2*((k.c1*up[j+4]-k.c2*sqp)*vp-(k.c1*um[j+4]-k.c2*sqm)*vm) - diss(4)
	}
}

// adiRowY adds the y terms to the row r of rhs: rw are the rows next to
// it along y, w the row's dissipation weights.
func adiRowY(r []float64, rw *adiRows, w *[5]float64, kp *adiAxisConsts) {
	k := *kp
	u, f := &rw.u, &rw.fields
	um2, um, uc, up, up2 := u[0][:len(r)], u[1][:len(r)], u[2][:len(r)], u[3][:len(r)], u[4][:len(r)]
	fc := f[1]
	fm, fp := f[0][:len(fc)], f[2][:len(fc)]
	w0, w1, w2, w3, w4 := w[0], w[1], w[2], w[3], w[4]
	const n, t1, t2 = 2, 1, 3
	for j, p := 0, 0; j >= 0 && j < len(r)-4 && p >= 0 && p < len(fc)-5; j, p = j+5, p+6 {
		vm, vc, vp := fm[p+n], fc[p+n], fp[p+n]
		sqm, sqp := fm[p+adiPackSquare], fp[p+adiPackSquare]
		diss := func(m int) float64 {
			return k.dssp * (w0*um2[j+m] + w1*um[j+m] + w2*uc[j+m] + w3*up[j+m] + w4*up2[j+m])
		}
		r[j] = r[j] + k.dt1[0]*(up[j]-2*uc[j]+um[j]) - k.t2*(up[j+n]-um[j+n]) - diss(0)
		r[j+n] = r[j+n] + k.dt1[n]*(up[j+n]-2*uc[j+n]+um[j+n]) +
			k.con2con43*(vp-2*vc+vm) -
			k.t2*(up[j+n]*vp-um[j+n]*vm+(up[j+4]-sqp-um[j+4]+sqm)*k.c2) - diss(n)
		r[j+t1] = r[j+t1] + k.dt1[t1]*(up[j+t1]-2*uc[j+t1]+um[j+t1]) +
			k.con2*(fp[p+t1]-2*fc[p+t1]+fm[p+t1]) -
			k.t2*(up[j+t1]*vp-um[j+t1]*vm) - diss(t1)
		r[j+t2] = r[j+t2] + k.dt1[t2]*(up[j+t2]-2*uc[j+t2]+um[j+t2]) +
			k.con2*(fp[p+t2]-2*fc[p+t2]+fm[p+t2]) -
			k.t2*(up[j+t2]*vp-um[j+t2]*vm) - diss(t2)
		const qs, rho = adiPackQs, adiPackRhoI
		r[j+4] = r[j+4] + k.dt1[4]*(up[j+4]-2*uc[j+4]+um[j+4]) +
			k.con3*(fp[p+qs]-2*fc[p+qs]+fm[p+qs]) +
			k.con4*(vp*vp-2*vc*vc+vm*vm) +
			k.con5*(up[j+4]*fp[p+rho]-2*uc[j+4]*fc[p+rho]+um[j+4]*fm[p+rho]) -
			k.t2*((k.c1*up[j+4]-k.c2*sqp)*vp-(k.c1*um[j+4]-k.c2*sqm)*vm) - diss(4)
	}
}

// adiRowZ adds the z terms to the row r of rhs and scales it by dt: rw
// are the rows next to it along z, w the row's dissipation weights.
func adiRowZ(r []float64, rw *adiRows, w *[5]float64, kp *adiAxisConsts, dt float64) {
	k := *kp
	u, f := &rw.u, &rw.fields
	um2, um, uc, up, up2 := u[0][:len(r)], u[1][:len(r)], u[2][:len(r)], u[3][:len(r)], u[4][:len(r)]
	fc := f[1]
	fm, fp := f[0][:len(fc)], f[2][:len(fc)]
	w0, w1, w2, w3, w4 := w[0], w[1], w[2], w[3], w[4]
	const n, t1, t2 = 3, 1, 2
	for j, p := 0, 0; j >= 0 && j < len(r)-4 && p >= 0 && p < len(fc)-5; j, p = j+5, p+6 {
		vm, vc, vp := fm[p+n], fc[p+n], fp[p+n]
		sqm, sqp := fm[p+adiPackSquare], fp[p+adiPackSquare]
		diss := func(m int) float64 {
			return k.dssp * (w0*um2[j+m] + w1*um[j+m] + w2*uc[j+m] + w3*up[j+m] + w4*up2[j+m])
		}
		r[j] = (r[j] + k.dt1[0]*(up[j]-2*uc[j]+um[j]) - k.t2*(up[j+n]-um[j+n]) - diss(0)) * dt
		r[j+n] = (r[j+n] + k.dt1[n]*(up[j+n]-2*uc[j+n]+um[j+n]) +
			k.con2con43*(vp-2*vc+vm) -
			k.t2*(up[j+n]*vp-um[j+n]*vm+(up[j+4]-sqp-um[j+4]+sqm)*k.c2) - diss(n)) * dt
		r[j+t1] = (r[j+t1] + k.dt1[t1]*(up[j+t1]-2*uc[j+t1]+um[j+t1]) +
			k.con2*(fp[p+t1]-2*fc[p+t1]+fm[p+t1]) -
			k.t2*(up[j+t1]*vp-um[j+t1]*vm) - diss(t1)) * dt
		r[j+t2] = (r[j+t2] + k.dt1[t2]*(up[j+t2]-2*uc[j+t2]+um[j+t2]) +
			k.con2*(fp[p+t2]-2*fc[p+t2]+fm[p+t2]) -
			k.t2*(up[j+t2]*vp-um[j+t2]*vm) - diss(t2)) * dt
		const qs, rho = adiPackQs, adiPackRhoI
		r[j+4] = (r[j+4] + k.dt1[4]*(up[j+4]-2*uc[j+4]+um[j+4]) +
			k.con3*(fp[p+qs]-2*fc[p+qs]+fm[p+qs]) +
			k.con4*(vp*vp-2*vc*vc+vm*vm) +
			k.con5*(up[j+4]*fp[p+rho]-2*uc[j+4]*fc[p+rho]+um[j+4]*fm[p+rho]) -
			k.t2*((k.c1*up[j+4]-k.c2*sqp)*vp-(k.c1*um[j+4]-k.c2*sqm)*vm) - diss(4)) * dt
	}
}
