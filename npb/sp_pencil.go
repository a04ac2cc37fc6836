package npb

// SP's sweeps work on pencils, the lines along the sweep's axis through
// one plane of a cell, side by side: each step of the recurrence along
// the lines runs over all lines of the pencil, so that the processor
// overlaps the independent lines (SP/x_solve.f90 and lhsx.f90 have the
// lines innermost in y and z for the same reason).

// spPencil is na lines along axis d of a cell, next to each other along
// another axis; NPB's pipeline numbers its lines line0, line0+1, ....
type spPencil struct {
	n      int // rows per line: the cell's points on axis d
	lo, hi int // the rows of points the step updates
	na     int
	line0  int
	pr, pa int // row 0 of the first line in rhs and in the derived fields
	sr, sa int // strides between rows in rhs and in the derived fields
	srA    int // stride between lines in rhs
	saA    int // stride between lines in the derived fields
}

// spPencils calls f for each pencil of the lines along axis d through
// cell c's updated points, in the order of adiLineIter: a pencil is at
// most spPencilWidth[d] lines of one plane.
func spPencils(c *adiCell, d int, f func(p spPencil)) {
	a, b := adiOther(d)
	alo, ahi := c.interior(a)
	blo, bhi := c.interior(b)
	_, sa, sr := adiAxisStrides(c, d)
	_, saA, srA := adiAxisStrides(c, a)
	p := spPencil{n: c.size[d], sr: sr, sa: sa, srA: srA, saA: saA}
	p.lo, p.hi = c.interior(d)
	lines := ahi - alo + 1
	width := spPencilWidth[d]
	if width == 0 {
		width = lines
	}
	var idx [3]int
	for ib := blo; ib <= bhi; ib++ {
		for ia := alo; ia <= ahi; ia += width {
			idx[a], idx[b], idx[d] = ia, ib, 0
			p.na = min(width, ahi-ia+1)
			p.line0 = (ib-blo)*lines + ia - alo
			p.pr = c.rAt(idx[0], idx[1], idx[2])
			p.pa = c.aAt(idx[0], idx[1], idx[2])
			f(p)
		}
	}
}

// fill sets the pentadiagonal rows of the pencil in rows, in the lane
// layout (sp_lanes.go) for the sweep along axis d (lhsx, lhsy, lhsz): at the
// updated points the implicit convection and viscous terms, the
// fourth-order dissipation, and for the second and third factors the
// speed of sound; at the grid's boundary points rows of the identity, as
// NPB's lhsinit.
func (s *spSolver) fill(c *adiCell, d int, p *spPencil, rows []float64) {
	s.fillLineTerms(c, d, p)
	spFillIdentity(p, rows)
	s.fillInterior(c, d, p, rows)
}

// fillLineTerms sets, for each line of the pencil at the rows lo−1…hi+1
// that fill's rows reach, the velocity normal to the sweep's axis in
// s.cv and the largest of the viscous terms in s.rhon (NPB's cv and
// rhon), row by row, so that fillInterior reads them for three rows at
// once.
func (s *spSolver) fillLineTerms(c *adiCell, d int, p *spPencil) {
	k := s.k
	ax := &k.dir[d]
	n := d + 1 // the momentum component normal to the axis
	vel := [3][]float64{c.us, c.vs, c.ws}[d]
	dmax, dn, d4, d0, con43, c1c5, c3c4 := k.dmax[d], ax.d[n], ax.d[4], ax.d[0], k.con43, k.c1c5, k.c3c4
	na := p.na
	for q := p.lo - 1; q <= p.hi+1; q++ {
		cv := s.cv[(q+1)*na:][:na]
		rhon := s.rhon[(q+1)*na:][:na]
		for l := range na {
			pa := p.pa + q*p.sa + l*p.saA
			ru1 := c3c4 * c.rhoI[pa]
			cv[l] = vel[pa]
			rhon[l] = spMax(spMax(dn+con43*ru1, d4+c1c5*ru1), spMax(dmax+ru1, d0))
		}
	}
}

// spFillIdentity sets rows of the identity in rows at the pencil's grid
// boundary points and in the padding lanes, which the elimination then
// goes through unchanged (NPB's lhsinit).
func spFillIdentity(p *spPencil, rows []float64) {
	na := p.na
	y := newSPLaneLayout(p)
	for q := range p.n {
		// Rows of the identity at the grid's boundary points and in the
		// padding lanes.
		from := na
		if q < p.lo || q > p.hi {
			from = 0
		}
		for l := from; l < y.lanes(); l++ {
			o := y.at(q, l, 15)
			for j, v := range spIdentityRow {
				rows[o+j*spLanes] = v
			}
		}
	}
}

// fillInterior sets the rows of the pencil's updated points, lo…hi, from
// the terms fillLineTerms left: the implicit convection and viscous
// terms, the fourth-order dissipation, and the speed of sound for the
// second and third factors; whole vectors where the lines lie side by
// side (spFillLanes), else a point at a time.
func (s *spSolver) fillInterior(c *adiCell, d int, p *spPencil, rows []float64) {
	k := s.k
	ax := &k.dir[d]
	na := p.na
	// The constants in locals: the compiler reloads anything read through
	// a pointer after each store to lhs.
	dtt1, dtt2, c2dtt1 := ax.dtt1, ax.dtt2, ax.c2dtt1
	speed := c.speed
	y := newSPLaneLayout(p)
	sl := y.stride(15)
	for q := p.lo; q <= p.hi; q++ {
		cvm, cvp := s.cv[q*na:][:na], s.cv[(q+2)*na:][:na]
		rm, r0, rp := s.rhon[q*na:][:na], s.rhon[(q+1)*na:][:na], s.rhon[(q+2)*na:][:na]
		w := &c.diss[d][q]
		w0, w1, w2, w3, w4 := 0+w[0]*k.dttdssp, w[1]*k.dttdssp, w[2]*k.dttdssp, w[3]*k.dttdssp, 0+w[4]*k.dttdssp
		rq := rows[q*sl:][:sl]
		l0 := 0
		if p.saA == 1 { // the lines' points side by side: whole vectors
			pa := p.pa + q*p.sa
			kf := spFillConsts{w0, w1, w2, w3, w4, -dtt2, dtt1, c2dtt1, dtt2, 1}
			l0 = spFillLanes(rq, cvm, cvp, rm, r0, rp, speed[pa-p.sa:][:na], speed[pa+p.sa:][:na], &kf)
		}
		for l := l0; l < na; l++ {
			r1 := -dtt2*cvm[l] - dtt1*rm[l] + w1
			r2 := 1 + c2dtt1*r0[l] + w2
			r3 := dtt2*cvp[l] - dtt1*rp[l] + w3
			pa := p.pa + q*p.sa + l*p.saA
			sm, sp := dtt2*speed[pa-p.sa], dtt2*speed[pa+p.sa]
			blk := (*[15 * spLanes]float64)(rq[15*spLanes*(l/spLanes):])
			ln := l % spLanes
			blk[ln], blk[spLanes+ln], blk[2*spLanes+ln], blk[3*spLanes+ln], blk[4*spLanes+ln] = w0, r1, r2, r3, w4
			blk[5*spLanes+ln], blk[6*spLanes+ln], blk[7*spLanes+ln], blk[8*spLanes+ln], blk[9*spLanes+ln] = w0, r1-sm, r2, r3+sp, w4
			blk[10*spLanes+ln], blk[11*spLanes+ln], blk[12*spLanes+ln], blk[13*spLanes+ln], blk[14*spLanes+ln] = w0, r1+sm, r2, r3-sp, w4
		}
	}
}

// spFillConsts are the constants of one row of fill for spFillLanes: the
// row's dissipation weights w0..w4, then −dtt2, dtt1, c2dtt1, dtt2 and 1.
type spFillConsts [10]float64

// spMax is the larger of a and b, neither of them NaN: the builtin max,
// which must also order NaNs and zeros of either sign, takes about ten
// instructions where this takes a compare and a move.
func spMax(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// spIdentityRow is a grid boundary point's row in each factor.
var spIdentityRow = [15]float64{2: 1, 7: 1, 12: 1}

// spFactorOf is the factor of each component of rhs.
var spFactorOf = [5]int{0, 0, 0, 1, 2}

// spPencilWidth bounds the lines of a pencil along each axis (0: all the
// lines of a plane). Along y and z the lines next to each other are
// neighbouring points, and the whole plane's lines are best. Along x they
// are a row of the cell apart, and a whole plane's lines fall into a few
// of the L1 cache's sets: one block of lanes (4 lines) was fastest
// (docs/decisions.md, spPencilWidth).
var spPencilWidth = [3]int{4, 0, 0}
