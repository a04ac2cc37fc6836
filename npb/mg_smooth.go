package npb

// The V-cycle's step on the way up, resid then psinv on one level
// (mg.f90's mg3P), in one pass over the level instead of two.
//
// Apart, resid streams u, v and r through the caches and psinv r and u
// again: on the finest level, whose arrays are far larger than the
// caches, most of the step's time is those streams. Together, psinv
// follows resid a plane behind, so that the planes of r and u it reads
// are those resid has just read or written, still in the caches.
//
// psinv reads r's ghosts, which the exchange after resid fills from the
// neighbours' r; the exchange sends only the interior points next to the
// ghosts. So resid first computes those points (mgResidShell: the first
// and the last interior plane, and in the others the border lines and
// points next to ghosts that the exchange fills), then r's ghosts are
// exchanged, then one sweep computes the rest of r a plane ahead of
// psinv (mgResidPsinvSweep). Every point's arithmetic is the kernels',
// so the results are those of resid and psinv apart, bit for bit.

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
// completed first, while resid still reads u's plane i3 as it was. v and
// r may be the same array; where they are not, resid's lines are
// computed whole, the shell's points again (the same values).
func mgResidPsinvSweep(u, v, r []float64, n [3]int, a, c *[4]float64, wrap bool) {
	n1, n2, n3 := n[0], n[1], n[2]
	whole := wrap || &v[0] != &r[0]
	for i3 := 1; i3 < n3-1; i3++ {
		if j := i3 + 1; j >= 2 && j < n3-2 {
			switch {
			case whole:
				for i2 := 1; i2 < n2-1; i2++ {
					mgResidSpan(u, v, r, n, a, i2, j, 1, n1-2)
				}
			case n1 > 4:
				for i2 := 2; i2 < n2-2; i2++ {
					mgResidSpan(u, v, r, n, a, i2, j, 2, n1-3)
				}
			}
			if wrap {
				mgWrapPlane(r, n, j)
			}
		}
		mgPsinvPlane(r, u, n, c, wrap, i3)
	}
}
