//go:build amd64 && !purego

package npb

import "github.com/klauspost/cpuid/v2"

// mgUseAVX2 says whether the line kernels use the AVX2 assembly; the
// tests switch it to compare both ways.
var mgUseAVX2 = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2)

// mgResidLineAVX2 does mgResidLineGo's sweep for the points 1..4k of a
// line of n = len(r) ≥ 6 points, 4k being the largest multiple of 4 not
// above n−2 (mg_simd_amd64.s). Every other slice holds at least n points.
//
//go:noescape
func mgResidLineAVX2(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu []float64, a *[4]float64)

// mgPsinvLineAVX2 does mgPsinvLineGo's sweep for the points 1..4k of a
// line of n = len(u) ≥ 6 points, 4k being the largest multiple of 4 not
// above n−2 (mg_simd_amd64.s). Every other slice holds at least n points.
//
//go:noescape
func mgPsinvLineAVX2(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu []float64, c *[4]float64)

// mgResidLine is resid's sweep over the interior of a line (see
// mgResidLineGo): with AVX2, four points at a time, and the last up to
// three in Go.
func mgResidLine(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu []float64, a *[4]float64) {
	n := len(r)
	from := 1
	if mgUseAVX2 && n >= 6 {
		// The assembly trusts the lengths: make sure of them.
		v, u = v[:n], u[:n]
		ub, uf, ud, uu = ub[:n], uf[:n], ud[:n], uu[:n]
		ubd, ufd, ubu, ufu = ubd[:n], ufd[:n], ubu[:n], ufu[:n]
		mgResidLineAVX2(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu, a)
		from += (n - 2) &^ 3
	}
	mgResidLineGo(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu, a, from)
}

// mgPsinvLine is psinv's sweep over the interior of a line (see
// mgPsinvLineGo): with AVX2, four points at a time, and the last up to
// three in Go.
func mgPsinvLine(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu []float64, c *[4]float64) {
	n := len(u)
	from := 1
	if mgUseAVX2 && n >= 6 {
		r = r[:n]
		rb, rf, rd, ru = rb[:n], rf[:n], rd[:n], ru[:n]
		rbd, rfd, rbu, rfu = rbd[:n], rfd[:n], rbu[:n], rfu[:n]
		mgPsinvLineAVX2(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu, c)
		from += (n - 2) &^ 3
	}
	mgPsinvLineGo(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu, c, from)
}

// mgRprj3LineAVX2 does mgRprj3LineGo's sweep for the coarse points 1..4k
// of a coarse line of nc = len(sc) ≥ 6 points, 4k being the largest
// multiple of 4 not above nc−2, with NPB's d of 1 (mg_simd_amd64.s).
// Every fine line holds at least 2·nc−2 points.
//
//go:noescape
func mgRprj3LineAVX2(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu []float64)

// mgRprj3Line is rprj3's sweep over the interior of a coarse line (see
// mgRprj3LineGo): with AVX2 and d of 1, four coarse points at a time,
// and the last up to three in Go.
func mgRprj3Line(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu []float64, d int) {
	from := 1
	if nc := len(sc); mgUseAVX2 && d == 1 && nc >= 6 {
		// The assembly trusts the lengths: make sure of them.
		n := 2*nc - 2
		rl, rb, rf, rdn, rup = rl[:n], rb[:n], rf[:n], rdn[:n], rup[:n]
		rbd, rbu, rfd, rfu = rbd[:n], rbu[:n], rfd[:n], rfu[:n]
		mgRprj3LineAVX2(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu)
		from += (nc - 2) &^ 3
	}
	mgRprj3LineGo(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu, d, from)
}

// mgPrefetch asks the caches for the lines of a, b, c and d
// (PREFETCHT0), for loads that the hardware does not see coming.
//
//go:noescape
func mgPrefetch(a, b, c, d *float64)
