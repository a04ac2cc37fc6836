//go:build amd64 && !race

package memorder

// storeRelease64 is a plain MOV in assembly (store_amd64.s): the compiler
// neither reorders the caller's stores past a call nor sees the store, and
// x86 keeps stores in program order.
//
//go:noescape
func storeRelease64(p *uint64, v uint64)
