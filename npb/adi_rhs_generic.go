//go:build !amd64 || purego

package npb

// adiRowVecs has nothing here: the terms run in Go only.
type adiRowVecs struct{}

func newAdiRowVecs(*[3]adiAxisConsts, float64) adiRowVecs { return adiRowVecs{} }

// adiRowTerms adds the terms of the three axes to the row r of rhs and
// scales it by dt (adiRowX, adiRowY, adiRowZ).
func adiRowTerms(r []float64, rows *[3]adiRows, wx [][5]float64, wy, wz *[5]float64, kc *[3]adiAxisConsts, _ *adiRowVecs, dt float64) {
	adiRowTermsGo(r, rows, wx, wy, wz, kc, dt)
}

// adiDerivedLanes does none of adiDerived's points.
func adiDerivedLanes(u, pk, rhoI, us, vs, ws, qs, speed, ainv []float64, c1c2 float64) int {
	return 0
}
