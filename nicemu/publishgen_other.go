//go:build !amd64 || race

package nicemu

import "sync/atomic"

// publishGen stores a barrier generation into the member's own arrival
// line: an atomic store, a release of the plain stores before it, where
// the plain store of publishgen_amd64.go is not one (other architectures)
// or where the race detector must see the publication.
func publishGen(w *uint64, gen uint64) { atomic.StoreUint64(w, gen) }
