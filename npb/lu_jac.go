package npb

// The 5×5 blocks of LU's SSOR sweeps (NPB3.4-MPI LU/jacld.f90 and
// jacu.f90) and the solve with the diagonal block (blts.f90, buts.f90).
//
// jacld and jacu form, at every point, the diagonal block d and the blocks
// coupling the point to its neighbours in x, y and z: jacld those of the
// neighbours below (i−1, j−1, k−1), jacu those above (i+1, j+1, k+1). A
// neighbour block is the flux Jacobian of the neighbour's state with the
// convective part scaled by ∓dt·t2 (− below, + above) and the viscous part
// by −dt·t1; luJacX, luJacY and luJacZ form them with the convective factor
// given, so that one function serves both sweeps. Every entry is formed
// with NPB's operations in NPB's order (Go evaluates a*b*c as (a*b)*c, as
// Fortran does), so that the sweeps are NPB's bit for bit; loop-invariant
// leading factors are taken out of the loops, which does not change a
// result.

// luJacConst are the loop invariants of the blocks.
type luJacConst struct {
	r43c34, c34, c1345 float64
	rcm, cm            float64 // r43·c34 − c1345, c34 − c1345
	half2              float64 // 0.5·c2
	twoMinusC2         float64 // 2 − c2
	// Per direction: vs = dt·t1, and vs times each constant factor.
	x, y, z luJacDir
	// The diagonal block: dt·2, the constant diagonal terms and the
	// coefficients of its entries.
	dt2                   float64
	d11, r11              float64    // r11 = 1/d11
	dd                    [5]float64 // dt·2·(tx1·dx(m) + ty1·dy(m) + tz1·dz(m)) for m = 2..5
	tx1, ty1, tz1         float64
	tx1r43c34, ty1c34     float64
	ty1r43c34, tz1c34     float64
	tz1r43c34, tx1c34     float64
	tx1c1345, ty1c1345    float64
	tz1c1345              float64
	tx1rcm, ty1cm, tz1cm  float64
	tx1cm, ty1rcm, tz1rcm float64
	cvLower, cvUpper      [3]float64 // the convective factors −dt·t2, +dt·t2 of x, y, z
	omega                 float64
	nr43c34, nc34, nrcm   float64 // −r43·c34, −c34, −(r43·c34 − c1345)
	ncm                   float64 // −(c34 − c1345)
	c1, c2                float64
	vsc34z                float64 // dt·tz1·c34
}

// luJacDir are a direction's viscous factors.
type luJacDir struct {
	vs      float64    // dt·t1
	vsd     [5]float64 // dt·t1·d(m)
	vsc1345 float64    // dt·t1·c1345
	vscm    float64    // dt·t1·(c34 − c1345)
	vsrcm   float64    // dt·t1·(r43·c34 − c1345)
}

func newLUJacDir(dt, t1 float64, d [5]float64, c34, c1345, r43c34 float64) luJacDir {
	vs := dt * t1
	r := luJacDir{vs: vs, vsc1345: vs * c1345, vscm: vs * (c34 - c1345), vsrcm: vs * (r43c34 - c1345)}
	for m := range d {
		r.vsd[m] = vs * d[m]
	}
	return r
}

func newLUJacConst(co *luCoef, dt, omega float64) luJacConst {
	r43 := 4.0 / 3.0
	c34 := luC3 * luC4
	c1345 := luC1 * luC3 * luC4 * luC5
	k := luJacConst{
		r43c34: r43 * c34, c34: c34, c1345: c1345,
		half2: 0.50 * luC2, twoMinusC2: 2.0 - luC2,
		dt2: dt * 2.0, omega: omega, c1: luC1, c2: luC2,
		tx1: co.tx1, ty1: co.ty1, tz1: co.tz1,
	}
	k.rcm, k.cm = k.r43c34-c1345, c34-c1345
	k.nr43c34, k.nc34, k.nrcm, k.ncm = -k.r43c34, -c34, -k.rcm, -k.cm
	k.x = newLUJacDir(dt, co.tx1, co.dx, c34, c1345, k.r43c34)
	k.y = newLUJacDir(dt, co.ty1, co.dy, c34, c1345, k.r43c34)
	k.z = newLUJacDir(dt, co.tz1, co.dz, c34, c1345, k.r43c34)
	k.vsc34z = k.z.vs * c34
	k.d11 = 1.0 + k.dt2*(co.tx1*co.dx[0]+co.ty1*co.dy[0]+co.tz1*co.dz[0])
	k.r11 = 1.0 / k.d11
	for m := 1; m < 5; m++ {
		k.dd[m] = k.dt2 * (co.tx1*co.dx[m] + co.ty1*co.dy[m] + co.tz1*co.dz[m])
	}
	k.tx1r43c34, k.ty1r43c34, k.tz1r43c34 = co.tx1*r43*c34, co.ty1*r43*c34, co.tz1*r43*c34
	k.tx1c34, k.ty1c34, k.tz1c34 = co.tx1*c34, co.ty1*c34, co.tz1*c34
	k.tx1c1345, k.ty1c1345, k.tz1c1345 = co.tx1*c1345, co.ty1*c1345, co.tz1*c1345
	k.tx1rcm, k.ty1rcm, k.tz1rcm = co.tx1*k.rcm, co.ty1*k.rcm, co.tz1*k.rcm
	k.tx1cm, k.ty1cm, k.tz1cm = co.tx1*k.cm, co.ty1*k.cm, co.tz1*k.cm
	k.cvLower = [3]float64{-dt * co.tx2, -dt * co.ty2, -dt * co.tz2}
	k.cvUpper = [3]float64{dt * co.tx2, dt * co.ty2, dt * co.tz2}
	return k
}

// luDiag are the entries of the diagonal block that are not zero: the
// diagonal, the first column and the last row.
type luDiag struct {
	d11, d21, d22, d31, d33, d41, d44 float64
	d51, d52, d53, d54, d55           float64
	r11                               float64 // 1/d11, a constant
}

// luJacD forms the diagonal block at a point of state w, whose 1/ρ is t1.
func luJacD(d *luDiag, w *[5]float64, t1 float64, k *luJacConst) {
	t2 := t1 * t1
	t3 := t1 * t2
	w2, w3, w4, w5 := w[1], w[2], w[3], w[4]
	tx1, ty1, tz1, dt2 := k.tx1, k.ty1, k.tz1, k.dt2
	d.d11, d.r11 = k.d11, k.r11
	q2, q3, q4 := k.nc34*t2*w2, k.nc34*t2*w3, k.nc34*t2*w4
	d.d21 = dt2 * (tx1*(k.nr43c34*t2*w2) + ty1*q2 + tz1*q2)
	d.d22 = 1.0 + dt2*(k.tx1r43c34*t1+k.ty1c34*t1+k.tz1c34*t1) + k.dd[1]
	d.d31 = dt2 * (tx1*q3 + ty1*(k.nr43c34*t2*w3) + tz1*q3)
	d.d33 = 1.0 + dt2*(k.tx1c34*t1+k.ty1r43c34*t1+k.tz1c34*t1) + k.dd[2]
	d.d41 = dt2 * (tx1*q4 + ty1*q4 + tz1*(k.nr43c34*t2*w4))
	d.d44 = 1.0 + dt2*(k.tx1c34*t1+k.ty1c34*t1+k.tz1r43c34*t1) + k.dd[3]
	s2, s3, s4 := w2*w2, w3*w3, w4*w4
	r2, r3, r4 := k.nrcm*t3*s2, k.nrcm*t3*s3, k.nrcm*t3*s4 // −(r43·c34 − c1345)·t3·w²
	p2, p3, p4 := k.cm*t3*s2, k.cm*t3*s3, k.cm*t3*s4       // (c34 − c1345)·t3·w²
	e := k.c1345 * t2 * w5
	d.d51 = dt2 * (tx1*(r2-p3-p4-e) + ty1*(-p2+r3-p4-e) + tz1*(-p2-p3+r4-e))
	d.d52 = dt2 * (k.tx1rcm*t2*w2 + k.ty1cm*t2*w2 + k.tz1cm*t2*w2)
	d.d53 = dt2 * (k.tx1cm*t2*w3 + k.ty1rcm*t2*w3 + k.tz1cm*t2*w3)
	d.d54 = dt2 * (k.tx1cm*t2*w4 + k.ty1cm*t2*w4 + k.tz1rcm*t2*w4)
	d.d55 = 1.0 + dt2*(k.tx1c1345*t1+k.ty1c1345*t1+k.tz1c1345*t1) + k.dd[4]
}

// luSolveDiag solves d·x = v in place, with NPB's Gaussian elimination
// restricted to the entries of d that are not zero (the others contribute
// exact zeros to NPB's arithmetic).
func luSolveDiag(d *luDiag, v *[5]float64) {
	t := d.r11
	v[1] = v[1] - v[0]*(t*d.d21)
	v[2] = v[2] - v[0]*(t*d.d31)
	v[3] = v[3] - v[0]*(t*d.d41)
	v[4] = v[4] - v[0]*(t*d.d51)
	t = 1.0 / d.d22
	v[4] = v[4] - v[1]*(t*d.d52)
	t = 1.0 / d.d33
	v[4] = v[4] - v[2]*(t*d.d53)
	t = 1.0 / d.d44
	v[4] = v[4] - v[3]*(t*d.d54)
	v[4] = v[4] / d.d55
	v[3] = v[3] / d.d44
	v[2] = v[2] / d.d33
	v[1] = v[1] / d.d22
	v[0] = v[0] / d.d11
}

// luJacX forms the block of a neighbour of state w (1/ρ t1) in x with
// convective factor cv into a (row-major; its zero entries are left
// alone).
func luJacX(a *[25]float64, w *[5]float64, t1, cv float64, k *luJacConst) {
	t2 := t1 * t1
	t3 := t1 * t2
	w2, w3, w4, w5 := w[1], w[2], w[3], w[4]
	v := &k.x
	c1, c2 := k.c1, k.c2
	sum := w2*w2 + w3*w3 + w4*w4
	a[0] = -v.vsd[0]
	a[1] = cv
	a[5] = cv*(-(w2*t1)*(w2*t1)+c2*0.50*sum*t2) - v.vs*(k.nr43c34*t2*w2)
	a[6] = cv*(k.twoMinusC2*(w2*t1)) - v.vs*(k.r43c34*t1) - v.vsd[1]
	a[7] = cv * (-c2 * (w3 * t1))
	a[8] = cv * (-c2 * (w4 * t1))
	a[9] = cv * c2
	a[10] = cv*(-(w2*w3)*t2) - v.vs*(k.nc34*t2*w3)
	a[11] = cv * (w3 * t1)
	a[12] = cv*(w2*t1) - v.vs*(k.c34*t1) - v.vsd[2]
	a[15] = cv*(-(w2*w4)*t2) - v.vs*(k.nc34*t2*w4)
	a[16] = cv * (w4 * t1)
	a[18] = cv*(w2*t1) - v.vs*(k.c34*t1) - v.vsd[3]
	a[20] = cv*((c2*sum*t2-c1*(w5*t1))*(w2*t1)) - v.vs*(k.nrcm*t3*(w2*w2)-k.cm*t3*(w3*w3)-k.cm*t3*(w4*w4)-k.c1345*t2*w5)
	a[21] = cv*(c1*(w5*t1)-k.half2*((3.0*w2*w2+w3*w3+w4*w4)*t2)) - v.vsrcm*t2*w2
	a[22] = cv*(-c2*(w3*w2)*t2) - v.vscm*t2*w3
	a[23] = cv*(-c2*(w4*w2)*t2) - v.vscm*t2*w4
	a[24] = cv*(c1*(w2*t1)) - v.vsc1345*t1 - v.vsd[4]
}

// luJacY forms the block of a neighbour of state w in y (see luJacX).
func luJacY(a *[25]float64, w *[5]float64, t1, cv float64, k *luJacConst) {
	t2 := t1 * t1
	t3 := t1 * t2
	w2, w3, w4, w5 := w[1], w[2], w[3], w[4]
	v := &k.y
	c1, c2 := k.c1, k.c2
	sum := w2*w2 + w3*w3 + w4*w4
	a[0] = -v.vsd[0]
	a[2] = cv
	a[5] = cv*(-(w2*w3)*t2) - v.vs*(k.nc34*t2*w2)
	a[6] = cv*(w3*t1) - v.vs*(k.c34*t1) - v.vsd[1]
	a[7] = cv * (w2 * t1)
	a[10] = cv*(-(w3*t1)*(w3*t1)+k.half2*(sum*t2)) - v.vs*(k.nr43c34*t2*w3)
	a[11] = cv * (-c2 * (w2 * t1))
	a[12] = cv*(k.twoMinusC2*(w3*t1)) - v.vs*(k.r43c34*t1) - v.vsd[2]
	a[13] = cv * (-c2 * (w4 * t1))
	a[14] = cv * c2
	a[15] = cv*(-(w3*w4)*t2) - v.vs*(k.nc34*t2*w4)
	a[17] = cv * (w4 * t1)
	a[18] = cv*(w3*t1) - v.vs*(k.c34*t1) - v.vsd[3]
	a[20] = cv*((c2*sum*t2-c1*(w5*t1))*(w3*t1)) - v.vs*(-k.cm*t3*(w2*w2)+k.nrcm*t3*(w3*w3)-k.cm*t3*(w4*w4)-k.c1345*t2*w5)
	a[21] = cv*(-c2*(w2*w3)*t2) - v.vscm*t2*w2
	a[22] = cv*(c1*(w5*t1)-k.half2*((w2*w2+3.0*w3*w3+w4*w4)*t2)) - v.vsrcm*t2*w3
	a[23] = cv*(-c2*(w3*w4)*t2) - v.vscm*t2*w4
	a[24] = cv*(c1*(w3*t1)) - v.vsc1345*t1 - v.vsd[4]
}

// luJacZ forms the block of a neighbour of state w in z (see luJacX).
func luJacZ(a *[25]float64, w *[5]float64, t1, cv float64, k *luJacConst) {
	t2 := t1 * t1
	t3 := t1 * t2
	w2, w3, w4, w5 := w[1], w[2], w[3], w[4]
	v := &k.z
	c1, c2 := k.c1, k.c2
	sum := w2*w2 + w3*w3 + w4*w4
	a[0] = -v.vsd[0]
	a[3] = cv
	a[5] = cv*(-(w2*w4)*t2) - v.vs*(k.nc34*t2*w2)
	a[6] = cv*(w4*t1) - k.vsc34z*t1 - v.vsd[1]
	a[8] = cv * (w2 * t1)
	a[10] = cv*(-(w3*w4)*t2) - v.vs*(k.nc34*t2*w3)
	a[12] = cv*(w4*t1) - v.vs*(k.c34*t1) - v.vsd[2]
	a[13] = cv * (w3 * t1)
	a[15] = cv*(-(w4*t1)*(w4*t1)+k.half2*(sum*t2)) - v.vs*(k.nr43c34*t2*w4)
	a[16] = cv * (-c2 * (w2 * t1))
	a[17] = cv * (-c2 * (w3 * t1))
	a[18] = cv*k.twoMinusC2*(w4*t1) - v.vs*(k.r43c34*t1) - v.vsd[3]
	a[19] = cv * c2
	a[20] = cv*((c2*sum*t2-c1*(w5*t1))*(w4*t1)) - v.vs*(-k.cm*t3*(w2*w2)-k.cm*t3*(w3*w3)+k.nrcm*t3*(w4*w4)-k.c1345*t2*w5)
	a[21] = cv*(-c2*(w2*w4)*t2) - v.vscm*t2*w2
	a[22] = cv*(-c2*(w3*w4)*t2) - v.vscm*t2*w3
	a[23] = cv*(c1*(w5*t1)-k.half2*((w2*w2+w3*w3+3.0*w4*w4)*t2)) - v.vsrcm*t2*w4
	a[24] = cv*(c1*(w4*t1)) - v.vsc1345*t1 - v.vsd[4]
}
