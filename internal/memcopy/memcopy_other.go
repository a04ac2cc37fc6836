//go:build !amd64 || race

package memcopy

// Elsewhere, and under the race detector (which does not see what
// assembly moves), Copy is Go's copy.
const (
	useRep = false
	repMin = 0
	repMax = 0
)

func repMove(dst, src []byte, n int) { copy(dst[:n], src[:n]) }
