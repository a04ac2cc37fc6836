//go:build amd64 && !purego

package npb

// spEliminateStepAVX2 is spEliminateStepGo on nb ≥ 1 blocks, four lanes
// in one AVX2 vector (sp_lanes_amd64.s). rows, x and u point at the first
// block's row 0; sl and sx are the row strides of rows and x in values.
//
//go:noescape
func spEliminateStepAVX2(rows, x, u *float64, sl, sx, nb int, two bool)

// spEliminateStep is spEliminateStepGo, with AVX2 when the CPU has it.
func spEliminateStep(rows, x, u []float64, sl, sx, nb int, two bool) {
	if !adiUseAVX2 || nb == 0 {
		spEliminateStepGo(rows, x, u, sl, sx, nb, two)
		return
	}
	// The assembly trusts the lengths: make sure of them.
	rowsUsed, xUsed := sl+15*spLanes*nb, sx+5*spLanes*nb
	if two {
		rowsUsed, xUsed = rowsUsed+sl, xUsed+sx
	}
	_, _, _ = rows[rowsUsed-1], x[xUsed-1], u[6*spLanes*nb-1]
	spEliminateStepAVX2(&rows[0], &x[0], &u[0], sl, sx, nb, two)
}

// spBackRowsAVX2 is spBackRowsGo on nb ≥ 1 blocks and rows ≥ 1 rows, four
// lanes in one AVX2 vector (sp_lanes_amd64.s). x and u point at row 0;
// sx and su are their row strides in values.
//
//go:noescape
func spBackRowsAVX2(x, u *float64, sx, su, nb, rows int)

// spBackRows is spBackRowsGo, with AVX2 when the CPU has it.
func spBackRows(x, u []float64, sx, su, nb, rows int) {
	if !adiUseAVX2 || nb == 0 || rows <= 0 {
		spBackRowsGo(x, u, sx, su, nb, rows)
		return
	}
	// The assembly trusts the lengths: make sure of them.
	_, _ = x[(rows+1)*sx+5*spLanes*nb-1], u[(rows-1)*su+6*spLanes*nb-1]
	spBackRowsAVX2(&x[0], &u[0], sx, su, nb, rows)
}
