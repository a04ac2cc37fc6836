//go:build amd64 && !purego

package npb

import "unsafe"

// luFluxDiffAVX2 is luFluxDiff on the first n values (a multiple of 4).
//
//go:noescape
func luFluxDiffAVX2(out, fp, fm *float64, n int, t2 float64)

// luDissipFlatAVX2 is luDissipFlat's loop on the first n values (a
// multiple of 4) of out and of w's five lines of neighbours.
//
//go:noescape
func luDissipFlatAVX2(out, w2m, w1m, w0, w1p, w2p *float64, n int, dssp float64)

// luViscousAVX2 is luViscousUpdate at the first n/5 points (n a multiple
// of 20).
//
//go:noescape
func luViscousAVX2(r, fp, f, wm, w, wp *float64, n int, c *luViscLanes)

// Offsets that lu_rhs_amd64.s relies on.
var _ = [1]struct{}{}[unsafe.Offsetof(luViscLanes{}.keep)-224]

// luFluxLanes does luFluxDiff's first values with AVX2, when the CPU
// has it, and returns how many (the slices are as long as out).
func luFluxLanes(out, fp, fm []float64, t2 float64) int {
	n := len(out) &^ 3
	if !luUseAVX2 || n == 0 {
		return 0
	}
	luFluxDiffAVX2(&out[0], &fp[0], &fm[0], n, t2)
	return n
}

// luDissipLanes does luDissipFlat's first values with AVX2, when the CPU
// has it, and returns how many (the slices are as long as o).
func luDissipLanes(o, w2m, w1m, w0, w1p, w2p []float64, dssp float64) int {
	n := len(o) &^ 3
	if !luUseAVX2 || n == 0 {
		return 0
	}
	luDissipFlatAVX2(&o[0], &w2m[0], &w1m[0], &w0[0], &w1p[0], &w2p[0], n, dssp)
	return n
}

// luViscousLanes does luViscousLine's first points, four at a time, with
// AVX2 when the CPU has it, and returns how many values (the slices are
// as long as r).
func luViscousLanes(r, fp, f, wm, w, wp []float64, c *luRhsDir) int {
	n := len(r) / 20 * 20
	if !luUseAVX2 || n == 0 {
		return 0
	}
	luViscousAVX2(&r[0], &fp[0], &f[0], &wm[0], &w[0], &wp[0], n, c.lanes)
	return n
}

// luConvectiveAVX2 is luConvective at npts points (a multiple of 4)
// (lu_lanes_amd64.s).
//
//go:noescape
func luConvectiveAVX2(f, p *float64, npts, n int, t *luFluxConst)

// luViscousFluxAVX2 is luViscous at npts points (a multiple of 4)
// (lu_lanes_amd64.s).
//
//go:noescape
func luViscousFluxAVX2(f, pm, p, rm, r *float64, npts, n int, t *luFluxConst)

// Offsets that lu_lanes_amd64.s relies on.
var _ = [1]struct{}{}[unsafe.Offsetof(luFluxConst{}.c2)-352]

// luConvectiveLanes does luConvectiveLine's first points, four at a
// time, with AVX2 when the CPU has it, and returns how many values.
func luConvectiveLanes(f, w []float64, n int, c *luRhsDir) int {
	npts := len(f) / 20 * 4
	if !luUseAVX2 || npts == 0 {
		return 0
	}
	luConvectiveAVX2(&f[0], &w[0], npts, n, c.flux)
	return 5 * npts
}

// luViscousFluxLanes does luViscousFluxLine's first points, four at a
// time, with AVX2 when the CPU has it, and returns how many values.
func luViscousFluxLanes(f, wm, w, rm, r []float64, n int, c *luRhsDir) int {
	npts := len(f) / 20 * 4
	if !luUseAVX2 || npts == 0 {
		return 0
	}
	luViscousFluxAVX2(&f[0], &wm[0], &w[0], &rm[0], &r[0], npts, n, c.flux)
	return 5 * npts
}
