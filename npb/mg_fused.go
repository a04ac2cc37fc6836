package npb

// Two steps of MG's V-cycle (mg.f90's mg3P and its main loop) in one pass
// over the level each, instead of two: resid then psinv on the way up
// (mgResidPsinvSweep), and the finest level's resid after a V-cycle then
// the next V-cycle's first restriction, rprj3 (mgResidRprj3Sweep).
//
// Apart, resid streams u, v and r through the caches, and psinv r and u
// again, or rprj3 r: on the finest level, whose arrays are far larger
// than the caches, most of a step's time is those streams. Together, the
// second operator follows resid a plane or two behind, so that the planes
// of r (and u) it reads are those resid has just read or written, still
// in the caches, and most of r's planes are never stored to r at all.
//
// The second operator reads r's ghosts, which the exchange after resid
// fills from the neighbours' r; the exchange sends only the interior
// points next to the ghosts. So resid first computes those points
// (mgResidShell: the first and the last interior plane, and in the
// others the border lines and points next to ghosts that the exchange
// fills), then r's ghosts are exchanged, then one sweep computes the
// rest of r a plane at a time (mgResidPass) ahead of the second
// operator. Every point's arithmetic is the kernels', so the results are
// those of the operators apart, bit for bit.

// mgResidShell computes resid's r (as mgResid) at the interior points
// that the exchange of r's ghosts sends: the interior planes 1 and n3−2,
// and, unless wrap is set, the border lines (i2 = 1, n2−2) and border
// points (i1 = 1, n1−2) of the planes between. With wrap set the planes'
// ghosts on axes 0 and 1 are filled as mgResid fills them, and only axis
// 2 is exchanged.
func mgResidShell(u, v, r []float64, n [3]int, a *[4]float64, wrap bool) {
	n1, n2, n3 := n[0], n[1], n[2]
	b3, k3 := mgBorders(n3)
	for _, i3 := range b3[:k3] {
		for i2 := 1; i2 < n2-1; i2++ {
			mgResidSpan(u, v, r, n, a, i2, i3, 1, n1-2)
		}
		if wrap {
			mgWrapPlane(r, n, i3)
		}
	}
	if wrap {
		return
	}
	b2, k2 := mgBorders(n2)
	b1, k1 := mgBorders(n1)
	for i3 := 2; i3 < n3-2; i3++ {
		for _, i2 := range b2[:k2] {
			mgResidSpan(u, v, r, n, a, i2, i3, 1, n1-2)
		}
		for i2 := 2; i2 < n2-2; i2++ {
			o := i2*n1 + i3*n1*n2
			// Line i2's points read as new u's line i2+1 in the plane
			// above and v's line i2 (u's lines below and at i3 came with
			// the plane before): ask for those of the line mgAhead on.
			if f := o + mgAhead*n1 + n1*n2; f+n1 <= len(u) {
				mgPrefetch(&u[f], &u[f+n1-1], &v[f-n1*n2], &v[f-n1*n2+n1-1])
			}
			for _, i1 := range b1[:k1] {
				mgResidPoint(u, v, r, o+i1, n1, n1*n2, a)
			}
		}
	}
}

// mgResidPoint computes resid's r at the point of index o of a level
// whose planes and lines are s3 and s2 apart: one point of the line
// kernels' sweep (mgResidLineGo), the same sums in the same order.
func mgResidPoint(u, v, r []float64, o, s2, s3 int, a *[4]float64) {
	_, _ = u[o-s2-s3-1], u[o+s2+s3+1]
	u1 := func(p int) float64 { return u[p-s2] + u[p+s2] + u[p-s3] + u[p+s3] }
	u2 := func(p int) float64 { return u[p-s2-s3] + u[p+s2-s3] + u[p-s2+s3] + u[p+s2+s3] }
	r[o] = v[o] - a[0]*u[o] -
		a[2]*(u2(o)+u1(o-1)+u1(o+1)) -
		a[3]*(u2(o-1)+u2(o+1))
}

// mgBorders returns the first and the last interior index of an axis of
// extent m ≥ 3, once each: b[:k].
func mgBorders(m int) (b [2]int, k int) {
	if m == 3 {
		return [2]int{1}, 1
	}
	return [2]int{1, m - 2}, 2
}

// mgResidPass completes resid's r where mgResidShell left it, once r's
// ghosts are exchanged, a plane at a time for an operator that follows
// it. The planes between the shell's go into planes, three planes of the
// level's layout used in turn, not into r: the operator alone reads
// them, and r's stores would cost the memory's bandwidth twice (the lines
// read for ownership, then written back). r's planes there are left as
// they were (with the shell's points), which the V-cycle never reads:
// the next V-cycle's restriction writes r's coarse levels before it
// reads them, and the finest level's residual before a norm is not
// fused. v and r may be the same array.
type mgResidPass struct {
	u, v, r []float64
	n       [3]int
	a       *[4]float64
	wrap    bool
	planes  []float64
}

// inner reports whether r's plane i3 is one between the shell's.
func (p *mgResidPass) inner(i3 int) bool { return i3 >= 2 && i3 < p.n[2]-2 }

// plane returns r's plane i3: an inner one's place in the scratch
// planes, else r's own.
func (p *mgResidPass) plane(i3 int) []float64 {
	s3 := p.n[0] * p.n[1]
	if p.inner(i3) {
		return p.planes[i3%3*s3:][:s3]
	}
	return p.r[i3*s3:][:s3]
}

// complete computes r's plane i3 into its place, if it is an inner one
// (the shell's are r's already): resid at the points the shell left,
// the shell's points and the ghosts taken from r. Where v and r are
// apart, whole lines are computed, the shell's points again (the same
// values), so that the line kernel runs over whole lines; in place (v is
// r) the shell's points are r's already.
func (p *mgResidPass) complete(i3 int) {
	if !p.inner(i3) {
		return
	}
	dst := p.plane(i3)
	u, v, r, n := p.u, p.v, p.r, p.n
	n1, n2 := n[0], n[1]
	if p.wrap || &v[0] != &r[0] {
		for i2 := 1; i2 < n2-1; i2++ {
			mgResidSpanTo(dst, u, v, n, p.a, i2, i3, 1, n1-2)
		}
		if p.wrap {
			mgWrapPlane(dst, n, 0)
			return
		}
		mgCopyRing(dst, r[i3*n1*n2:], n, 1)
		return
	}
	for i2 := 2; i2 < n2-2; i2++ {
		mgResidSpanTo(dst, u, v, n, p.a, i2, i3, 2, n1-3)
	}
	mgCopyRing(dst, r[i3*n1*n2:], n, 2)
}

// mgResidPsinvSweep completes resid's r (p) and runs psinv (mgPsinv) a
// plane behind it: psinv's plane i3 reads r's planes i3−1 to i3+1, so
// r's plane i3+1 is completed first, while resid still reads u's plane
// i3 as it was.
func mgResidPsinvSweep(p *mgResidPass, c *[4]float64) {
	n, u := p.n, p.u
	s3 := n[0] * n[1]
	for i3 := 1; i3 < n[2]-1; i3++ {
		p.complete(i3 + 1)
		mgPsinvPlanes(p.plane(i3-1), p.plane(i3), p.plane(i3+1), u[i3*s3:][:s3], n, c, p.wrap)
	}
}

// mgResidRprj3Sweep completes resid's r (p) and restricts it onto s, the
// coarse level of extents nj (mgRprj3): the coarse plane j3 lies over
// the fine plane 2·j3 and reads the fine planes 2·j3−1 to 2·j3+1, so it
// follows r's plane 2·j3+1 (the last, r's high ghost plane). The fine
// extents must be 2·nj−2 on every axis (NPB's d of 1).
func mgResidRprj3Sweep(p *mgResidPass, s []float64, nj [3]int) {
	n := p.n
	t3 := nj[0] * nj[1]
	d := [3]int{1, 1, 1}
	for i3 := 1; i3 < n[2]; i3++ {
		p.complete(i3)
		if i3 >= 3 && i3%2 == 1 {
			j3 := (i3 - 1) / 2
			mgRprj3Plane(p.plane(i3-2), p.plane(i3-1), p.plane(i3), n, s[j3*t3:][:t3], nj, d)
		}
	}
}

// mgCopyRing copies into the plane dst the outer depth lines and the
// outer depth points of the other lines of the plane src, both of the
// level's layout.
func mgCopyRing(dst, src []float64, n [3]int, depth int) {
	n1, n2 := n[0], n[1]
	for i2 := range n2 {
		o := i2 * n1
		if i2 < depth || i2 >= n2-depth {
			copy(dst[o:o+n1], src[o:o+n1])
			continue
		}
		copy(dst[o:o+depth], src[o:o+depth])
		copy(dst[o+n1-depth:o+n1], src[o+n1-depth:o+n1])
	}
}

// mgAhead is how many lines ahead mgResidShell asks for the ends of the
// lines that its border points will read first: u's in the plane above
// and v's. One line at a time, a line apart, the hardware does not fetch
// them ahead, and each point waited for the memory (about 80 ns a point
// on the 2-core Turin-like VM, a quarter of that with the lines asked
// for: BenchmarkMGResidRprj3's profile).
const mgAhead = 6
