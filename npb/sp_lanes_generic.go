//go:build !amd64 || purego

package npb

// spEliminateStep is spEliminateStepGo.
func spEliminateStep(rows, x, u []float64, sl, sx, nb int, two bool) {
	spEliminateStepGo(rows, x, u, sl, sx, nb, two)
}

// spBackRows is spBackRowsGo.
func spBackRows(x, u []float64, sx, su, nb, rows int) {
	spBackRowsGo(x, u, sx, su, nb, rows)
}
