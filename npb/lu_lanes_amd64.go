//go:build amd64 && !purego

package npb

import "github.com/klauspost/cpuid/v2"

// luUseAVX2 says whether LU's sweeps form their blocks with the AVX2
// assembly (lu_lanes_amd64.s); the tests switch it to compare both ways.
var luUseAVX2 = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2)

// luJacDAVX2 is luJacD4Go with the four points in the lanes of AVX2
// vectors: u points at the first point's five values, r at its 1/ρ.
//
//go:noescape
func luJacDAVX2(d *[4]luDiag, u, r *float64, t *luLaneConst)

// luJacXAVX2 is luJacN4Go along x, as luJacDAVX2.
//
//go:noescape
func luJacXAVX2(a *[4][25]float64, u, r *float64, t *luLaneConst)

// luJacYAVX2 is luJacN4Go along y, as luJacDAVX2.
//
//go:noescape
func luJacYAVX2(a *[4][25]float64, u, r *float64, t *luLaneConst)

// luJacZAVX2 is luJacN4Go along z, as luJacDAVX2.
//
//go:noescape
func luJacZAVX2(a *[4][25]float64, u, r *float64, t *luLaneConst)

// luJacD4 is luJacD4Go, with AVX2 when the CPU has it (t is k's table
// of the diagonal block).
func luJacD4(d *[4]luDiag, u, r []float64, k *luJacConst, t *luLaneConst) {
	u, r = u[:20], r[:4]
	if luUseAVX2 {
		luJacDAVX2(d, &u[0], &r[0], t)
		return
	}
	luJacD4Go(d, u, r, k)
}

// luJacN4 is luJacN4Go, with AVX2 when the CPU has it (t is k's table
// of the axis and the sweep whose factor is cv).
func luJacN4(axis int, a *[4][25]float64, u, r []float64, cv float64, k *luJacConst, t *luLaneConst) {
	u, r = u[:20], r[:4]
	if !luUseAVX2 {
		luJacN4Go(axis, a, u, r, cv, k)
		return
	}
	switch axis {
	case 0:
		luJacXAVX2(a, &u[0], &r[0], t)
	case 1:
		luJacYAVX2(a, &u[0], &r[0], t)
	default:
		luJacZAVX2(a, &u[0], &r[0], t)
	}
}
