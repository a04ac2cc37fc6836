//go:build !amd64 || purego

package npb

// epGauss is epGaussGo: the factors sqrt(-2·log(t)/t) of the pairs of p
// into g, all in Go. It finishes no pair (see the amd64 version), so it
// returns 0.
func epGauss(w *epWork, g, p []float64) int {
	epGaussGo(w, g, p)
	return 0
}

// epAccepted is epAcceptedGo: a batch's accepted pairs into x, in Go.
func epAccepted(x []float64, seed uint64) int {
	return epAcceptedGo(x, seed)
}
