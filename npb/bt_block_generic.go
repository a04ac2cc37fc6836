//go:build !amd64 || purego

package npb

// btMatMulSub is btMatMulSubGo.
func btMatMulSub(a, b, c *btBlock) { btMatMulSubGo(a, b, c) }

// btSolveColumns is btSolveColumnsGo.
func btSolveColumns(f, c *btBlock, r *[5]float64) { btSolveColumnsGo(f, c, r) }

// btBlocks is btBlocksGo.
func btBlocks(a, b, c, f0, n0, n1, f2, n2 *btBlock, d *[5]float64, dt1, dt2 float64) {
	btBlocksGo(a, b, c, f0, n0, n1, f2, n2, d, dt1, dt2)
}
