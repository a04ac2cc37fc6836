package npb

// luViscLanes are a direction's constants of luViscousUpdate for
// luViscousAVX2 (lu_rhs_amd64.s, which reads them at fixed offsets): a
// group of four points is five vectors of four values, and vector k's
// lane l holds component (4k + l) mod 5.
type luViscLanes struct {
	visc [4]float64    // c.visc
	two  [4]float64    // 2
	d1   [5][4]float64 // c.d1 of each lane's component
	keep [5][4]uint64  // all ones where the component takes the viscous flux (not 0)
}

func newLUViscLanes(c *luRhsDir) *luViscLanes {
	l := &luViscLanes{visc: lanes4(c.visc), two: lanes4(2)}
	for k := range 5 {
		for lane := range 4 {
			m := (4*k + lane) % 5
			l.d1[k][lane] = c.d1[m]
			if m != 0 {
				l.keep[k][lane] = ^uint64(0)
			}
		}
	}
	return l
}

// luViscousLine is luViscousUpdate at every point of a line: r, fp, f,
// wm, w and wp hold the line's points, five values each, the same point
// at the same index.
func luViscousLine(r, fp, f, wm, w, wp []float64, c *luRhsDir) {
	n := len(r)
	fp, f, wm, w, wp = fp[:n], f[:n], wm[:n], w[:n], wp[:n]
	for o := luViscousLanes(r, fp, f, wm, w, wp, c); o+5 <= n; o += 5 {
		luViscousUpdate(luPt(r, o), luPt(fp, o), luPt(f, o), luPt(wm, o), luPt(w, o), luPt(wp, o), c)
	}
}

// luFluxConst are a direction's constants of luConvective and luViscous
// for luConvectiveAVX2 and luViscousFluxAVX2 (lu_lanes_amd64.s, which
// reads them at fixed offsets), each in four lanes.
type luFluxConst struct {
	sel        [3][4]uint64  // all ones in the vector of the normal momentum's component (1..3)
	m          [3][4]float64 // the factors of the viscous flux's components 1..3: t3, r43t3 for the normal one
	k5, k6, k7 [4]float64
	half       [4]float64 // 0.50
	c1, c2     [4]float64 // luC1, luC2
}

// lanes4 is v in each of four lanes.
func lanes4(v float64) [4]float64 { return [4]float64{v, v, v, v} }

// newLUFluxConst lays out c's constants for the direction whose momentum
// component is n (1, 2, 3 for x, y, z).
func newLUFluxConst(c *luRhsDir, n int) *luFluxConst {
	f := &luFluxConst{k5: lanes4(c.k5), k6: lanes4(c.k6), k7: lanes4(c.k7), half: lanes4(0.50), c1: lanes4(luC1), c2: lanes4(luC2)}
	for m := range 3 {
		f.m[m] = lanes4(c.t3)
		if m+1 == n {
			f.sel[m] = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
			f.m[m] = lanes4(c.r43t3)
		}
	}
	return f
}

// luConvectiveLine is luConvective at every point of a line: f and w hold
// the line's points, five values each, the same point at the same index.
func luConvectiveLine(f, w []float64, n int, c *luRhsDir) {
	w = w[:len(f)]
	for o := luConvectiveLanes(f, w, n, c); o+5 <= len(f); o += 5 {
		luConvective(luPt(f, o), luPt(w, o), n)
	}
}

// luViscousFluxLine is luViscous at every point of a line: f, wm and w
// hold the line's points, five values each, the same point at the same
// index (wm a point's neighbour before it), rm and r their 1/ρ, one value
// each.
func luViscousFluxLine(f, wm, w, rm, r []float64, n int, c *luRhsDir) {
	wm, w = wm[:len(f)], w[:len(f)]
	rm, r = rm[:len(f)/5], r[:len(f)/5]
	for o := luViscousFluxLanes(f, wm, w, rm, r, n, c); o+5 <= len(f); o += 5 {
		luViscous(luPt(f, o), luPt(wm, o), luPt(w, o), rm[o/5], r[o/5], n, c)
	}
}
