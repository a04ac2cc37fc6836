//go:build amd64 && !race

package memorder

// StoreRelease64 stores v at *p after every store that precedes the call
// in program order, as seen by any other processor. It is not a full
// barrier: later loads may be done before the store lands.
//
// It is a plain MOV in assembly (store_amd64.s): the compiler neither
// reorders the caller's stores past a call nor sees the store, and x86
// keeps stores in program order.
//
//go:noescape
func StoreRelease64(p *uint64, v uint64)

// StoreRelease32 is StoreRelease64 for a 32-bit word.
//
//go:noescape
func StoreRelease32(p *uint32, v uint32)
