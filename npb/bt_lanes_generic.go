//go:build !amd64 || purego

package npb

// btNewLanes returns nil: without AVX2 lanes, BT eliminates a line at a
// time.
func btNewLanes(*adiConsts, int) btLaneSolver { return nil }
