//go:build !race

package nicemu

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// copyWords copies src into segment memory at dst, each aligned 8-byte
// word of dst as one store: a receiver may read a word of a write in
// progress (a ring record's first word, which says where its signal is)
// and see it whole. memmove's vector and word stores do that; under the
// race detector, which does not know it, the first word is an atomic
// store of its own (storeword_race.go).
func copyWords(dst, src []byte) { copy(dst, src) }

// writeLine writes the 64 bytes of src into segment memory at dst, a
// cache line's worth: the first 56 as words, then the last word as one
// atomic store, so that it lands after them (see NIC.write). It is
// copyWords and that store for the commonest size, without memmove's
// dispatch on the length.
func writeLine(dst, src *[64]byte) {
	*(*[56]byte)(dst[:56]) = *(*[56]byte)(src[:56])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[56])), binary.LittleEndian.Uint64(src[56:]))
}
