package npb

import "math"

// The grid operators of MG (mg.f90's resid, psinv, rprj3, interp and the
// local part of norm2u3), on one process's part of a level, ghosts
// included (see mg_grid.go for the layout). They do NPB's floating-point
// operations in NPB's order, so that the results are NPB's bit for bit
// (the tests compare them with NPB's loops as written).
//
// NPB's loops first fill line temporaries for a whole i1 line (resid's
// u1 and u2, the sums of the four edge and of the four corner neighbours
// of each point in the i2, i3 directions; psinv's r1 and r2; rprj3's x1
// and y1; interp's z1, z2 and z3), then combine them along the line. Here
// resid, psinv and rprj3 form them in one sweep along the line, one point
// ahead, and keep the values the combination needs in registers: the same
// sums in the same order, without storing and reloading the temporaries
// (resid's and psinv's line sweeps are in mg_simd.go, with AVX2 assembly
// on amd64).
// interp keeps NPB's temporaries (in scratch space its caller provides):
// its four fine lines are faster to update in four sweeps than in one.
// The lines are subslices of equal length, so that the compiler drops
// the bounds checks in the sweeps.

// mgResid computes the residual r = v − A·u on the interior of a level of
// extents n (mg.f90's resid; a(1) = 0 is left out as NPB does). v and r
// may be the same array. The ghosts of r are left to comm3, but with
// wrap set those on axes 0 and 1 are filled periodically plane by plane
// (mgWrapPlane), while each plane is still in cache.
func mgResid(u, v, r []float64, n [3]int, a *[4]float64, wrap bool) {
	n1, n2, n3 := n[0], n[1], n[2]
	if n1 < 3 || n2 < 3 || n3 < 3 {
		return
	}
	for i3 := 1; i3 < n3-1; i3++ {
		for i2 := 1; i2 < n2-1; i2++ {
			mgResidSpan(u, v, r, n, a, i2, i3, 1, n1-2)
		}
		if wrap {
			mgWrapPlane(r, n, i3)
		}
	}
}

// mgResidSpan computes resid's r at the points lo..hi of the line
// (i2, i3), 1 ≤ lo ≤ hi ≤ n1−2.
func mgResidSpan(u, v, r []float64, n [3]int, a *[4]float64, i2, i3, lo, hi int) {
	s3 := n[0] * n[1]
	mgResidSpanTo(r[i3*s3:][:s3], u, v, n, a, i2, i3, lo, hi)
}

// mgResidSpanTo is mgResidSpan with r's plane i3 in dst, a plane of the
// level's layout.
func mgResidSpanTo(dst, u, v []float64, n [3]int, a *[4]float64, i2, i3, lo, hi int) {
	s2, s3 := n[0], n[0]*n[1]
	d := lo - 1 + i2*s2 // point (lo−1, i2) of the plane
	o := d + i3*s3      // point (lo−1, i2, i3)
	m := hi - lo + 3    // the span and a neighbour on each side
	mgResidLine(dst[d:][:m], v[o:][:m], u[o:][:m],
		u[o-s2:][:m], u[o+s2:][:m], // (i2∓1, i3)
		u[o-s3:][:m], u[o+s3:][:m], // (i2, i3∓1)
		u[o-s2-s3:][:m], u[o+s2-s3:][:m], // (i2∓1, i3−1)
		u[o-s2+s3:][:m], u[o+s2+s3:][:m], // (i2∓1, i3+1)
		a)
}

// mgPsinv applies the smoother u = u + C·r on the interior of a level
// (mg.f90's psinv; c(3) = 0 is left out as NPB does). The ghosts of u are
// left to comm3; wrap fills those on axes 0 and 1 as in mgResid.
func mgPsinv(r, u []float64, n [3]int, c *[4]float64, wrap bool) {
	if n[0] < 3 || n[1] < 3 || n[2] < 3 {
		return
	}
	for i3 := 1; i3 < n[2]-1; i3++ {
		mgPsinvPlane(r, u, n, c, wrap, i3)
	}
}

// mgPsinvPlane is mgPsinv on the interior plane i3.
func mgPsinvPlane(r, u []float64, n [3]int, c *[4]float64, wrap bool, i3 int) {
	s3 := n[0] * n[1]
	mgPsinvPlanes(r[(i3-1)*s3:][:s3], r[i3*s3:][:s3], r[(i3+1)*s3:][:s3], u[i3*s3:][:s3], n, c, wrap)
}

// mgPsinvPlanes is mgPsinv on one interior plane whose u is up, with r's
// planes below it, at it and above it in rd, rc and ru (planes of the
// level's layout, wherever they lie).
func mgPsinvPlanes(rd, rc, ru, up []float64, n [3]int, c *[4]float64, wrap bool) {
	n1, n2 := n[0], n[1]
	s2 := n1
	for i2 := 1; i2 < n2-1; i2++ {
		o := i2 * s2
		mgPsinvLine(up[o:][:n1], rc[o:][:n1],
			rc[o-s2:][:n1], rc[o+s2:][:n1], // (i2∓1, i3)
			rd[o:][:n1], ru[o:][:n1], // (i2, i3∓1)
			rd[o-s2:][:n1], rd[o+s2:][:n1], // (i2∓1, i3−1)
			ru[o-s2:][:n1], ru[o+s2:][:n1], // (i2∓1, i3+1)
			c)
	}
	if wrap {
		mgWrapPlane(up, n, 0)
	}
}

// mgWrapPlane fills the ghosts of x on axes 0 and 1 in the interior plane
// i3 with the periodic images of its border points, as comm3 does on
// those axes for a process that is its own neighbour there (mgCopyBox):
// on axis 0 for the interior lines, then on axis 1 for whole lines,
// ghosts of axis 0 included.
func mgWrapPlane(x []float64, n [3]int, i3 int) {
	n1, n2 := n[0], n[1]
	p := x[i3*n1*n2:][:n1*n2]
	for o := n1; o < (n2-1)*n1; o += n1 {
		l := p[o : o+n1 : o+n1]
		l[0], l[n1-1] = l[n1-2], l[1]
	}
	copy(p[:n1], p[(n2-2)*n1:(n2-1)*n1])
	copy(p[(n2-1)*n1:], p[n1:2*n1])
}

// mgRprj3 restricts r of the fine level (extents nk) onto s of the
// coarse level (extents nj) by trilinear finite-element projection,
// s = P·r (mg.f90's rprj3). A fine extent of 3 (one interior point) maps
// the coarse points one step further, as NPB's d1, d2, d3 do. The ghosts
// of s are left to comm3. The coarse lines are mgRprj3Line's.
func mgRprj3(r []float64, nk [3]int, s []float64, nj [3]int) {
	d := mgRprj3Shift(nk)
	s3, t3 := nk[0]*nk[1], nj[0]*nj[1]
	for j3 := 1; j3 < nj[2]-1; j3++ {
		i3 := 2*j3 + 1 - d[2]
		mgRprj3Plane(r[(i3-1)*s3:][:s3], r[i3*s3:][:s3], r[(i3+1)*s3:][:s3], nk, s[j3*t3:][:t3], nj, d)
	}
}

// mgRprj3Shift returns NPB's d for the fine extents nk: 2 on an axis of
// extent 3, else 1. The fine point under coarse point j (NPB's 1-based
// indices) is 2j−d; 0-based, coarse jj = j−1 lies over fine 2·jj + 1 − d.
func mgRprj3Shift(nk [3]int) (d [3]int) {
	for ax := range 3 {
		d[ax] = 1
		if nk[ax] == 3 {
			d[ax] = 2
		}
	}
	return d
}

// mgRprj3Plane is mgRprj3 onto the coarse plane sp from the fine planes
// rd, rc and ru below, at and above the plane under it (planes of the
// levels' layouts, wherever they lie).
func mgRprj3Plane(rd, rc, ru []float64, nk [3]int, sp []float64, nj [3]int, d [3]int) {
	m1 := nk[0]
	s2 := m1
	for j2 := 1; j2 < nj[1]-1; j2++ {
		i2 := 2*j2 + 1 - d[1]
		o := i2 * s2
		mgRprj3Line(sp[nj[0]*j2:][:nj[0]], rc[o:][:m1],
			rc[o-s2:][:m1], rc[o+s2:][:m1], // (i2∓1, i3)
			rd[o:][:m1], ru[o:][:m1], // (i2, i3∓1)
			rd[o-s2:][:m1], ru[o-s2:][:m1], // (i2−1, i3∓1)
			rd[o+s2:][:m1], ru[o+s2:][:m1], // (i2+1, i3∓1)
			d[0])
	}
}

// mgInterp adds the trilinear interpolation of the coarse-level
// correction z (extents nz) to the fine-level u (extents nu), u = u + Q·z
// (mg.f90's interp). It writes the ghosts of u too, from the ghosts of z.
// A fine extent of 3 takes NPB's general form with the offsets d and t.
// tmp is scratch space of at least 3·nz[0] values.
func mgInterp(z []float64, nz [3]int, u []float64, nu [3]int, tmp []float64) {
	if nu[0] != 3 && nu[1] != 3 && nu[2] != 3 {
		mgInterpLines(z, nz, u, nu, tmp)
		return
	}

	// The general form, for fine levels with a single interior point on
	// some axis. With NPB's 1-based indices: d = 2, t = 1 on an axis of
	// extent 3, else d = 1, t = 0; fine point 2i−d gets the coarse point
	// i, fine point 2i−t the mean of i and i+1.
	var d, t [3]int
	for ax := range 3 {
		d[ax], t[ax] = 1, 0
		if nu[ax] == 3 {
			d[ax], t[ax] = 2, 1
		}
	}
	mgInterpOnPlanes(z, nz, u, nu, d, t)
	mgInterpMidPlanes(z, nz, u, nu, d, t)
}

// mgInterpLines is mgInterp where no fine extent is 3, as NPB: for each
// coarse line, the line temporaries z1 = z(i2+1)+z, z2 = z(i3+1)+z and
// z3 = z(i2+1, i3+1)+z(i3+1)+z1, then one sweep for each of the four fine
// lines (2·i2+{0,1}, 2·i3+{0,1}) it feeds. Four short sweeps with two
// streams each run faster than one with eight (fewer registers, no
// spills).
func mgInterpLines(z []float64, nz [3]int, u []float64, nu [3]int, tmp []float64) {
	mm1, mm2, mm3 := nz[0], nz[1], nz[2]
	n1, n2 := nu[0], nu[1]
	zs2, zs3 := mm1, mm1*mm2
	us2, us3 := n1, n1*n2
	m := mm1 - 1
	z1, z2, z3 := tmp[:mm1], tmp[mm1:2*mm1], tmp[2*mm1:3*mm1]
	for i3 := 0; i3 < mm3-1; i3++ {
		for i2 := 0; i2 < mm2-1; i2++ {
			o := i2*zs2 + i3*zs3
			zc := z[o:][:mm1] // (i2, i3)
			mgInterpSums(z1, z2, z3, zc,
				z[o+zs2:][:mm1],     // (i2+1, i3)
				z[o+zs3:][:mm1],     // (i2, i3+1)
				z[o+zs2+zs3:][:mm1]) // (i2+1, i3+1)
			uo := 2*i2*us2 + 2*i3*us3
			// NPB's u += z and u += 0.5·(z(i1+1)+z): 1·x is x and
			// the sum's order does not change it, so the first line
			// takes the others' form.
			mgInterpLine(u[uo:][:2*m], zc, 1, 0.5)              // (2·i2, 2·i3)
			mgInterpLine(u[uo+us2:][:2*m], z1, 0.5, 0.25)       // (2·i2+1, 2·i3)
			mgInterpLine(u[uo+us3:][:2*m], z2, 0.5, 0.25)       // (2·i2, 2·i3+1)
			mgInterpLine(u[uo+us2+us3:][:2*m], z3, 0.25, 0.125) // (2·i2+1, 2·i3+1)
		}
	}
}

// mgInterpOnPlanes is the first half of mgInterp's general form: the fine
// planes 2·i3−d[2], which lie on coarse planes, and so take the coarse
// points of one plane. d and t are mgInterp's offsets.
func mgInterpOnPlanes(z []float64, nz [3]int, u []float64, nu [3]int, d, t [3]int) {
	mm1, mm2, mm3 := nz[0], nz[1], nz[2]
	n1, n2 := nu[0], nu[1]
	// zi and ui index z and u with NPB's 1-based indices.
	zi := func(i1, i2, i3 int) int { return (i1 - 1) + mm1*((i2-1)+mm2*(i3-1)) }
	ui := func(i1, i2, i3 int) int { return (i1 - 1) + n1*((i2-1)+n2*(i3-1)) }
	for i3 := d[2]; i3 <= mm3-1; i3++ {
		for i2 := d[1]; i2 <= mm2-1; i2++ {
			for i1 := d[0]; i1 <= mm1-1; i1++ {
				u[ui(2*i1-d[0], 2*i2-d[1], 2*i3-d[2])] += z[zi(i1, i2, i3)]
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				u[ui(2*i1-t[0], 2*i2-d[1], 2*i3-d[2])] +=
					0.5 * (z[zi(i1+1, i2, i3)] + z[zi(i1, i2, i3)])
			}
		}
		for i2 := 1; i2 <= mm2-1; i2++ {
			for i1 := d[0]; i1 <= mm1-1; i1++ {
				u[ui(2*i1-d[0], 2*i2-t[1], 2*i3-d[2])] +=
					0.5 * (z[zi(i1, i2+1, i3)] + z[zi(i1, i2, i3)])
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				u[ui(2*i1-t[0], 2*i2-t[1], 2*i3-d[2])] +=
					0.25 * (z[zi(i1+1, i2+1, i3)] + z[zi(i1+1, i2, i3)] +
						z[zi(i1, i2+1, i3)] + z[zi(i1, i2, i3)])
			}
		}
	}
}

// mgInterpMidPlanes is the second half of mgInterp's general form: the fine
// planes 2·i3−t[2], between coarse planes i3 and i3+1, and so take the
// mean of the two. d and t are mgInterp's offsets.
func mgInterpMidPlanes(z []float64, nz [3]int, u []float64, nu [3]int, d, t [3]int) {
	mm1, mm2, mm3 := nz[0], nz[1], nz[2]
	n1, n2 := nu[0], nu[1]
	// zi and ui index z and u with NPB's 1-based indices.
	zi := func(i1, i2, i3 int) int { return (i1 - 1) + mm1*((i2-1)+mm2*(i3-1)) }
	ui := func(i1, i2, i3 int) int { return (i1 - 1) + n1*((i2-1)+n2*(i3-1)) }
	for i3 := 1; i3 <= mm3-1; i3++ {
		for i2 := d[1]; i2 <= mm2-1; i2++ {
			for i1 := d[0]; i1 <= mm1-1; i1++ {
				u[ui(2*i1-d[0], 2*i2-d[1], 2*i3-t[2])] +=
					0.5 * (z[zi(i1, i2, i3+1)] + z[zi(i1, i2, i3)])
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				u[ui(2*i1-t[0], 2*i2-d[1], 2*i3-t[2])] +=
					0.25 * (z[zi(i1+1, i2, i3+1)] + z[zi(i1, i2, i3+1)] +
						z[zi(i1+1, i2, i3)] + z[zi(i1, i2, i3)])
			}
		}
		for i2 := 1; i2 <= mm2-1; i2++ {
			for i1 := d[0]; i1 <= mm1-1; i1++ {
				u[ui(2*i1-d[0], 2*i2-t[1], 2*i3-t[2])] +=
					0.25 * (z[zi(i1, i2+1, i3+1)] + z[zi(i1, i2, i3+1)] +
						z[zi(i1, i2+1, i3)] + z[zi(i1, i2, i3)])
			}
			for i1 := 1; i1 <= mm1-1; i1++ {
				u[ui(2*i1-t[0], 2*i2-t[1], 2*i3-t[2])] +=
					0.125 * (z[zi(i1+1, i2+1, i3+1)] + z[zi(i1+1, i2, i3+1)] +
						z[zi(i1, i2+1, i3+1)] + z[zi(i1, i2, i3+1)] +
						z[zi(i1+1, i2+1, i3)] + z[zi(i1+1, i2, i3)] +
						z[zi(i1, i2+1, i3)] + z[zi(i1, i2, i3)])
			}
		}
	}
}

// mgInterpSums fills interp's line temporaries from the coarse lines zc
// (i2, i3), zf (i2+1, i3), zu (i2, i3+1) and zfu (i2+1, i3+1), summed in
// NPB's order.
func mgInterpSums(z1, z2, z3, zc, zf, zu, zfu []float64) {
	z2, z3 = z2[:len(z1)], z3[:len(z1)]
	zc, zf, zu, zfu = zc[:len(z1)], zf[:len(z1)], zu[:len(z1)], zfu[:len(z1)]
	for i := range z1 {
		a := zf[i] + zc[i]
		z1[i] = a
		z2[i] = zu[i] + zc[i]
		z3[i] = zfu[i] + zu[i] + a
	}
}

// mgInterpLine adds a coarse line a to a fine line ul of twice its
// intervals: ul[2i] += s·a[i] and ul[2i+1] += t·(a[i]+a[i+1]). Two coarse
// points a step, so that one bounds check covers four fine points.
//
//go:noinline
func mgInterpLine(ul, a []float64, s, t float64) {
	m := len(a) - 1
	a0 := a[0]
	i := 0
	for ; i+2 <= m; i += 2 {
		p := ul[2*i : 2*i+4 : 2*i+4]
		q := a[i+1 : i+3 : i+3]
		a1, a2 := q[0], q[1]
		p[0] += s * a0
		p[1] += t * (a0 + a1)
		p[2] += s * a1
		p[3] += t * (a1 + a2)
		a0 = a2
	}
	if i < m {
		ul[2*i] += s * a0
		ul[2*i+1] += t * (a0 + a[i+1])
	}
}

// mgNorm2 returns the local parts of norm2u3: the sum of squares and the
// largest magnitude over the interior of a level, summed in NPB's order.
func mgNorm2(r []float64, n [3]int) (s, rnmu float64) {
	n1, n2, n3 := n[0], n[1], n[2]
	for i3 := 1; i3 < n3-1; i3++ {
		for i2 := 1; i2 < n2-1; i2++ {
			o := n1 * (i2 + n2*i3)
			for _, x := range r[o+1 : o+n1-1] {
				s += x * x
				if a := math.Abs(x); a > rnmu {
					rnmu = a
				}
			}
		}
	}
	return s, rnmu
}
