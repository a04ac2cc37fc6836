package npb

// The line kernels of MG's resid and psinv: the sweep along one i1 line
// of a level, given whole lines of n points (the two ghosts included),
// writing the line's interior points 1..n−2; and of rprj3, the sweep
// along one coarse line from the fine lines under and around it. On
// amd64 with AVX2 (mg_simd_amd64.go) most of the line is done four points
// at a time by assembly; the Go versions here do the rest of the line and
// all of it elsewhere. Both do NPB's floating-point operations in NPB's order,
// without fused multiply-adds, so that their results are identical bit
// for bit.
//
// With U1(j) and U2(j) NPB's edge and corner sums of the neighbour lines
// at point j (resid's u1, u2; psinv's r1, r2), the lines compute
//
//	resid: r(j) = v(j) − a0·u(j) − a2·(U2(j)+U1(j−1)+U1(j+1)) − a3·(U2(j−1)+U2(j+1))
//	psinv: u(j) = u(j) + c0·r(j) + c1·(r(j−1)+r(j+1)+U1(j)) + c2·(U2(j)+U1(j−1)+U1(j+1))
//
// summed left to right; with X(i) and Y(i) the edge and corner sums at
// fine point i and i = 2j+1−d the fine point under coarse point j,
//
//	rprj3: s(j) = 0.5·r(i) + 0.25·(r(i−1)+r(i+1)+X(i)) + 0.125·(X(i−1)+X(i+1)+Y(i)) + 0.0625·(Y(i−1)+Y(i+1))

// mgResidLineGo is resid's sweep over the points from..n−2 of a line of
// n = len(r) points: r, v and u are the line itself; ub, uf are u's lines
// at (i2∓1, i3), ud, uu at (i2, i3∓1), ubd, ufd at (i2∓1, i3−1) and ubu,
// ufu at (i2∓1, i3+1). NPB fills u1 and u2 for the whole line first; this
// sweep forms them one point ahead and keeps the last three of each in
// registers: the same sums in the same order. v and r may be the same
// line.
//
//go:noinline
func mgResidLineGo(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu []float64, a *[4]float64, from int) {
	n := len(r)
	if from < 1 || from > n-2 {
		return
	}
	a0, a2, a3 := a[0], a[2], a[3]
	// Equal lengths let the compiler drop the bounds checks.
	v, u = v[:n], u[:n]
	ub, uf, ud, uu = ub[:n], uf[:n], ud[:n], uu[:n]
	ubd, ufd, ubu, ufu = ubd[:n], ufd[:n], ubu[:n], ufu[:n]
	j := from - 1
	u1m := ub[j] + uf[j] + ud[j] + uu[j]
	u2m := ubd[j] + ufd[j] + ubu[j] + ufu[j]
	j++
	u1c := ub[j] + uf[j] + ud[j] + uu[j]
	u2c := ubd[j] + ufd[j] + ubu[j] + ufu[j]
	for j := from; j < n-1; j++ {
		p := j + 1
		u1p := ub[p] + uf[p] + ud[p] + uu[p]
		u2p := ubd[p] + ufd[p] + ubu[p] + ufu[p]
		r[j] = v[j] - a0*u[j] -
			a2*(u2c+u1m+u1p) -
			a3*(u2m+u2p)
		u1m, u1c = u1c, u1p
		u2m, u2c = u2c, u2p
	}
}

// mgPsinvLineGo is psinv's sweep over the points from..n−2 of a line of
// n = len(u) points: u and r are the line itself, rb, rf, rd, ru, rbd,
// rfd, rbu, rfu r's neighbour lines as in mgResidLineGo. NPB's r1 (edge
// sum) is formed one point ahead and kept with r itself for j−1, j, j+1
// in registers; r2 (corner sum) is needed at j only.
//
//go:noinline
func mgPsinvLineGo(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu []float64, c *[4]float64, from int) {
	n := len(u)
	if from < 1 || from > n-2 {
		return
	}
	c0, c1, c2 := c[0], c[1], c[2]
	r = r[:n]
	rb, rf, rd, ru = rb[:n], rf[:n], rd[:n], ru[:n]
	rbd, rfd, rbu, rfu = rbd[:n], rfd[:n], rbu[:n], rfu[:n]
	j := from - 1
	r1m := rb[j] + rf[j] + rd[j] + ru[j]
	rm := r[j]
	j++
	r1c := rb[j] + rf[j] + rd[j] + ru[j]
	rc := r[j]
	for j := from; j < n-1; j++ {
		p := j + 1
		r1p := rb[p] + rf[p] + rd[p] + ru[p]
		r2c := rbd[j] + rfd[j] + rbu[j] + rfu[j]
		rp := r[p]
		u[j] = u[j] + c0*rc +
			c1*(rm+rp+r1c) +
			c2*(r2c+r1m+r1p)
		r1m, r1c = r1c, r1p
		rm, rc = rc, rp
	}
}

// mgRprj3LineGo is rprj3's sweep over the coarse points from..nc−2 of a
// coarse line sc of nc points, from the fine line rl under it and its
// neighbour lines: rb, rf at (i2∓1, i3), rdn, rup at (i2, i3∓1), rbd,
// rbu at (i2−1, i3∓1) and rfd, rfu at (i2+1, i3∓1); d is NPB's d on axis
// 0 (see mgRprj3). NPB first fills x1 (edge sum) and y1 (corner sum) at
// the fine points between the coarse ones, then combines them for each
// coarse point; this sweep forms them at i1+1 and carries them to the
// next coarse point as its values at i1−1, the same sums in the same
// order.
//
//go:noinline
func mgRprj3LineGo(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu []float64, d, from int) {
	nc := len(sc)
	if from < 1 || from > nc-2 {
		return
	}
	// x1, y1 and r at fine i1−1 of the first coarse point.
	i := 2*from - d
	x1m := rb[i] + rf[i] + rdn[i] + rup[i]
	y1m := rbd[i] + rbu[i] + rfd[i] + rfu[i]
	rm := rl[i]
	for j1 := from; j1 < nc-1; j1++ {
		i1 := 2*j1 + 1 - d
		y2 := rbd[i1] + rbu[i1] + rfd[i1] + rfu[i1]
		x2 := rb[i1] + rf[i1] + rdn[i1] + rup[i1]
		ip := i1 + 1
		x1p := rb[ip] + rf[ip] + rdn[ip] + rup[ip]
		y1p := rbd[ip] + rbu[ip] + rfd[ip] + rfu[ip]
		rp := rl[ip]
		sc[j1] = 0.5*rl[i1] +
			0.25*(rm+rp+x2) +
			0.125*(x1m+x1p+y2) +
			0.0625*(y1m+y1p)
		x1m, y1m, rm = x1p, y1p, rp
	}
}
