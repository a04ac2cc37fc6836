package npb

// The line solves of SP's pencils work on spLanes lines at a time, in a
// layout of their own: the rows of the pencil, its right-hand sides and
// the super-diagonals the elimination produces are stored by blocks of
// spLanes lines, the lines of a block side by side for each value, so
// that one step of the recurrence is the same few operations on spLanes
// adjacent values (four doubles: one AVX2 vector). The right-hand sides
// are gathered from the cell's rhs into this layout before the
// elimination and the back substitution and scattered back after each;
// the super-diagonals stay in it (spSolver.up, or the solver's scratch
// for the last cell on the axis, which back-substitutes at once).
//
// Row q of line l: block b = l/spLanes, lane l%spLanes; value v of the
// row (one of 15 coefficients, 5 right-hand sides or 6 super-diagonals)
// at ((q·nb + b)·values + v)·spLanes + lane, nb being the pencil's
// blocks. The lanes past the pencil's last line are rows of the identity
// with zero right-hand sides.

// spLanes is the number of lines an elimination step takes at once.
const spLanes = 4

// spLaneLayout is the layout of one pencil's rows: nb blocks of spLanes
// lines, n rows.
type spLaneLayout struct{ n, na, nb int }

func newSPLaneLayout(p *spPencil) spLaneLayout {
	return spLaneLayout{n: p.n, na: p.na, nb: (p.na + spLanes - 1) / spLanes}
}

// at returns the index of value 0 of row q of line l in an array of
// values values a row; value v is spLanes·v further.
func (y spLaneLayout) at(q, l, values int) int {
	return ((q*y.nb+l/spLanes)*values)*spLanes + l%spLanes
}

// stride returns the distance between rows q and q+1 of a line in an
// array of values values a row.
func (y spLaneLayout) stride(values int) int { return y.nb * values * spLanes }

// size returns the length of a pencil's array of values values a row.
func (y spLaneLayout) size(values int) int { return y.n * y.stride(values) }

// lanes returns the number of lanes of the layout, the pencil's lines
// and the padding after them.
func (y spLaneLayout) lanes() int { return y.nb * spLanes }

// spGather copies the right-hand sides of pencil p from the cell's rhs
// into x (5 values a row), zero in the padding lanes.
func spGather(x, rhs []float64, p *spPencil, y spLaneLayout) {
	sx := y.stride(5)
	for q := range y.n {
		xq, rq := x[q*sx:][:sx], p.pr+q*p.sr
		for b := spGatherRow(xq, rhs, rq, p.srA, y.na/spLanes); b < y.nb; b++ {
			blk := (*[5 * spLanes]float64)(xq[5*spLanes*b:])
			for ln := range spLanes {
				l := b*spLanes + ln
				if l >= y.na {
					blk[ln], blk[spLanes+ln], blk[2*spLanes+ln], blk[3*spLanes+ln], blk[4*spLanes+ln] = 0, 0, 0, 0, 0
					continue
				}
				v := (*[5]float64)(rhs[rq+l*p.srA:])
				blk[ln], blk[spLanes+ln], blk[2*spLanes+ln], blk[3*spLanes+ln], blk[4*spLanes+ln] = v[0], v[1], v[2], v[3], v[4]
			}
		}
	}
}

// spScatter copies the right-hand sides x of pencil p back into the
// cell's rhs.
func spScatter(rhs, x []float64, p *spPencil, y spLaneLayout) {
	sx := y.stride(5)
	for q := range y.n {
		xq, rq := x[q*sx:][:sx], p.pr+q*p.sr
		for b := spScatterRow(rhs, xq, rq, p.srA, y.na/spLanes); b < y.nb; b++ {
			xb := (*[5 * spLanes]float64)(xq[5*spLanes*b:])
			for ln := range min(spLanes, y.na-b*spLanes) {
				v := (*[5]float64)(rhs[rq+(b*spLanes+ln)*p.srA:])
				v[0], v[1], v[2], v[3], v[4] = xb[ln], xb[spLanes+ln], xb[2*spLanes+ln], xb[3*spLanes+ln], xb[4*spLanes+ln]
			}
		}
	}
}

// spLaneValues returns the number of values of a lane layout array with
// values values a row over all of cell c's pencils along axis d.
func spLaneValues(c *adiCell, d, values int) int {
	n := 0
	spPencils(c, d, func(p spPencil) {
		y := newSPLaneLayout(&p)
		n += y.size(values)
	})
	return n
}

// spEliminateLanes runs the forward elimination of the three factors on
// the pencil in the lane layout y: rows (15 values a row) and x (5) are
// eliminated in place, each row scaled to a unit diagonal and the two
// sub-diagonals below it eliminated; the last row is scaled too. The
// scaled super-diagonals, all the back substitution needs, go to u (6
// values a row).
func spEliminateLanes(rows, x, u []float64, y spLaneLayout) {
	sl, sx, su := y.stride(15), y.stride(5), y.stride(6)
	for q := 0; q <= y.n-2; q++ {
		spEliminateStep(rows[q*sl:], x[q*sx:], u[q*su:], sl, sx, y.nb, q <= y.n-3)
	}
	// The last row has nothing below: it is only scaled.
	q := y.n - 1
	row, v, w := rows[q*sl:][:y.stride(15)], x[q*sx:][:y.stride(5)], u[q*su:][:y.stride(6)]
	for b := range y.nb {
		for ln := range spLanes {
			lr, lv, lw := 15*spLanes*b+ln, 5*spLanes*b+ln, 6*spLanes*b+ln
			for f, fc := range spFactors {
				fac := 1 / row[lr+(5*f+2)*spLanes]
				w[lw+2*f*spLanes] = row[lr+(5*f+3)*spLanes] * fac
				w[lw+(2*f+1)*spLanes] = row[lr+(5*f+4)*spLanes] * fac
				for m := fc.lo; m < fc.hi; m++ {
					v[lv+m*spLanes] *= fac
				}
			}
		}
	}
}

// spEliminateStepGo scales row 0 of every block (l0 in rows, r0 in x,
// rows sl and sx apart) and eliminates its column from row 1 and, when
// two is set, from row 2, for the three factors; the row's scaled
// super-diagonals go to u. It is spEliminateStep's definition, and its
// operations are the assembly's, in the same order.
func spEliminateStepGo(rows, x, u []float64, sl, sx, nb int, two bool) {
	for b := range nb {
		for ln := range spLanes {
			k, r, o := 15*spLanes*b+ln, 5*spLanes*b+ln, 6*spLanes*b+ln
			l0 := func(j int) *float64 { return &rows[k+j*spLanes] }
			l1 := func(j int) *float64 { return &rows[k+sl+j*spLanes] }
			l2 := func(j int) *float64 { return &rows[k+2*sl+j*spLanes] }
			r0 := func(m int) *float64 { return &x[r+m*spLanes] }
			r1 := func(m int) *float64 { return &x[r+sx+m*spLanes] }
			r2 := func(m int) *float64 { return &x[r+2*sx+m*spLanes] }
			ut := func(j int) *float64 { return &u[o+j*spLanes] }

			// The first factor, shared by components 0, 1 and 2.
			fac := 1 / *l0(2)
			a3, a4 := fac**l0(3), fac**l0(4)
			*ut(0), *ut(1) = a3, a4
			x0, x1, x2 := fac**r0(0), fac**r0(1), fac**r0(2)
			*r0(0), *r0(1), *r0(2) = x0, x1, x2
			bb := *l1(1)
			*l1(2) -= bb * a3
			*l1(3) -= bb * a4
			*r1(0) -= bb * x0
			*r1(1) -= bb * x1
			*r1(2) -= bb * x2
			if two {
				bb = *l2(0)
				*l2(1) -= bb * a3
				*l2(2) -= bb * a4
				*r2(0) -= bb * x0
				*r2(1) -= bb * x1
				*r2(2) -= bb * x2
			}

			// The second and third factors, of components 3 and 4.
			for f := 1; f < 3; f++ {
				c, m := 5*f, 2+f // the factor's first coefficient, its component
				fac := 1 / *l0(c + 2)
				a3, a4 := fac**l0(c + 3), fac**l0(c + 4)
				*ut(2 * f), *ut(2*f + 1) = a3, a4
				xm := fac * *r0(m)
				*r0(m) = xm
				bb := *l1(c + 1)
				*l1(c + 2) -= bb * a3
				*l1(c + 3) -= bb * a4
				*r1(m) -= bb * xm
				if two {
					bb = *l2(c)
					*l2(c + 1) -= bb * a3
					*l2(c + 2) -= bb * a4
					*r2(m) -= bb * xm
				}
			}
		}
	}
}

// spBackSubstituteLanes solves the eliminated lines of a pencil in the
// lane layout y in place in x, from the last row up, with the
// super-diagonals u. in holds the successor's first two solution values
// of each line (the pencil's first line is line0 of the message), or is
// nil for the last cell on the axis, whose last row the elimination
// solved.
func spBackSubstituteLanes(x, u []float64, y spLaneLayout, in []float64, line0 int) {
	sx, su := y.stride(5), y.stride(6)
	if in == nil {
		// Row n−2 has only the solved row n−1 after it.
		q := y.n - 2
		xq, uq, x1 := x[q*sx:][:sx], u[q*su:][:su], x[(q+1)*sx:][:sx]
		for b := range y.nb {
			xb, x1b := (*[5 * spLanes]float64)(xq[5*spLanes*b:]), (*[5 * spLanes]float64)(x1[5*spLanes*b:])
			ub := (*[6 * spLanes]float64)(uq[6*spLanes*b:])
			for m, f := range spFactorOf {
				for ln := range spLanes {
					xb[m*spLanes+ln] -= ub[2*f*spLanes+ln] * x1b[m*spLanes+ln]
				}
			}
		}
	} else {
		spBackTakeNext(x, u, y, in, line0)
	}
	spBackRows(x, u, sx, su, y.nb, y.n-2)
}

// spBackRowsGo back-substitutes rows rows−1 down to 0 of nb blocks of
// lanes in x (row stride sx) with the super-diagonals u (stride su), the
// two rows below each already solved. It is spBackRows's definition, and
// its operations are the assembly's, in the same order.
func spBackRowsGo(x, u []float64, sx, su, nb, rows int) {
	for q := rows - 1; q >= 0; q-- {
		xq, uq := x[q*sx:][:sx], u[q*su:][:su]
		x1, x2 := x[(q+1)*sx:][:sx], x[(q+2)*sx:][:sx]
		for b := range nb {
			xb, x1b := (*[5 * spLanes]float64)(xq[5*spLanes*b:]), (*[5 * spLanes]float64)(x1[5*spLanes*b:])
			x2b := (*[5 * spLanes]float64)(x2[5*spLanes*b:])
			ub := (*[6 * spLanes]float64)(uq[6*spLanes*b:])
			for m, f := range spFactorOf {
				for ln := range spLanes {
					i := m*spLanes + ln
					// The products rounded as such (float64): no fused
					// multiply-add, whatever GOAMD64 allows.
					xb[i] = xb[i] - float64(ub[2*f*spLanes+ln]*x1b[i]) - float64(ub[(2*f+1)*spLanes+ln]*x2b[i])
				}
			}
		}
	}
}

// spBackTakeNext solves the last two rows of a pencil's lines (in x, u,
// lane layout y) with the successor's first two solution values of each
// line, in; the pencil's first line is line line0 of the message.
func spBackTakeNext(x, u []float64, y spLaneLayout, in []float64, line0 int) {
	for l := range y.na {
		sm := in[(line0+l)*spBackWords:][:spBackWords]
		rl, rp := y.at(y.n-1, l, 5), y.at(y.n-2, l, 5)
		ul, ulp := y.at(y.n-1, l, 6), y.at(y.n-2, l, 6)
		for m, f := range spFactorOf {
			o, s0, s1 := 2*f*spLanes, sm[2*m], sm[2*m+1]
			xl, xp := &x[rl+m*spLanes], &x[rp+m*spLanes]
			*xl = *xl - u[ul+o]*s0 - u[ul+o+spLanes]*s1
			*xp = *xp - u[ulp+o]**xl - u[ulp+o+spLanes]*s0
		}
	}
}
