//go:build race

package nicemu

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// copyWords copies src into dst, the first word of an aligned dst
// atomically (see storeword.go).
func copyWords(dst, src []byte) {
	if len(src) < 8 || uintptr(unsafe.Pointer(&dst[0]))%8 != 0 {
		copy(dst, src)
		return
	}
	copy(dst[8:], src[8:])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[0])), binary.LittleEndian.Uint64(src))
}

// writeLine writes the 64 bytes of src into dst, the first word and the
// last atomically (see storeword.go).
func writeLine(dst, src *[64]byte) {
	copyWords(dst[:56], src[:56])
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&dst[56])), binary.LittleEndian.Uint64(src[56:]))
}
