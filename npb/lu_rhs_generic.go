//go:build !amd64 || purego

package npb

// luFluxLanes does none of luFluxDiff's values.
func luFluxLanes(out, fp, fm []float64, t2 float64) int { return 0 }

// luDissipLanes does none of luDissipFlat's values.
func luDissipLanes(o, w2m, w1m, w0, w1p, w2p []float64, dssp float64) int { return 0 }

// luViscousLanes does none of luViscousLine's points.
func luViscousLanes(r, fp, f, wm, w, wp []float64, c *luRhsDir) int { return 0 }

// luConvectiveLanes does none of luConvectiveLine's points.
func luConvectiveLanes(f, w []float64, n int, c *luRhsDir) int { return 0 }

// luViscousFluxLanes does none of luViscousFluxLine's points.
func luViscousFluxLanes(f, wm, w, rm, r []float64, n int, c *luRhsDir) int { return 0 }
