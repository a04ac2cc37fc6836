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
	l := &luViscLanes{visc: [4]float64{c.visc, c.visc, c.visc, c.visc}, two: [4]float64{2, 2, 2, 2}}
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
