// Package memorder publishes a word of shared memory to another process
// with release ordering and nothing more: every store the caller made
// before it becomes visible no later than the word, and the caller does
// not wait for them to land.
//
// sync/atomic's stores are sequentially consistent. On amd64 that is an
// XCHG, which drains the store buffer: a process that writes a record
// into a peer's ring waits there for the lines it just wrote to come over
// from the peer's cache (a cache line's trip between cores) before it can
// go on, and a root that signals several peers pays that trip once per
// peer, one after the other. A release store is all that a ring's signal
// word or a consumer count needs, and amd64's plain MOV is one (TSO).
package memorder

// StoreRelease64 stores v at *p after every store that precedes the call
// in program order, as seen by any other processor. It is not a full
// barrier: later loads may be done before the store lands.
func StoreRelease64(p *uint64, v uint64) { storeRelease64(p, v) }
