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

// spFillLanes fills no lanes: fill's Go loop fills them all.
func spFillLanes(rows, cvm, cvp, rm, r0, rp, spm, spp []float64, k *spFillConsts) int {
	return 0
}

// spGatherRow copies no blocks: spGather's Go loop copies them all.
func spGatherRow(xq, rhs []float64, rq, srA, full int) int { return 0 }

// spScatterRow copies no blocks: spScatter's Go loop copies them all.
func spScatterRow(rhs, xq []float64, rq, srA, full int) int { return 0 }

// spTxinvrLanes does none of txinvr's points.
func spTxinvrLanes(row spRow, t *spInvrConst) int { return 0 }

// spTzetarLanes does none of tzetar's points.
func spTzetarLanes(row spRow, t *spInvrConst, add bool) int { return 0 }
