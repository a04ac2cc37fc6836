package npb

// The V-cycle's step on the way up, resid then psinv on one level
// (mg.f90's mg3P), in one pass over the level instead of two.
//
// Apart, resid streams u, v and r through the caches and psinv r and u
// again: on the finest level, whose arrays are far larger than the
// caches, most of the step's time is those streams. Together, psinv
// follows resid a plane behind, so that the planes of r and u it reads
// are those resid has just read or written, still in the caches, and
// most of r's planes are never stored to r at all.
//
// psinv reads r's ghosts, which the exchange after resid fills from the
// neighbours' r; the exchange sends only the interior points next to the
// ghosts. So resid first computes those points (mgResidShell: the first
// and the last interior plane, and in the others the border lines and
// points next to ghosts that the exchange fills), then r's ghosts are
// exchanged, then one sweep computes the rest of r a plane ahead of
// psinv (mgResidPsinvSweep). Every point's arithmetic is the kernels',
// so u is what resid and psinv apart leave, bit for bit.

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
			for _, i1 := range b1[:k1] {
				mgResidSpan(u, v, r, n, a, i2, i3, i1, i1)
			}
		}
	}
}

// mgBorders returns the first and the last interior index of an axis of
// extent m ≥ 3, once each: b[:k].
func mgBorders(m int) (b [2]int, k int) {
	if m == 3 {
		return [2]int{1}, 1
	}
	return [2]int{1, m - 2}, 2
}

// mgResidPsinvSweep completes resid's r where mgResidShell left it, once
// r's ghosts are exchanged, and runs psinv (mgPsinv) a plane behind it:
// psinv's plane i3 reads r's planes i3−1 to i3+1, so r's plane i3+1 is
// completed first, while resid still reads u's plane i3 as it was. The
// planes between the shell's go into planes, three planes of the level's
// layout used in turn, not into r: psinv alone reads them, and r's
// stores would cost the memory's bandwidth twice (the lines read for
// ownership, then written back). r's planes there are left as they were
// (with the shell's points), which the V-cycle never reads: the next
// V-cycle's restriction writes r's coarse levels before it reads them,
// and the finest level's residual follows every V-cycle. v and r may be
// the same array.
func mgResidPsinvSweep(u, v, r []float64, n [3]int, a, c *[4]float64, wrap bool, planes []float64) {
	n3 := n[2]
	s3 := n[0] * n[1]
	at := func(i3 int) []float64 { // r's plane i3
		if i3 >= 2 && i3 < n3-2 {
			return planes[i3%3*s3:][:s3]
		}
		return r[i3*s3:][:s3]
	}
	for i3 := 1; i3 < n3-1; i3++ {
		if j := i3 + 1; j >= 2 && j < n3-2 {
			mgResidInner(at(j), u, v, r, n, a, wrap, j)
		}
		mgPsinvPlanes(at(i3-1), at(i3), at(i3+1), u[i3*s3:][:s3], n, c, wrap)
	}
}

// mgResidInner computes into dst r's whole plane i3, an interior plane
// between the shell's: resid at the points the shell left, the shell's
// points and the ghosts taken from r. Where v and r are apart, whole
// lines are computed, the shell's points again (the same values), so
// that the line kernel runs over whole lines; in place (v is r) the
// shell's points are r's already.
func mgResidInner(dst, u, v, r []float64, n [3]int, a *[4]float64, wrap bool, i3 int) {
	n1, n2 := n[0], n[1]
	if wrap || &v[0] != &r[0] {
		for i2 := 1; i2 < n2-1; i2++ {
			mgResidSpanTo(dst, u, v, n, a, i2, i3, 1, n1-2)
		}
		if wrap {
			mgWrapPlane(dst, n, 0)
			return
		}
		mgCopyRing(dst, r[i3*n1*n2:], n, 1)
		return
	}
	for i2 := 2; i2 < n2-2; i2++ {
		mgResidSpanTo(dst, u, v, n, a, i2, i3, 2, n1-3)
	}
	mgCopyRing(dst, r[i3*n1*n2:], n, 2)
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
