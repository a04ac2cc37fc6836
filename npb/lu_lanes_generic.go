//go:build !amd64 || purego

package npb

// luJacD4 is luJacD4Go.
func luJacD4(d *[4]luDiag, u, r []float64, k *luJacConst, _ *luLaneConst) {
	luJacD4Go(d, u[:20], r[:4], k)
}

// luJacN4 is luJacN4Go.
func luJacN4(axis int, a *[4][25]float64, u, r []float64, cv float64, k *luJacConst, _ *luLaneConst) {
	luJacN4Go(axis, a, u[:20], r[:4], cv, k)
}
