//go:build amd64 && !race

package nicemu

// publishGen stores a barrier generation into the member's own arrival
// line as one plain store. On amd64 stores become visible in program
// order, so it lands after the plain stores of the arrival before it, as
// an atomic store's would; unlike an atomic store (XCHG, a full fence), it
// does not stall the member until the line is its own again: the loads
// that follow it (the other members' lines) go out meanwhile. The caller
// fences afterwards (countArrival) before anything that needs the store
// visible.
func publishGen(w *uint64, gen uint64) { *w = gen }
