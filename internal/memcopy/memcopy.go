// Package memcopy copies bytes the way the processor copies them fastest
// for the size: Go's copy, except for the mid-sized copies that a
// processor's string move instruction does faster (Copy: on amd64 with
// fast REP MOVSB, memcopy_amd64.go), and the short ones that need no call
// to memmove (Small).
package memcopy

// Copy copies min(len(dst), len(src)) bytes from src to dst, which must
// not overlap, and returns the number copied, as copy does.
func Copy(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n >= repMin && n < repMax && useRep {
		repMove(dst, src, n)
		return n
	}
	return copy(dst, src)
}
