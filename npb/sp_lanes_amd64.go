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

// spFillLanesAVX2 is spSolver.fill's rows of nb ≥ 1 whole blocks of a
// pencil's row, four lanes in one AVX2 vector (sp_lanes_amd64.s).
//
//go:noescape
func spFillLanesAVX2(rows, cvm, cvp, rm, r0, rp, spm, spp *float64, k *spFillConsts, nb int)

// spFillLanes fills the rows of the whole blocks of lanes of a pencil's
// row q in rows (spSolver.fill, from the lanes' values at rows q−1, q,
// q+1) with AVX2 when the CPU has it, and returns how many lanes it
// filled: none without AVX2.
func spFillLanes(rows, cvm, cvp, rm, r0, rp, spm, spp []float64, k *spFillConsts) int {
	nb := len(cvm) / spLanes
	if !adiUseAVX2 || nb == 0 {
		return 0
	}
	// The assembly trusts the lengths: make sure of them.
	n := nb * spLanes
	_, _, _, _, _ = cvp[n-1], rm[n-1], r0[n-1], rp[n-1], rows[15*n-1]
	_, _ = spm[n-1], spp[n-1]
	spFillLanesAVX2(&rows[0], &cvm[0], &cvp[0], &rm[0], &r0[0], &rp[0], &spm[0], &spp[0], k, nb)
	return n
}

// spGatherRowAVX2 is spGather's copy of one row's nb ≥ 1 whole blocks
// (sp_lanes_amd64.s): x points at the row's first block, rhs at its first
// line's point, the lines srA values apart.
//
//go:noescape
func spGatherRowAVX2(x, rhs *float64, srA, nb int)

// spScatterRowAVX2 is spScatter's copy of one row's nb ≥ 1 whole blocks,
// spGatherRowAVX2's the other way.
//
//go:noescape
func spScatterRowAVX2(rhs, x *float64, srA, nb int)

// spGatherRow copies the first whole blocks of a row (xq, from rhs[rq]
// on) with AVX2 when the CPU has it, and returns how many it copied.
func spGatherRow(xq, rhs []float64, rq, srA, full int) int {
	if !adiUseAVX2 || full == 0 {
		return 0
	}
	// The assembly trusts the lengths: make sure of them.
	_, _ = xq[5*spLanes*full-1], rhs[rq+(spLanes*full-1)*srA+4]
	spGatherRowAVX2(&xq[0], &rhs[rq], srA, full)
	return full
}

// spScatterRow is spGatherRow the other way.
func spScatterRow(rhs, xq []float64, rq, srA, full int) int {
	if !adiUseAVX2 || full == 0 {
		return 0
	}
	_, _ = xq[5*spLanes*full-1], rhs[rq+(spLanes*full-1)*srA+4]
	spScatterRowAVX2(&rhs[rq], &xq[0], srA, full)
	return full
}

// spTxinvrAVX2 is spTxinvrRow's loop at the first n points of a row (n a
// multiple of 4) (sp_lanes_amd64.s).
//
//go:noescape
func spTxinvrAVX2(rhs, rho, us, vs, ws, qs, speed, ainv *float64, n int, k *spInvrConst)

// spTzetarAVX2 is spTzetarRow's loop at the first n points of a row (n a
// multiple of 4) (sp_lanes_amd64.s).
//
//go:noescape
func spTzetarAVX2(rhs, u, us, vs, ws, qs, speed, ainv *float64, n int, k *spInvrConst, add bool)

// spTxinvrLanes does txinvr at the first points of row, four at a time,
// with AVX2 when the CPU has it, and returns how many.
func spTxinvrLanes(row spRow, t *spInvrConst) int {
	n := len(row.rhoI) &^ 3
	if !adiUseAVX2 || n == 0 {
		return 0
	}
	// The assembly trusts the lengths: make sure of them.
	_, _, _, _ = row.rhs[5*n-1], row.us[n-1], row.vs[n-1], row.ws[n-1]
	_, _, _ = row.qs[n-1], row.speed[n-1], row.ainv[n-1]
	spTxinvrAVX2(&row.rhs[0], &row.rhoI[0], &row.us[0], &row.vs[0], &row.ws[0], &row.qs[0], &row.speed[0], &row.ainv[0], n, t)
	return n
}

// spTzetarLanes does tzetar (and with add the update of u) at the first
// points of row, four at a time, with AVX2 when the CPU has it, and
// returns how many.
func spTzetarLanes(row spRow, t *spInvrConst, add bool) int {
	n := len(row.us) &^ 3
	if !adiUseAVX2 || n == 0 {
		return 0
	}
	_, _, _, _ = row.rhs[5*n-1], row.u[5*n-1], row.vs[n-1], row.ws[n-1]
	_, _, _ = row.qs[n-1], row.speed[n-1], row.ainv[n-1]
	spTzetarAVX2(&row.rhs[0], &row.u[0], &row.us[0], &row.vs[0], &row.ws[0], &row.qs[0], &row.speed[0], &row.ainv[0], n, t, add)
	return n
}
