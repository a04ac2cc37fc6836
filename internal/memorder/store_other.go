//go:build !amd64 || race

package memorder

import "sync/atomic"

// StoreRelease64 stores v at *p after every store that precedes the call
// in program order, as seen by any other processor. It is not a full
// barrier: later loads may be done before the store lands.
//
// Here it is sync/atomic's store: a plain store is not a release on weakly
// ordered processors, and the race detector must see the synchronisation.
func StoreRelease64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// StoreRelease32 is StoreRelease64 for a 32-bit word.
func StoreRelease32(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
