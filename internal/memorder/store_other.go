//go:build !amd64 || race

package memorder

import "sync/atomic"

// storeRelease64 falls back to sync/atomic's store where a plain store is
// not a release (weakly ordered processors) and under the race detector,
// which must see the synchronisation.
func storeRelease64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }
