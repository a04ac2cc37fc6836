//go:build !amd64 || purego

package npb

// btMatMulSub is btMatMulSubGo.
func btMatMulSub(a, b, c *btBlock) { btMatMulSubGo(a, b, c) }

// btSolveColumns is btSolveColumnsGo.
func btSolveColumns(f, c *btBlock, r *[5]float64) { btSolveColumnsGo(f, c, r) }
