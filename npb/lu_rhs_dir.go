package npb

// The three directions of LU's residual operator on one k-plane
// (rhs.f90's three sections): the convective flux difference, the viscous
// flux difference with the second difference of the dissipation
// coefficients, and the fourth-difference artificial dissipation, which
// is one-sided next to the global boundaries.

// xTerms adds the x terms of plane k.
func (s *luSolver) xTerms(w, out []float64, k int) {
	g := &s.g
	c := &s.rhsWork.c.x
	f := s.rhsWork.fx
	l1, l2 := 0, g.nx+1
	if g.north == -1 {
		l1 = 1
	}
	if g.south == -1 {
		l2 = g.nx
	}
	for j := g.jst; j <= g.jend; j++ {
		row := s.at(-1, j, k)
		wl, ol := w[row:row+s.sj], out[row:row+s.sj]
		rl := s.rinv[row/5 : (row+s.sj)/5]
		luConvectiveLine(f[5*(l1+1):5*(l2+2)], wl[5*(l1+1):], 1, c)
		lo, hi := 5*(g.ist+1), 5*(g.iend+2)
		luFluxDiff(ol[lo:hi], f[lo+5:hi+5], f[lo-5:hi-5], c.t2)
		b := 5 * (l2 + 2)
		luViscousFluxLine(f[lo:b], wl[lo-5:], wl[lo:], rl[lo/5-1:], rl[lo/5:], 1, c)
		luViscousLine(ol[lo:hi], f[lo+5:hi+5], f[lo:hi], wl[lo-5:hi-5], wl[lo:hi], wl[lo+5:hi+5], c)
		s.dissipation(wl, ol, 5, 5, g.ist, g.iend, g.nx, g.north == -1, g.south == -1)
	}
}

// luViscousUpdate adds the viscous flux difference fp − f and the second
// difference of wm, w, wp to r (rhs.f90's order of operations).
func luViscousUpdate(r, fp, f, wm, w, wp *[5]float64, c *luRhsDir) {
	r[0] = r[0] + c.d1[0]*(wm[0]-2.0*w[0]+wp[0])
	for m := 1; m < 5; m++ {
		r[m] = r[m] + c.visc*(fp[m]-f[m]) + c.d1[m]*(wm[m]-2.0*w[m]+wp[m])
	}
}

// dissipation subtracts the fourth-difference dissipation along one axis
// from the points lo..hi (local indices on that axis, of which the axis
// has n) of a line: points step apart in w and out from offset 0 for
// index −1, their neighbours on the axis st apart. Next to a global
// boundary (first, last) the two nearest points take NPB's one-sided
// stencils.
func (s *luSolver) dissipation(w, out []float64, step, st, lo, hi, n int, first, last bool) {
	dssp := s.rhsWork.c.dssp
	at := func(i int) int { return step * (i + 1) }
	a, b := lo, hi
	if first {
		luDissipEdge(w, out, at(2), st, 0, dssp)
		luDissipEdge(w, out, at(3), st, 1, dssp)
		a = 4
	}
	if last {
		b = n - 3
	}
	if a <= b {
		luDissipFlat(out, w, at(a), at(b)+5, st, dssp)
	}
	if last {
		luDissipEdge(w, out, at(n-2), st, 2, dssp)
		luDissipEdge(w, out, at(n-1), st, 3, dssp)
	}
}

// luDissipEdge applies one of the one-sided dissipation stencils at
// offset o: kind 0 and 1 at the second and third point from the first
// boundary, 2 and 3 at the third and second from the last.
func luDissipEdge(w, out []float64, o, st, kind int, dssp float64) {
	r := luPt(out, o)
	for m := range 5 {
		x := o + m
		var d float64
		switch kind {
		case 0:
			d = 5.0*w[x] - 4.0*w[x+st] + w[x+2*st]
		case 1:
			d = -4.0*w[x-st] + 6.0*w[x] - 4.0*w[x+st] + w[x+2*st]
		case 2:
			d = w[x-2*st] - 4.0*w[x-st] + 6.0*w[x] - 4.0*w[x+st]
		default:
			d = w[x-2*st] - 4.0*w[x-st] + 5.0*w[x]
		}
		r[m] = r[m] - dssp*d
	}
}

// luDissipFlat subtracts the inner fourth-difference dissipation from
// out[lo:hi], the neighbours st apart: one flat loop over the points and
// their components.
func luDissipFlat(out, w []float64, lo, hi, st int, dssp float64) {
	o := out[lo:hi]
	n := len(o)
	w2m, w1m, w0 := w[lo-2*st:][:n], w[lo-st:][:n], w[lo:][:n]
	w1p, w2p := w[lo+st:][:n], w[lo+2*st:][:n]
	for x := luDissipLanes(o, w2m, w1m, w0, w1p, w2p, dssp); x < n; x++ {
		o[x] = o[x] - dssp*(w2m[x]-4.0*w1m[x]+6.0*w0[x]-4.0*w1p[x]+w2p[x])
	}
}

// luFluxDiff subtracts t2 times the flux difference fp − fm from out.
func luFluxDiff(out, fp, fm []float64, t2 float64) {
	fp, fm = fp[:len(out)], fm[:len(out)]
	for x := luFluxLanes(out, fp, fm, t2); x < len(out); x++ {
		out[x] = out[x] - t2*(fp[x]-fm[x])
	}
}

// yTerms adds the y terms of plane k.
func (s *luSolver) yTerms(w, out []float64, k int) {
	g := &s.g
	c := &s.rhsWork.c.y
	f := s.rhsWork.fy
	kOff := s.sk * (k - 1)
	l1, l2 := 0, g.ny+1
	if g.west == -1 {
		l1 = 1
	}
	if g.east == -1 {
		l2 = g.ny
	}
	// Offsets within a plane: point (i, j) at 5(i+1) + sj(j+1).
	line := func(j int) (lo, hi int) { return s.at(g.ist, j, 1), s.at(g.iend, j, 1) }
	for j := l1; j <= l2; j++ {
		lo, hi := line(j)
		luConvectiveLine(f[lo:hi+5], w[lo+kOff:], 2, c)
	}
	sj := s.sj
	for j := g.jst; j <= g.jend; j++ {
		lo, hi := line(j)
		luFluxDiff(out[lo+kOff:hi+5+kOff], f[lo+sj:hi+5+sj], f[lo-sj:hi+5-sj], c.t2)
	}
	for j := g.jst; j <= l2; j++ {
		lo, hi := line(j)
		x := lo + kOff
		luViscousFluxLine(f[lo:hi+5], w[x-sj:], w[x:], s.rinv[(x-sj)/5:], s.rinv[x/5:], 2, c)
	}
	for j := g.jst; j <= g.jend; j++ {
		lo, hi := line(j)
		x, y := lo+kOff, hi+5+kOff
		luViscousLine(out[x:y], f[lo+sj:hi+5+sj], f[lo:hi+5], w[x-sj:y-sj], w[x:y], w[x+sj:y+sj], c)
	}
	s.yDissipation(w, out, k)
}

// yDissipation subtracts the dissipation in j at plane k, row by row, in
// rhs.f90's order: the first boundary's rows, the inner rows, the last
// boundary's rows.
func (s *luSolver) yDissipation(w, out []float64, k int) {
	g := &s.g
	sj := s.sj
	dssp := s.rhsWork.c.dssp
	first, last := g.west == -1, g.east == -1
	row := func(j int) (lo, hi int) { return s.at(g.ist, j, k), s.at(g.iend, j, k) + 5 }
	edge := func(j, kind int) {
		lo, hi := row(j)
		for o := lo; o < hi; o += 5 {
			luDissipEdge(w, out, o, sj, kind, dssp)
		}
	}
	a, b := 1, g.ny
	if first {
		edge(2, 0)
		edge(3, 1)
		a = 4
	}
	if last {
		b = g.ny - 3
	}
	for j := a; j <= b; j++ {
		lo, hi := row(j)
		luDissipFlat(out, w, lo, hi, sj, dssp)
	}
	if last {
		edge(g.ny-2, 2)
		edge(g.ny-1, 3)
	}
}

// zConvective computes the convective fluxes in z of plane k into its
// ring slot.
func (s *luSolver) zConvective(w []float64, k int) {
	g := &s.g
	f := s.rhsWork.zc[k%3]
	kOff := s.sk * (k - 1)
	for j := g.jst; j <= g.jend; j++ {
		lo, hi := s.at(g.ist, j, 1), s.at(g.iend, j, 1)+5
		luConvectiveLine(f[lo:hi], w[lo+kOff:], 3, &s.rhsWork.c.z)
	}
}

// zViscous computes the viscous fluxes in z between planes k−1 and k into
// plane k's ring slot.
func (s *luSolver) zViscous(w []float64, k int) {
	g := &s.g
	c := &s.rhsWork.c.z
	f := s.rhsWork.zv[k%2]
	kOff := s.sk * (k - 1)
	for j := g.jst; j <= g.jend; j++ {
		lo, hi := s.at(g.ist, j, 1), s.at(g.iend, j, 1)+5
		x := lo + kOff
		luViscousFluxLine(f[lo:hi], w[x-s.sk:], w[x:], s.rinv[(x-s.sk)/5:], s.rinv[x/5:], 3, c)
	}
}

// zTerms adds the z terms of plane k; the fluxes of planes k−1..k+1 are
// in the rings.
func (s *luSolver) zTerms(w, out []float64, k int, erhsOrder bool) {
	g := &s.g
	c := &s.rhsWork.c.z
	zcp, zcm := s.rhsWork.zc[(k+1)%3], s.rhsWork.zc[(k-1)%3]
	zvp, zv := s.rhsWork.zv[(k+1)%2], s.rhsWork.zv[k%2]
	sk, kOff := s.sk, s.sk*(k-1)
	for j := g.jst; j <= g.jend; j++ {
		lo, hi := s.at(g.ist, j, 1), s.at(g.iend, j, 1)+5
		x, y := lo+kOff, hi+kOff
		luFluxDiff(out[x:y], zcp[lo:hi], zcm[lo:hi], c.t2)
		wm, wp := w[x-sk:y-sk], w[x+sk:y+sk]
		if erhsOrder {
			wm, wp = wp, wm
		}
		luViscousLine(out[x:y], zvp[lo:hi], zv[lo:hi], wm, w[x:y], wp, c)
	}
	s.zDissipation(w, out, k)
}

// zDissipation subtracts the dissipation in z at plane k, with the
// one-sided stencils on planes 2, 3, nz−2 and nz−1 applied in rhs.f90's
// order.
func (s *luSolver) zDissipation(w, out []float64, k int) {
	g := &s.g
	dssp := s.rhsWork.c.dssp
	sk, nz := s.sk, g.nz
	kind := -1
	switch {
	case k == 2:
		kind = 0
	case k == 3:
		kind = 1
	}
	for j := g.jst; j <= g.jend; j++ {
		lo, hi := s.at(g.ist, j, k), s.at(g.iend, j, k)+5
		if kind >= 0 {
			for o := lo; o < hi; o += 5 {
				luDissipEdge(w, out, o, sk, kind, dssp)
			}
		}
		if k >= 4 && k <= nz-3 {
			luDissipFlat(out, w, lo, hi, sk, dssp)
		}
		for _, e := range [2][2]int{{nz - 2, 2}, {nz - 1, 3}} {
			if k == e[0] {
				for o := lo; o < hi; o += 5 {
					luDissipEdge(w, out, o, sk, e[1], dssp)
				}
			}
		}
	}
}
