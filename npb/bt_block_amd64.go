//go:build amd64 && !purego

package npb

// btMatMulSubAVX2 is btMatMulSubGo with columns 0 to 3 of a row in one
// AVX2 vector (bt_block_amd64.s).
//
//go:noescape
func btMatMulSubAVX2(a, b, c *btBlock)

// btSolveColumnsAVX2 is btSolveColumnsGo with columns 0 to 3 of c in one
// AVX2 vector and column 4 beside r in another (bt_block_amd64.s).
//
//go:noescape
func btSolveColumnsAVX2(f, c *btBlock, r *[5]float64)

// btMatMulSub is btMatMulSubGo, with AVX2 when the CPU has it.
func btMatMulSub(a, b, c *btBlock) {
	if adiUseAVX2 {
		btMatMulSubAVX2(a, b, c)
		return
	}
	btMatMulSubGo(a, b, c)
}

// btSolveColumns is btSolveColumnsGo, with AVX2 when the CPU has it.
func btSolveColumns(f, c *btBlock, r *[5]float64) {
	if adiUseAVX2 {
		btSolveColumnsAVX2(f, c, r)
		return
	}
	btSolveColumnsGo(f, c, r)
}

// btBlocksAVX2 is btLower, btDiag and btUpper of one point with four
// columns of a row in one AVX2 vector (bt_block_amd64.s).
//
//go:noescape
func btBlocksAVX2(a, b, c, f0, n0, n1, f2, n2 *btBlock, d *[5]float64, dt1, dt2 float64)

// btBlocks sets a, b and c to the sub-diagonal, diagonal and
// super-diagonal blocks of a point from the Jacobians of the points
// before it (f0, n0), at it (n1) and after it (f2, n2): btLower, btDiag
// and btUpper, with AVX2 when the CPU has it.
func btBlocks(a, b, c, f0, n0, n1, f2, n2 *btBlock, d *[5]float64, dt1, dt2 float64) {
	if adiUseAVX2 {
		btBlocksAVX2(a, b, c, f0, n0, n1, f2, n2, d, dt1, dt2)
		return
	}
	btBlocksGo(a, b, c, f0, n0, n1, f2, n2, d, dt1, dt2)
}
