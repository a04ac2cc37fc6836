package npb

// The forcing term (NPB3.4-MPI BT/exact_rhs.f90, the same in SP): the
// discrete right-hand side of the exact solution, with its sign changed,
// so that the exact solution is a steady state of the scheme.

// adiLine holds the exact solution along one grid line and the quantities
// derived from it, indexed by the point's position on the line plus 2.
type adiLine struct {
	ue, buf [][5]float64
	cuf, q  []float64
}

func adiNewLine(n int) *adiLine {
	return &adiLine{ue: make([][5]float64, n+4), buf: make([][5]float64, n+4), cuf: make([]float64, n+4), q: make([]float64, n+4)}
}

// adiExactRHS computes every cell's forcing term.
func adiExactRHS(g *adiGrid, k *adiConsts) {
	line := adiNewLine(g.maxSize())
	for ci := range g.cells {
		c := &g.cells[ci]
		clear(c.forcing)
		for d := range 3 {
			adiForcingAxis(c, k, d, line)
		}
		for kk := c.start[2]; kk < c.size[2]-c.end[2]; kk++ {
			for jj := c.start[1]; jj < c.size[1]-c.end[1]; jj++ {
				for ii := c.start[0]; ii < c.size[0]-c.end[0]; ii++ {
					f := c.forcing[c.rAt(ii, jj, kk):][:5]
					for m := range f {
						f[m] = -f[m]
					}
				}
			}
		}
	}
}

// adiForcingAxis adds the flux differences and the dissipation along axis
// d to cell c's forcing.
func adiForcingAxis(c *adiCell, k *adiConsts, d int, l *adiLine) {
	a, b := adiOther(d)
	lo, hi := c.interior(d)
	first, last := -2*(1-c.start[d]), c.size[d]+1-2*c.end[d]
	blo, bhi := c.interior(b)
	alo, ahi := c.interior(a)
	var idx [3]int
	for ib := blo; ib <= bhi; ib++ {
		for ia := alo; ia <= ahi; ia++ {
			idx[a], idx[b] = ia, ib
			for q := first; q <= last; q++ {
				idx[d] = q
				var x [3]float64
				for ax := range 3 {
					x[ax] = float64(idx[ax]+c.low[ax]) * k.dir[ax].dn
				}
				l.set(q+2, adiExact(x[0], x[1], x[2]), d)
			}
			for q := lo; q <= hi; q++ {
				idx[d] = q
				f := (*[5]float64)(c.forcing[c.rAt(idx[0], idx[1], idx[2]):])
				l.flux(f, q+2, d, k)
				l.dissipation(f, q, c.size[d], c.start[d] == 1, c.end[d] == 1, k.dssp)
			}
		}
	}
}

// set stores the exact solution v at position p of the line along axis d
// and the velocities, the squared normal velocity (cuf), the squared
// speed (buf[0]) and the kinetic energy (q) there.
func (l *adiLine) set(p int, v [5]float64, d int) {
	l.ue[p] = v
	rinv := 1 / v[0]
	b := &l.buf[p]
	for m := 1; m < 5; m++ {
		b[m] = rinv * v[m]
	}
	n := d + 1
	l.cuf[p] = b[n] * b[n]
	b[0] = l.cuf[p]
	for m := 1; m < 4; m++ {
		if m != n {
			b[0] += b[m] * b[m]
		}
	}
	l.q[p] = 0.5 * (b[1]*v[1] + b[2]*v[2] + b[3]*v[3])
}

// flux adds the central differences of the fluxes along axis d at
// position p of the line to f.
func (l *adiLine) flux(f *[5]float64, p, d int, k *adiConsts) {
	ax := &k.dir[d]
	n := d + 1
	ue, buf, q, cuf := l.ue, l.buf, l.q, l.cuf
	p1, m1 := p+1, p-1
	second := func(v0, v1, v2 float64) float64 { return v2 - 2*v1 + v0 }
	f[0] = f[0] - ax.t2*(ue[p1][n]-ue[m1][n]) + ax.dt1[0]*second(ue[m1][0], ue[p][0], ue[p1][0])
	for m := 1; m < 4; m++ {
		if m == n {
			f[m] = f[m] - ax.t2*((ue[p1][n]*buf[p1][n]+k.c2*(ue[p1][4]-q[p1]))-
				(ue[m1][n]*buf[m1][n]+k.c2*(ue[m1][4]-q[m1]))) +
				ax.con[0]*second(buf[m1][n], buf[p][n], buf[p1][n]) +
				ax.dt1[m]*second(ue[m1][n], ue[p][n], ue[p1][n])
		} else {
			f[m] = f[m] - ax.t2*(ue[p1][m]*buf[p1][n]-ue[m1][m]*buf[m1][n]) +
				ax.con[1]*second(buf[m1][m], buf[p][m], buf[p1][m]) +
				ax.dt1[m]*second(ue[m1][m], ue[p][m], ue[p1][m])
		}
	}
	f[4] = f[4] - ax.t2*(buf[p1][n]*(k.c1*ue[p1][4]-k.c2*q[p1])-buf[m1][n]*(k.c1*ue[m1][4]-k.c2*q[m1])) +
		0.5*ax.con[2]*second(buf[m1][0], buf[p][0], buf[p1][0]) +
		ax.con[3]*second(cuf[m1], cuf[p], cuf[p1]) +
		ax.con[4]*second(buf[m1][4], buf[p][4], buf[p1][4]) +
		ax.dt1[4]*second(ue[m1][4], ue[p][4], ue[p1][4])
}

// dissipation subtracts the fourth-order dissipation of the exact
// solution at point q (line position q+2) to f.
func (l *adiLine) dissipation(f *[5]float64, q, size int, start, end bool, dssp float64) {
	w := adiDissipationWeights(q, size, start, end)
	ue := l.ue
	p := q + 2
	for m := range 5 {
		f[m] = f[m] - dssp*(w[0]*ue[p-2][m]+w[1]*ue[p-1][m]+w[2]*ue[p][m]+w[3]*ue[p+1][m]+w[4]*ue[p+2][m])
	}
}

// adiDissipationWeights returns the weights of the fourth-order
// dissipation stencil at points q−2..q+2 for point q of a cell of size
// points on an axis: (1, −4, 6, −4, 1), one-sided next to the grid's
// boundaries (start: the cell holds the first plane; end: the last).
func adiDissipationWeights(q, size int, start, end bool) [5]float64 {
	switch {
	case start && q == 1:
		return [5]float64{0, 0, 5, -4, 1}
	case start && q == 2:
		return [5]float64{0, -4, 6, -4, 1}
	case end && q == size-3:
		return [5]float64{1, -4, 6, -4, 0}
	case end && q == size-2:
		return [5]float64{1, -4, 5, 0, 0}
	}
	return [5]float64{1, -4, 6, -4, 1}
}
