package npb

// The 5×5 blocks of BT's block-tridiagonal systems (NPB3.4-MPI
// BT/solve_subs.f90, and the Jacobians and left-hand sides of
// BT/x_solve.f90, y_solve.f90, z_solve.f90): along a grid line in direction
// d, the implicit step solves A(q)·Δ(q−1) + B(q)·Δ(q) + C(q)·Δ(q+1) = r(q),
// with A, B, C formed from the flux Jacobian F and the viscous Jacobian N
// of the neighbouring points.

// btBlock is a 5×5 block, b[row][col].
type btBlock [5][5]float64

// btJacobians sets f and n to the flux and viscous Jacobians at a point
// with conserved variables u, 1/ρ = rhoI and kinetic energy per mass qs,
// for the direction whose momentum component is un (1, 2 or 3 for x, y,
// z). The other two momentum components enter symmetrically. Only the
// entries that can be non-zero are written: f and n must be zero elsewhere
// (blocks used for one direction only).
func btJacobians(f, n *btBlock, u *[5]float64, rhoI, qs float64, un int, k *adiConsts) {
	t1 := rhoI
	t2 := t1 * t1
	t3 := t1 * t2
	c1, c2 := k.c1, k.c2
	c3c4, c1345 := k.c3c4, k.c1345
	w := u[un]

	f[0][un] = 1
	f[un][0] = -(w * w * t2) + c2*qs
	f[un][un] = (2 - c2) * (w * t1)
	f[un][4] = c2
	f[4][0] = (c2*2*qs - c1*(u[4]*t1)) * (w * t1)
	f[4][un] = c1*u[4]*t1 - c2*(w*w*t2+qs)
	f[4][4] = c1 * (w * t1)

	var visc [4]float64 // the viscous coefficient of each momentum component
	for m := 1; m < 4; m++ {
		visc[m] = c3c4
		if m == un {
			visc[m] = k.con43 * c3c4
			continue
		}
		v := u[m]
		f[un][m] = -c2 * (v * t1)
		f[m][0] = -(w * v) * t2
		f[m][un] = v * t1
		f[m][m] = w * t1
		f[4][m] = -c2 * (v * w) * t2
	}
	for m := 1; m < 4; m++ {
		n[m][0] = -visc[m] * t2 * u[m]
		n[m][m] = visc[m] * t1
		n[4][m] = (visc[m] - c1345) * t2 * u[m]
	}
	n[4][0] = -(visc[1]-c1345)*t3*(u[1]*u[1]) -
		(visc[2]-c1345)*t3*(u[2]*u[2]) -
		(visc[3]-c1345)*t3*(u[3]*u[3]) -
		c1345*t2*u[4]
	n[4][4] = c1345 * t1
}

// btLower sets a to the sub-diagonal block A(q) from the Jacobians at
// q−1: −dt·(t2·F + t1·(N + D)), D the diagonal of the dissipation
// coefficients.
func btLower(a, f, n *btBlock, dt1, dt2 float64, d *[5]float64) {
	for r := range 5 {
		ar, fr, nr := &a[r], &f[r], &n[r]
		ar[0] = -dt2*fr[0] - dt1*nr[0]
		ar[1] = -dt2*fr[1] - dt1*nr[1]
		ar[2] = -dt2*fr[2] - dt1*nr[2]
		ar[3] = -dt2*fr[3] - dt1*nr[3]
		ar[4] = -dt2*fr[4] - dt1*nr[4]
		ar[r] -= dt1 * d[r]
	}
}

// btDiag sets b to the diagonal block B(q) from the viscous Jacobian at q:
// I + 2·dt·t1·(N + D).
func btDiag(b, n *btBlock, dt1 float64, d *[5]float64) {
	t := dt1 * 2
	for r := range 5 {
		br, nr := &b[r], &n[r]
		br[0] = t * nr[0]
		br[1] = t * nr[1]
		br[2] = t * nr[2]
		br[3] = t * nr[3]
		br[4] = t * nr[4]
		br[r] = 1 + t*nr[r] + t*d[r]
	}
}

// btUpper sets c to the super-diagonal block C(q) from the Jacobians at
// q+1: dt·(t2·F − t1·(N + D)).
func btUpper(c, f, n *btBlock, dt1, dt2 float64, d *[5]float64) {
	for r := range 5 {
		cr, fr, nr := &c[r], &f[r], &n[r]
		cr[0] = dt2*fr[0] - dt1*nr[0]
		cr[1] = dt2*fr[1] - dt1*nr[1]
		cr[2] = dt2*fr[2] - dt1*nr[2]
		cr[3] = dt2*fr[3] - dt1*nr[3]
		cr[4] = dt2*fr[4] - dt1*nr[4]
		cr[r] -= dt1 * d[r]
	}
}

// btBlocksGo sets a, b and c to the sub-diagonal, diagonal and
// super-diagonal blocks of a point from the Jacobians of the points
// before it (f0, n0), at it (n1) and after it (f2, n2); btBlocks is it,
// with AVX2 where the CPU has it.
func btBlocksGo(a, b, c, f0, n0, n1, f2, n2 *btBlock, d *[5]float64, dt1, dt2 float64) {
	btLower(a, f0, n0, dt1, dt2, d)
	btDiag(b, n1, dt1, d)
	btUpper(c, f2, n2, dt1, dt2, d)
}

// btMatVecSub sets r = r − a·v (matvec_sub).
// The rows are written out, as Go does not unroll loops.
func btMatVecSub(a *btBlock, v, r *[5]float64) {
	v0, v1, v2, v3, v4 := v[0], v[1], v[2], v[3], v[4]
	a0, a1, a2, a3, a4 := &a[0], &a[1], &a[2], &a[3], &a[4]
	r[0] = r[0] - a0[0]*v0 - a0[1]*v1 - a0[2]*v2 - a0[3]*v3 - a0[4]*v4
	r[1] = r[1] - a1[0]*v0 - a1[1]*v1 - a1[2]*v2 - a1[3]*v3 - a1[4]*v4
	r[2] = r[2] - a2[0]*v0 - a2[1]*v1 - a2[2]*v2 - a2[3]*v3 - a2[4]*v4
	r[3] = r[3] - a3[0]*v0 - a3[1]*v1 - a3[2]*v2 - a3[3]*v3 - a3[4]*v4
	r[4] = r[4] - a4[0]*v0 - a4[1]*v1 - a4[2]*v2 - a4[3]*v3 - a4[4]*v4
}

// btMatMulSubGo sets c = c − a·b (matmul_sub); btMatMulSub is it, with
// AVX2 where the CPU has it.
func btMatMulSubGo(a, b, c *btBlock) {
	b0, b1, b2, b3, b4 := &b[0], &b[1], &b[2], &b[3], &b[4]
	for i := range 5 {
		ai, ci := &a[i], &c[i]
		a0, a1, a2, a3, a4 := ai[0], ai[1], ai[2], ai[3], ai[4]
		ci[0] = ci[0] - a0*b0[0] - a1*b1[0] - a2*b2[0] - a3*b3[0] - a4*b4[0]
		ci[1] = ci[1] - a0*b0[1] - a1*b1[1] - a2*b2[1] - a3*b3[1] - a4*b4[1]
		ci[2] = ci[2] - a0*b0[2] - a1*b1[2] - a2*b2[2] - a3*b3[2] - a4*b4[2]
		ci[3] = ci[3] - a0*b0[3] - a1*b1[3] - a2*b2[3] - a3*b3[3] - a4*b4[3]
		ci[4] = ci[4] - a0*b0[4] - a1*b1[4] - a2*b2[4] - a3*b3[4] - a4*b4[4]
	}
}

// btBinvCRHS solves b·X = [c r] in place by Gauss–Jordan elimination
// without pivoting (binvcrhs): c becomes b⁻¹·c and r becomes b⁻¹·r; b is
// destroyed. The elimination of b gives the multipliers, which are then
// applied to each column of c and to r held in registers; every value
// goes through the same operations, in the same order, as in binvcrhs.
// The multiple of row p subtracted from row q at step p is b[q][p] as step
// p finds it, which no later step changes, so the multipliers stay where
// they are in b; the reciprocal of each pivot replaces it. The
// elimination is written out, a row of b per line, as Go does not unroll
// loops.
func btBinvCRHS(b, c *btBlock, r *[5]float64) {
	b0, b1, b2, b3, b4 := &b[0], &b[1], &b[2], &b[3], &b[4]

	p := 1 / b0[0]
	b0[0] = p
	b0[1], b0[2], b0[3], b0[4] = b0[1]*p, b0[2]*p, b0[3]*p, b0[4]*p
	b1[1], b1[2], b1[3], b1[4] = b1[1]-b1[0]*b0[1], b1[2]-b1[0]*b0[2], b1[3]-b1[0]*b0[3], b1[4]-b1[0]*b0[4]
	b2[1], b2[2], b2[3], b2[4] = b2[1]-b2[0]*b0[1], b2[2]-b2[0]*b0[2], b2[3]-b2[0]*b0[3], b2[4]-b2[0]*b0[4]
	b3[1], b3[2], b3[3], b3[4] = b3[1]-b3[0]*b0[1], b3[2]-b3[0]*b0[2], b3[3]-b3[0]*b0[3], b3[4]-b3[0]*b0[4]
	b4[1], b4[2], b4[3], b4[4] = b4[1]-b4[0]*b0[1], b4[2]-b4[0]*b0[2], b4[3]-b4[0]*b0[3], b4[4]-b4[0]*b0[4]

	p = 1 / b1[1]
	b1[1] = p
	b1[2], b1[3], b1[4] = b1[2]*p, b1[3]*p, b1[4]*p
	b0[2], b0[3], b0[4] = b0[2]-b0[1]*b1[2], b0[3]-b0[1]*b1[3], b0[4]-b0[1]*b1[4]
	b2[2], b2[3], b2[4] = b2[2]-b2[1]*b1[2], b2[3]-b2[1]*b1[3], b2[4]-b2[1]*b1[4]
	b3[2], b3[3], b3[4] = b3[2]-b3[1]*b1[2], b3[3]-b3[1]*b1[3], b3[4]-b3[1]*b1[4]
	b4[2], b4[3], b4[4] = b4[2]-b4[1]*b1[2], b4[3]-b4[1]*b1[3], b4[4]-b4[1]*b1[4]

	p = 1 / b2[2]
	b2[2] = p
	b2[3], b2[4] = b2[3]*p, b2[4]*p
	b0[3], b0[4] = b0[3]-b0[2]*b2[3], b0[4]-b0[2]*b2[4]
	b1[3], b1[4] = b1[3]-b1[2]*b2[3], b1[4]-b1[2]*b2[4]
	b3[3], b3[4] = b3[3]-b3[2]*b2[3], b3[4]-b3[2]*b2[4]
	b4[3], b4[4] = b4[3]-b4[2]*b2[3], b4[4]-b4[2]*b2[4]

	p = 1 / b3[3]
	b3[3] = p
	b3[4] = b3[4] * p
	b0[4] = b0[4] - b0[3]*b3[4]
	b1[4] = b1[4] - b1[3]*b3[4]
	b2[4] = b2[4] - b2[3]*b3[4]
	b4[4] = b4[4] - b4[3]*b3[4]

	b4[4] = 1 / b4[4]

	btSolveColumns(b, c, r)
}

// btSolveColumnsGo applies the elimination that btBinvCRHS left in f to
// each column of c and to r (btEliminateColumn); btSolveColumns is it,
// with AVX2 where the CPU has it.
func btSolveColumnsGo(f, c *btBlock, r *[5]float64) {
	for j := range 5 {
		c[0][j], c[1][j], c[2][j], c[3][j], c[4][j] = btEliminateColumn(f, c[0][j], c[1][j], c[2][j], c[3][j], c[4][j])
	}
	r[0], r[1], r[2], r[3], r[4] = btEliminateColumn(f, r[0], r[1], r[2], r[3], r[4])
}

// btEliminateColumn applies the Gauss–Jordan steps that btBinvCRHS left
// in f (the reciprocal pivots on the diagonal, the multipliers off it) to
// the column (x0, ..., x4).
func btEliminateColumn(f *btBlock, x0, x1, x2, x3, x4 float64) (float64, float64, float64, float64, float64) {
	x0 *= f[0][0]
	x1 -= f[1][0] * x0
	x2 -= f[2][0] * x0
	x3 -= f[3][0] * x0
	x4 -= f[4][0] * x0

	x1 *= f[1][1]
	x0 -= f[0][1] * x1
	x2 -= f[2][1] * x1
	x3 -= f[3][1] * x1
	x4 -= f[4][1] * x1

	x2 *= f[2][2]
	x0 -= f[0][2] * x2
	x1 -= f[1][2] * x2
	x3 -= f[3][2] * x2
	x4 -= f[4][2] * x2

	x3 *= f[3][3]
	x0 -= f[0][3] * x3
	x1 -= f[1][3] * x3
	x2 -= f[2][3] * x3
	x4 -= f[4][3] * x3

	x4 *= f[4][4]
	x0 -= f[0][4] * x4
	x1 -= f[1][4] * x4
	x2 -= f[2][4] * x4
	x3 -= f[3][4] * x4
	return x0, x1, x2, x3, x4
}
