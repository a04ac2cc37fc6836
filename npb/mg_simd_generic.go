//go:build !amd64 || purego

package npb

// mgResidLine is resid's sweep over the interior of a line (see
// mgResidLineGo): here all of it in Go.
func mgResidLine(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu []float64, a *[4]float64) {
	mgResidLineGo(r, v, u, ub, uf, ud, uu, ubd, ufd, ubu, ufu, a, 1)
}

// mgPsinvLine is psinv's sweep over the interior of a line (see
// mgPsinvLineGo): here all of it in Go.
func mgPsinvLine(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu []float64, c *[4]float64) {
	mgPsinvLineGo(u, r, rb, rf, rd, ru, rbd, rfd, rbu, rfu, c, 1)
}

// mgRprj3Line is rprj3's sweep over the interior of a coarse line (see
// mgRprj3LineGo): here all of it in Go.
func mgRprj3Line(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu []float64, d int) {
	mgRprj3LineGo(sc, rl, rb, rf, rdn, rup, rbd, rbu, rfd, rfu, d, 1)
}

// mgPrefetch does nothing here (see the amd64 version).
func mgPrefetch(a, b, c, d *float64) {}
